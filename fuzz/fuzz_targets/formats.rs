#![no_main]
// Document imports read untrusted files: any bytes must give segments or an error, never a panic, and an export
// with no translation must give the same bytes back.
use libfuzzer_sys::fuzz_target;
use registro_formats::{import, split_sentences, Format};

fuzz_target!(|data: &[u8]| {
    for fmt in [Format::Xliff, Format::Srt, Format::Vtt, Format::Po] {
        if let Ok(doc) = import(data, fmt) {
            let t: Vec<_> = doc
                .segments
                .iter()
                .map(|s| Some(s.source.to_uppercase()))
                .collect();
            let _ = doc.export(&t);
            assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), data);
        }
    }
    if let Ok(s) = std::str::from_utf8(data) {
        assert_eq!(split_sentences(s, "en").concat(), s);
        assert_eq!(split_sentences(s, "ja").concat(), s);
    }
});
