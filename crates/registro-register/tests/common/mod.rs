//! Checks the register tests share. Each takes a table of cases and names the failing one.
#![allow(dead_code)] // each test file uses its own share of these

use registro_register::repair::convert;
use registro_register::{analyze, data, Label, Lang, Marker, Register, Verdict};

pub fn label(lang: Lang, s: &str) -> Label {
    analyze(lang, s).label
}

/// Asserts that the analyzer labels each sentence as its case says.
pub fn assert_labels(lang: Lang, cases: &[(&str, Label)]) {
    for &(s, want) in cases {
        assert_eq!(label(lang, s), want, "{lang:?} {s:?}");
    }
}

/// Asserts that repair turns each sentence, asked for the register, into the text its case gives.
pub fn assert_converts(lang: Lang, cases: &[(&str, Register, &str)]) {
    for &(s, register, want) in cases {
        assert_eq!(convert(lang, s, register).text, want, "{lang:?} {s:?} to {register:?}");
    }
}

/// Asserts that repair leaves `s` as it is, asked for either register.
pub fn assert_left_alone(lang: Lang, s: &str) {
    for r in [Register::Formal, Register::Informal] {
        let out = convert(lang, s, r);
        assert!(!out.changed(), "{lang:?} {s:?} to {r:?} was changed to {:?}", out.text);
    }
}

/// Asserts that the analyzer reads `s`, repaired into `register` (formal or informal), as that register.
pub fn assert_repaired_reads_as_asked(lang: Lang, s: &str, register: Register) {
    let want = if register == Register::Formal { Label::Formal } else { Label::Informal };
    let out = convert(lang, s, register).text;
    assert_eq!(label(lang, &out), want, "{lang:?} {s:?} → {out:?}");
}

/// Asserts that `s` is wrong when `register` is asked for, and that its first marker is the word `first`.
pub fn assert_wrong_for(lang: Lang, s: &str, register: Register, first: &str) {
    let a = analyze(lang, s);
    assert_eq!(a.verdict(register), Verdict::Wrong, "{lang:?} {s:?}: markers {:?}", a.markers);
    assert_eq!(a.markers[0].text, first, "{lang:?} {s:?}");
}

/// Asserts that the byte and the char span of each marker slice `s` to the marker's text (the UI uses the latter).
pub fn assert_spans_slice(s: &str, markers: &[Marker]) {
    let chars: Vec<char> = s.chars().collect();
    for m in markers {
        assert_eq!(&s[m.start..m.end], m.text, "byte span of {m:?}");
        assert_eq!(chars[m.char_start..m.char_end].iter().collect::<String>(), m.text, "char span of {m:?}");
    }
}

/// Asserts the label and that each of `expected` is reported as a marker whose spans slice `s` to that text.
pub fn assert_marked(lang: Lang, s: &str, want: Label, expected: &[&str]) {
    let a = analyze(lang, s);
    assert_eq!(a.label, want, "{s}: markers {:?}", a.markers);
    assert_spans_slice(s, &a.markers);
    for e in expected {
        assert!(a.markers.iter().any(|m| m.text == *e), "{s}: no marker {e:?} in {:?}", a.markers);
    }
}

/// The CoCoA-MT training pairs of `lang`; `None`, saying the test skips the language, where the data is not there.
pub fn training_pairs(lang: Lang) -> Option<Vec<data::Pair>> {
    let Some(dir) = data::cocoa_train_dir(lang) else {
        println!("skipped: no CoCoA-MT training data for {} (set REGISTRO_SHARED_DATA)", lang.code());
        return None;
    };
    Some(data::load_dir(&dir, lang).unwrap())
}

/// The share of the held-out references of every shipped pool (good translations, both registers) that `flag`
/// flags, per language, printed with up to three examples; returns the worst rate and its language. The rules
/// that judge outputs are held to it (`english_left.rs`, `negation.rs`).
pub fn worst_held_out_flag_rate(what: &str, flag: impl Fn(Lang, &str, &str) -> Option<String>) -> (f64, Lang) {
    let mut worst = (0.0f64, Lang::De);
    for lang in Lang::ALL {
        let Ok(dir) = data::examples_dir(lang) else { continue };
        let (_pool, held_out) = data::split(data::load_dir(&dir, lang).expect("the shipped pool loads"));
        let (mut n, mut flagged, mut examples) = (0usize, 0usize, Vec::new());
        for p in &held_out {
            for reference in [&p.formal, &p.informal] {
                n += 1;
                if let Some(d) = flag(lang, &p.source, reference) {
                    flagged += 1;
                    if examples.len() < 3 {
                        examples.push(format!("{:?} → {reference:?} ({d})", p.source));
                    }
                }
            }
        }
        let rate = flagged as f64 / n.max(1) as f64;
        println!("{}: {flagged} of {n} held-out references flagged as {what} ({:.1}%) {}", lang.code(), rate * 100.0, examples.join(" | "));
        if rate > worst.0 {
            worst = (rate, lang);
        }
    }
    worst
}
