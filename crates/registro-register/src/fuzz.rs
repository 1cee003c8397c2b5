//! The properties the analyzer and repair keep on any text, in one place: the `register_repair` fuzz target calls
//! [`analyze_and_repair`] on each input and `tests/fuzz_corpus.rs` replays the kept corpus (`fuzz/corpus/
//! register_repair`) through it, so an input that once broke a rule stays a test of plain `cargo test`. Model output
//! is untrusted: it reaches both on every translated segment. Panics when a property breaks.

use crate::repair::convert;
use crate::{analyze, Lang, Register};

/// For every language and register: marker spans and repair edits slice the text they describe, and a repair
/// grows the text by a bounded amount (no rule may loop or blow a sentence up). The meaning check reads the same
/// untrusted output against a source: it must return, whatever the two halves of the input hold.
pub fn analyze_and_repair(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for lang in Lang::ALL {
        for m in &analyze(lang, &text).markers {
            assert_eq!(&text[m.start..m.end], m.text, "{lang:?} marker");
        }
        for r in [Register::Formal, Register::Informal, Register::Respectful] {
            let out = convert(lang, &text, r);
            for e in &out.edits {
                assert_eq!(&text[e.start..e.end], e.from, "{lang:?} {r:?} edit");
            }
            assert!(out.text.len() <= text.len() * 4 + 64, "{lang:?} {r:?}: {} → {} bytes", text.len(), out.text.len());
        }
        let (source, candidate) = text.split_at(text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i));
        for f in crate::meaning::check(lang, source, candidate) {
            assert!(!f.detail.is_empty(), "{lang:?}: a {:?} flag with no words", f.issue);
        }
    }
}
