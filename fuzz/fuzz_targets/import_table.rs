//! TSV / CSV import: the first byte picks the delimiter and the text column option, the rest is the file.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use registro_store::import::{parse_bytes, Format, ImportOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else { return };
    let format = if sel & 1 == 0 { Format::Tsv } else { Format::Csv };
    let column = match (sel >> 1) & 3 {
        0 => None,
        1 => Some("2".to_string()),
        2 => Some("text".to_string()),
        _ => Some("0".to_string()),
    };
    let opts = ImportOptions { column, ..ImportOptions::default() };
    if let Ok(doc) = parse_bytes(Path::new("fuzz.tsv"), body.to_vec(), format, &opts) {
        assert!(!doc.segments.is_empty());
        for s in &doc.segments {
            assert!(!s.text.trim().is_empty());
            assert!(s.references.iter().all(|(n, t)| !n.is_empty() || !t.is_empty()));
        }
    }
});
