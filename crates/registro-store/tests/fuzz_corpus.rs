//! Replays the kept fuzz corpora of the importers (fuzz/corpus/import_*, crash inputs included) through the same
//! checks as the fuzz targets, so every input that once found a bug, and every shape the fuzzer learned, stays a
//! regression test of plain `cargo test`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use registro_store::import::{parse_bytes, parse_paired_files, Format, ImportOptions, MAX_LINE_BYTES};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus", dir.display());
    files
}

#[test]
fn text_corpus() {
    for (p, bytes) in corpus("import_text") {
        if let Ok(doc) = parse_bytes(&p, bytes, Format::Text, &ImportOptions::default()) {
            assert!(!doc.segments.is_empty(), "{}", p.display());
            for s in &doc.segments {
                assert!(!s.text.trim().is_empty() && s.text.len() <= MAX_LINE_BYTES && !s.text.contains('\n'));
            }
        }
    }
}

#[test]
fn table_corpus() {
    for (p, bytes) in corpus("import_table") {
        let Some((&sel, body)) = bytes.split_first() else { continue };
        let format = if sel & 1 == 0 { Format::Tsv } else { Format::Csv };
        let column = match (sel >> 1) & 3 {
            0 => None,
            1 => Some("2".to_string()),
            2 => Some("text".to_string()),
            _ => Some("0".to_string()),
        };
        let opts = ImportOptions { column, ..ImportOptions::default() };
        if let Ok(doc) = parse_bytes(&p, body.to_vec(), format, &opts) {
            assert!(doc.segments.iter().all(|s| !s.text.trim().is_empty()), "{}", p.display());
        }
    }
}

#[test]
fn jsonl_corpus() {
    for (p, bytes) in corpus("import_jsonl") {
        if let Ok(doc) = parse_bytes(&p, bytes, Format::Jsonl, &ImportOptions::default()) {
            assert!(!doc.segments.is_empty(), "{}", p.display());
        }
    }
}

/// The paired target's input: `<layout byte><folder name>` then `\n@@ <name>\n<contents>` per file.
fn decode_paired(data: &[u8]) -> (Option<Format>, String, BTreeMap<String, Vec<u8>>) {
    let sep = b"\n@@ ";
    let (mut parts, mut start, mut i) = (Vec::new(), 0, 0);
    while i + sep.len() <= data.len() {
        if &data[i..i + sep.len()] == sep {
            parts.push(&data[start..i]);
            i += sep.len();
            start = i;
        } else {
            i += 1;
        }
    }
    parts.push(&data[start..]);
    let layout = match parts[0].first().map(|b| b % 3) {
        Some(1) => Some(Format::Cocoa),
        Some(2) => Some(Format::Xformal),
        _ => None,
    };
    let dir = String::from_utf8_lossy(parts[0].get(1..).unwrap_or_default()).replace('/', "_");
    let mut files = BTreeMap::new();
    for p in &parts[1..] {
        let (name, body) = match p.iter().position(|&b| b == b'\n') {
            Some(i) => (&p[..i], &p[i + 1..]),
            None => (&p[..], &[][..]),
        };
        let name = String::from_utf8_lossy(name).replace('/', "_");
        if !name.is_empty() && name != "." && name != ".." {
            files.insert(name, body.to_vec());
        }
    }
    (layout, if dir.is_empty() { "d".into() } else { dir }, files)
}

#[test]
fn paired_corpus() {
    let mut parsed_any = false;
    for (p, bytes) in corpus("import_paired") {
        let (layout, dir, files) = decode_paired(&bytes);
        if let Ok(parsed) = parse_paired_files(&Path::new("/fuzz").join(dir), &files, layout, &ImportOptions::default()) {
            parsed_any = true;
            for d in &parsed.documents {
                let origin = d.origin.as_deref().unwrap();
                let name = Path::new(origin).file_name().unwrap().to_string_lossy().into_owned();
                assert!(files.contains_key(&name), "{}: {name}", p.display());
                assert!(!d.segments.is_empty());
            }
        }
    }
    assert!(parsed_any, "the paired corpus should hold valid folders too");
}
