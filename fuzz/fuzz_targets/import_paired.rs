//! Paired folders (CoCoA-MT/IWSLT and XFORMAL/GYAFC layouts): arbitrary file names and contents, parsed as a folder.
//! Every document must come from files that exist. The input is `<layout byte><folder name>` then, per file,
//! `\n@@ <name>\n<contents>` (crates/registro-store/tests/fuzz_corpus.rs replays the corpus with the same decoding).
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use registro_store::import::{parse_paired_files, Format, ImportOptions};

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

fuzz_target!(|data: &[u8]| {
    let parts = split_on(data, b"\n@@ ");
    let head = parts[0];
    let layout = match head.first().map(|b| b % 3) {
        Some(1) => Some(Format::Cocoa),
        Some(2) => Some(Format::Xformal),
        _ => None,
    };
    let dir_name = String::from_utf8_lossy(head.get(1..).unwrap_or_default()).replace('/', "_");
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
    let dir = Path::new("/fuzz").join(if dir_name.is_empty() { "d" } else { &dir_name });
    if let Ok(parsed) = parse_paired_files(&dir, &files, layout, &ImportOptions::default()) {
        assert!(!parsed.documents.is_empty());
        for d in &parsed.documents {
            let origin = d.origin.as_deref().expect("paired documents name their source file");
            let name = Path::new(origin).file_name().unwrap().to_string_lossy().into_owned();
            assert!(files.contains_key(&name), "{name} is not among the files");
            assert!(!d.segments.is_empty());
        }
        for p in &parsed.ignored {
            assert!(files.contains_key(&p.file_name().unwrap().to_string_lossy().into_owned()));
        }
    }
});
