//! What the round-trip tests of the text formats share.
#![allow(dead_code)]

use registro_formats::{import, Document, Format};

/// The bytes of `tests/data/<name>` and their path.
pub fn data(name: &str) -> (std::path::PathBuf, Vec<u8>) {
    let p = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let b = std::fs::read(&p).unwrap();
    (p, b)
}

/// `out`, the export of `doc` "translated" by upper-casing every segment, imports again as exactly those
/// upper-cased segments: the export kept the structure the segments came from.
pub fn assert_reimports_upper_cased(out: &str, doc: &Document, format: Format) {
    let again = import(out.as_bytes(), format).unwrap();
    let want: Vec<String> = doc.segments.iter().map(|s| s.source.to_uppercase()).collect();
    assert_eq!(again.segments.iter().map(|s| s.source.clone()).collect::<Vec<_>>(), want);
}
