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

/// Each segment's id and source text, in order.
pub fn ids_and_sources(doc: &Document) -> Vec<(&str, &str)> {
    doc.segments.iter().map(|s| (s.id.as_str(), s.source.as_str())).collect()
}

/// The deterministic "translation" of the structure tests: every segment upper-cased (placeholders have no
/// letters, so they stay as they are).
pub fn upper_cased(doc: &Document) -> Vec<Option<String>> {
    doc.segments.iter().map(|s| Some(s.source.to_uppercase())).collect()
}

/// The export of a text format's `doc` translated by [`upper_cased`].
pub fn export_upper_cased(doc: &Document) -> String {
    String::from_utf8(doc.export(&upper_cased(doc)).unwrap()).unwrap()
}

/// Every piece of `kept` (code, markup, URLs a translation must not touch) stands in `out` as it was.
pub fn assert_kept(out: &str, kept: &[&str]) {
    for k in kept {
        assert!(out.contains(k), "lost {k:?}\n{out}");
    }
}

/// `out`, the export of `doc` "translated" by upper-casing every segment, imports again as exactly those
/// upper-cased segments: the export kept the structure the segments came from.
pub fn assert_reimports_upper_cased(out: impl AsRef<[u8]>, doc: &Document, format: Format) {
    let again = import(out.as_ref(), format).unwrap();
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
