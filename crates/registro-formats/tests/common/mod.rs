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

/// Runs every input of `fuzz/corpus/<target>` (at least `min` of them) through `check`, naming the input that
/// breaks a property.
pub fn replay_fuzz_corpus(target: &str, min: usize, check: fn(&[u8])) {
    let dir = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = e.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        std::panic::catch_unwind(|| check(&data)).unwrap_or_else(|_| panic!("{} breaks a property", path.display()));
        n += 1;
    }
    assert!(n >= min, "only {n} inputs in {}", dir.display());
}
