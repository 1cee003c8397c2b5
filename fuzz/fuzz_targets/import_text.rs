//! Plain-text import from arbitrary bytes: either a clear ImportError or a document whose segments are the
//! non-blank lines, none over the per-segment limit.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use registro_store::import::{parse_bytes, Format, ImportOptions, MAX_LINE_BYTES};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.txt");
    if let Ok(doc) = parse_bytes(path, data.to_vec(), Format::Text, &ImportOptions::default()) {
        assert!(!doc.segments.is_empty());
        for s in &doc.segments {
            assert!(!s.text.trim().is_empty() && s.text.len() <= MAX_LINE_BYTES);
            assert!(!s.text.contains('\n'));
        }
    }
});
