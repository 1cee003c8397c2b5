//! The properties every importer keeps on arbitrary bytes, in one place: the fuzz targets in `fuzz/` call these
//! on each input, and `tests/fuzz_corpus.rs` replays the kept corpora through the same functions, so a crash input
//! found once stays a regression test of plain `cargo test`. Each function panics when a property breaks.

use std::collections::BTreeMap;
use std::path::Path;

use super::{parse_bytes, parse_paired_files, Format, ImportOptions, MAX_LINE_BYTES};

/// Plain text: an error, or one segment per non-blank line, none over the per-segment limit.
pub fn text(data: &[u8]) {
    if let Ok(doc) = parse_bytes(Path::new("fuzz.txt"), data.to_vec(), Format::Text, &ImportOptions::default()) {
        assert!(!doc.segments.is_empty());
        for s in &doc.segments {
            assert!(!s.text.trim().is_empty() && s.text.len() <= MAX_LINE_BYTES);
            assert!(!s.text.contains('\n'));
        }
    }
}

/// JSON Lines: an error or a document with segments.
pub fn jsonl(data: &[u8]) {
    if let Ok(doc) = parse_bytes(Path::new("fuzz.jsonl"), data.to_vec(), Format::Jsonl, &ImportOptions::default()) {
        assert!(!doc.segments.is_empty());
    }
}

/// TSV / CSV: the first byte picks the delimiter and the text-column option, the rest is the file. No blank
/// segment and no reference without both a name and a text.
pub fn table(data: &[u8]) {
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
}

/// A paired folder (CoCoA-MT/IWSLT or XFORMAL/GYAFC layout) encoded as `<layout byte><folder name>` then, per file,
/// `\n@@ <name>\n<contents>`: every document and every ignored file must be one of the given files. Returns
/// whether the folder parsed, so a replay can tell that its corpus holds valid folders too.
pub fn paired(data: &[u8]) -> bool {
    let parts = split_on(data, b"\n@@ ");
    let layout = match parts[0].first().map(|b| b % 3) {
        Some(1) => Some(Format::Cocoa),
        Some(2) => Some(Format::Xformal),
        _ => None,
    };
    let dir_name = String::from_utf8_lossy(parts[0].get(1..).unwrap_or_default()).replace('/', "_");
    let mut files = BTreeMap::new();
    for p in &parts[1..] {
        let (name, body) = match p.iter().position(|&b| b == b'\n') {
            Some(i) => (&p[..i], &p[i + 1..]),
            None => (*p, &[][..]),
        };
        let name = String::from_utf8_lossy(name).replace('/', "_");
        if !name.is_empty() && name != "." && name != ".." {
            files.insert(name, body.to_vec());
        }
    }
    let dir = Path::new("/fuzz").join(if dir_name.is_empty() { "d" } else { &dir_name });
    let Ok(parsed) = parse_paired_files(&dir, &files, layout, &ImportOptions::default()) else { return false };
    assert!(!parsed.documents.is_empty());
    let file_name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    for d in &parsed.documents {
        let origin = d.origin.as_deref().expect("paired documents name their source file");
        let name = file_name(Path::new(origin));
        assert!(files.contains_key(&name), "{name} is not among the files");
        assert!(!d.segments.is_empty());
    }
    for p in &parsed.ignored {
        assert!(files.contains_key(&file_name(p)));
    }
    true
}

fn split_on<'a>(data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let (mut out, mut start, mut i) = (Vec::new(), 0, 0);
    while i + sep.len() <= data.len() {
        if &data[i..i + sep.len()] == sep {
            out.push(&data[start..i]);
            i += sep.len();
            start = i;
        } else {
            i += 1;
        }
    }
    out.push(&data[start..]);
    out
}
