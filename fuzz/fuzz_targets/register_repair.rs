#![no_main]
// Model output is untrusted text: the analyzer and rule-based repair of every language take any string (the
// properties live in registro_register::fuzz, which tests/fuzz_corpus.rs replays).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| registro_register::fuzz::analyze_and_repair(data));
