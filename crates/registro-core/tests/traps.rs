//! The trap set (issue 43, `tests/data/traps.tsv`): for every target language, sources with the bad outputs a small
//! model typically gives — the other register, English left in, the source returned, a number or weekday changed,
//! cut off, a negation lost, a Japanese honorific for the wrong person — written down beside good ones. Every bad
//! output must be flagged by the checks a segment gets after translation, repair and edit
//! (`translate::check_output`), with a reason in words, and no good one may be. A meaning reversed without losing a
//! negation word is not in the set: no rule sees it; the model reading the translation back does
//! (`tests/back_translation.rs`, `tests/data/reversals.tsv`).
use registro_core::translate::{check_output, Lang, Register};

struct Trap {
    line: usize,
    lang: Lang,
    register: Register,
    flag: bool,
    what: String,
    source: String,
    output: String,
}

fn traps() -> Vec<Trap> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traps.tsv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "traps.tsv line {}: {l:?}", i + 1);
            Trap {
                line: i + 1,
                lang: f[0].parse().unwrap(),
                register: f[1].parse().unwrap(),
                flag: match f[2] {
                    "flag" => true,
                    "ok" => false,
                    x => panic!("traps.tsv line {}: expect {x:?}", i + 1),
                },
                what: f[3].into(),
                source: f[4].into(),
                output: f[5].into(),
            }
        })
        .collect()
}

#[test]
fn every_bad_output_is_flagged_and_no_good_one() {
    let traps = traps();
    let mut wrong = Vec::new();
    for t in &traps {
        let c = check_output(t.lang, t.register, Some(&t.source), &t.output);
        println!("{:>3} {} {:<8} {:<13} {:<5} {}  ⚑ {}", t.line, t.lang.code(), t.register.as_str(), t.what, c.flagged, t.output, c.flag_reason.as_deref().unwrap_or("-"));
        if c.flagged != t.flag {
            wrong.push(format!("line {} ({}, {}): {:?} flagged={} ({:?})", t.line, t.lang.code(), t.what, t.output, c.flagged, c.flag_reason));
        }
        if c.flagged {
            let reason = c.flag_reason.as_deref().unwrap_or_default();
            assert!(reason.len() > 10, "line {}: a flag says why in words", t.line);
            // Quoted words as the user reads them, not Rust's escapes of Devanagari vowel signs ("श\u{941}क…").
            assert!(!reason.contains("\\u{"), "line {}: {reason}", t.line);
        }
    }
    let langs: std::collections::BTreeSet<&str> = traps.iter().map(|t| t.lang.code()).collect();
    assert_eq!(langs.len(), 11, "every target language has traps: {langs:?}");
    assert!(wrong.is_empty(), "{} of {} traps misjudged:\n{}", wrong.len(), traps.len(), wrong.join("\n"));
}
