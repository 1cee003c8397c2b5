#![no_main]
// Markdown and HTML imports read untrusted text: any bytes must give segments or an error, never a panic; a no-op
// export gives the same bytes and a translated one is written and reads back with as many segments or fewer.
use libfuzzer_sys::fuzz_target;
use registro_formats::{import, Format};

fuzz_target!(|data: &[u8]| {
    for fmt in [Format::Markdown, Format::Html] {
        if let Ok(doc) = import(data, fmt) {
            assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), data);
            let t: Vec<_> = doc
                .segments
                .iter()
                .map(|s| Some(s.source.to_uppercase()))
                .collect();
            let out = doc.export(&t).unwrap();
            import(&out, fmt).expect("a translated export reads back");
        }
    }
});
