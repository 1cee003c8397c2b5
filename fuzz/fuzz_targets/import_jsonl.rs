//! JSON Lines import from arbitrary bytes. The properties checked live in `registro_store::import::fuzz`, shared with the corpus replay test.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    registro_store::import::fuzz::jsonl(data);
});
