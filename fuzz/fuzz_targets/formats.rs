//! XLIFF, SRT, WebVTT and PO imports read untrusted files. The properties checked live in `registro_formats::fuzz`, shared with the corpus replay tests.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| registro_formats::fuzz::structured(data));
