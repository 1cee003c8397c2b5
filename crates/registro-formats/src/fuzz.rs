//! The properties every document reader keeps on arbitrary bytes, in one place: the fuzz targets in `fuzz/` call
//! these on each input, and the round-trip tests replay the kept corpora (`fuzz/corpus/<target>`) through the same
//! functions, so an input that once found a bug stays a regression test of plain `cargo test`. Each function
//! panics when a property breaks.

use std::io::Write;

use crate::{import, split_sentences, Format};

/// Each segment's text upper-cased, with `suffix` appended: a translation that changes every segment.
fn translated(doc: &crate::Document, suffix: &str) -> Vec<Option<String>> {
    doc.segments.iter().map(|s| Some(format!("{}{suffix}", s.source.to_uppercase()))).collect()
}

/// A no-op export gives the same bytes back.
fn exports_unchanged(doc: &crate::Document, data: &[u8]) {
    assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), data);
}

/// XLIFF, SRT, WebVTT and PO: segments or an error, never a panic; a no-op export is byte-identical; sentence
/// splitting loses no byte and makes no empty sentence.
pub fn structured(data: &[u8]) {
    for format in [Format::Xliff, Format::Srt, Format::Vtt, Format::Po] {
        if let Ok(doc) = import(data, format) {
            let _ = doc.export(&translated(&doc, ""));
            exports_unchanged(&doc, data);
        }
    }
    if let Ok(s) = std::str::from_utf8(data) {
        for lang in ["en", "ja", "de", "hi"] {
            let pieces = split_sentences(s, lang);
            assert_eq!(pieces.concat(), s);
            assert!(pieces.iter().all(|p| !p.is_empty()), "an empty sentence in {pieces:?}");
        }
    }
}

/// Markdown and HTML: as [`structured`], and a translated export is written and reads back.
pub fn markup(data: &[u8]) {
    for format in [Format::Markdown, Format::Html] {
        if let Ok(doc) = import(data, format) {
            exports_unchanged(&doc, data);
            let out = doc.export(&translated(&doc, "")).expect("a translated export is written");
            import(&out, format).expect("a translated export reads back");
        }
    }
}

/// DOCX: an untrusted zip of XML parts. Inputs that are not a zip are taken as the body of `word/document.xml`
/// inside one, so the XML reader gets most of the mutations. A translated export opens again and a no-op export
/// is the same bytes.
pub fn docx(data: &[u8]) {
    let bytes = if data.starts_with(b"PK") {
        data.to_vec()
    } else {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("word/document.xml", zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap().into_inner()
    };
    if let Ok(doc) = import(&bytes, Format::Docx) {
        // A placeholder, an `&` and a non-ASCII letter exercise the XML writer's escaping.
        let out = doc.export(&translated(&doc, " <9/> & é")).expect("a translated export is written");
        import(&out, Format::Docx).expect("a translated export opens again");
        exports_unchanged(&doc, &bytes);
    }
}
