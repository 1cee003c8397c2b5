#![no_main]
// A .docx is an untrusted zip of XML parts: any bytes must give segments or an error, never a panic; a no-op export
// gives the same bytes, and a translated export opens again. Inputs that are not a zip are fuzzed as the body of
// word/document.xml inside one, so the XML reader gets most of the mutations.
use libfuzzer_sys::fuzz_target;
use registro_formats::{import, Format};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let bytes = if data.starts_with(b"PK") {
        data.to_vec()
    } else {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap().into_inner()
    };
    if let Ok(doc) = import(&bytes, Format::Docx) {
        let t: Vec<_> = doc
            .segments
            .iter()
            .map(|s| Some(format!("{} <9/> & é", s.source.to_uppercase())))
            .collect();
        let out = doc.export(&t).expect("a translated export is written");
        import(&out, Format::Docx).expect("a translated export opens again");
        assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), bytes);
    }
});
