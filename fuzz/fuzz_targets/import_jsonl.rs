//! JSON Lines import from arbitrary bytes.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use registro_store::import::{parse_bytes, Format, ImportOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = parse_bytes(Path::new("fuzz.jsonl"), data.to_vec(), Format::Jsonl, &ImportOptions::default()) {
        assert!(!doc.segments.is_empty());
    }
});
