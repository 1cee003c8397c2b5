//! What the round-trip tests of the text formats share.
#![allow(dead_code)]

use registro_formats::{import, Document, Format};

/// The bytes of `tests/data/<name>` and their path.
pub fn data(name: &str) -> (std::path::PathBuf, Vec<u8>) {
    test_file("data", name)
}

/// The bytes of `tests/<folder>/<name>` and their path.
pub fn test_file(folder: &str, name: &str) -> (std::path::PathBuf, Vec<u8>) {
    let p = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder)
        .join(name);
    let b = std::fs::read(&p).unwrap();
    (p, b)
}

/// Each segment's source text, in order.
pub fn sources(doc: &Document) -> Vec<&str> {
    doc.segments.iter().map(|s| s.source.as_str()).collect()
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

/// The translation check of a markup format: `bytes` imported as `format` and exported "translated" by
/// [`upper_cased`] has the source's `structure` (its markup, text left out), every piece of `kept` (code, markup,
/// URLs a translation must not touch) as it was, every one of `translated`, and imports again as exactly the
/// upper-cased segments.
pub fn assert_upper_cased_export_keeps(
    bytes: &[u8],
    format: Format,
    structure: fn(&str) -> Vec<String>,
    kept: &[&str],
    translated: &[&str],
) {
    let doc = import(bytes, format).unwrap();
    let out = export_upper_cased(&doc);
    assert_eq!(structure(&out), structure(std::str::from_utf8(bytes).unwrap()), "{out}");
    for k in kept {
        assert!(out.contains(k), "lost {k:?}\n{out}");
    }
    assert_contains(&out, translated);
    assert_reimports_upper_cased(&out, &doc, format);
}

/// Every one of `pieces` stands in `out`.
pub fn assert_contains(out: &str, pieces: &[&str]) {
    for p in pieces {
        assert!(out.contains(p), "no {p:?} in\n{out}");
    }
}

/// `doc` exported with no translation is `bytes` again, byte for byte.
pub fn assert_untranslated_export_is(doc: &Document, bytes: impl AsRef<[u8]>) {
    assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), bytes.as_ref());
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
    let corpus = registro_testkit::fuzz_corpus(target);
    for (path, data) in &corpus {
        std::panic::catch_unwind(|| check(data)).unwrap_or_else(|_| panic!("{} breaks a property", path.display()));
    }
    assert!(corpus.len() >= min, "only {} inputs in fuzz/corpus/{target}", corpus.len());
}

/// Runs `program args… FILE`, FILE being `bytes` written to a temporary `out.<ext>`: a format's own tool reading
/// an export.
pub fn run_on_temp_file(program: impl AsRef<std::ffi::OsStr>, args: &[&str], bytes: &[u8], ext: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(format!("out.{ext}"));
    std::fs::write(&f, bytes).unwrap();
    std::process::Command::new(program).args(args).arg(&f).output().unwrap()
}
