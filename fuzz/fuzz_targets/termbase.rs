#![no_main]
// A termbase is an untrusted file: any bytes, read as TSV, CSV or TBX, must give entries or an error naming a
// line — never a panic or a hang — and the entries must be usable for checking and for decoding constraints.
use libfuzzer_sys::fuzz_target;
use registro_qa::termbase::{parse, TermbaseFormat};
use registro_register::Register;

fuzz_target!(|data: &[u8]| {
    for f in [
        TermbaseFormat::Tsv,
        TermbaseFormat::Csv,
        TermbaseFormat::Tbx,
    ] {
        match parse(data, f, "fuzz", "en", "de") {
            Ok(tb) => {
                assert!(!tb.entries.is_empty());
                let text = String::from_utf8_lossy(data);
                let r = tb.check_segment(0, &text, &text, Some(Register::Formal));
                for i in &r.issues {
                    for s in &i.spans {
                        assert_eq!(&text[s.start..s.end], s.text);
                    }
                }
                let _ = tb.generation_terms(&text, Some(Register::Informal));
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz")),
        }
    }
});
