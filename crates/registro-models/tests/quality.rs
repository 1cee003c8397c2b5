//! A manifest's measured quality (`[[quality]]` tables) and card languages: read as written, kept through an
//! import's rewrite, and a typo that would become a wrong verdict ("bleu = 310", a register that does not exist,
//! more flagged outputs than translated ones) refused with the manifest and the table named. The shipped language
//! models carry numbers measured on the development split, with the command that measured them.

use registro_models::{builtin, Manifest, Role};

const HEAD: &str = r#"id = "demo-llm"
family = "qwen2.5"
architecture = "qwen2"
role = "llm"
languages = ["de", "hi"]
[[files]]
name = "demo.gguf"
bytes = 10
sha256 = ""
"#;

fn cell(lang: &str, register: &str, bleu: f64, macc: f64, flagged: u32, segments: u32) -> String {
    format!(
        "[[quality]]\nlang = \"{lang}\"\nregister = \"{register}\"\nbleu = {bleu:.1}\nmacc = {macc:.2}\nflagged = {flagged}\n\
         segments = {segments}\nsplit = \"development\"\nseconds_per_segment = 3.5\n\
         measured = \"2026-11-28 registro bench translate --lang {lang} --limit 12\"\n"
    )
}

#[test]
fn quality_tables_and_languages_are_read_and_survive_a_rewrite() {
    let text = format!("{HEAD}{}{}", cell("hi", "formal", 4.9, 0.9, 19, 30), cell("de", "informal", 31.2, 1.0, 0, 12));
    let m = Manifest::parse(&text, "demo.toml").unwrap();
    assert_eq!(m.languages, ["de", "hi"]);
    assert_eq!(m.quality.len(), 2);
    let hi = m.quality_of("hi");
    assert_eq!((hi.len(), hi[0].register.as_str(), hi[0].bleu, hi[0].flagged, hi[0].segments), (1, "formal", 4.9, 19, 30));
    assert_eq!(hi[0].seconds_per_segment, Some(3.5));
    assert!(hi[0].measured.starts_with("2026-11-28 registro bench translate --lang hi"));
    assert!(m.quality_of("ja").is_empty(), "a language not measured has no table");
    // An imported model's manifest is written back with to_toml: the tables and languages come back the same.
    let again = Manifest::parse(&m.to_toml().unwrap(), "rewritten").unwrap();
    assert_eq!(again.quality, m.quality);
    assert_eq!(again.languages, m.languages);
    // A manifest without any (hub models nobody measured) is still valid.
    assert!(Manifest::parse(HEAD, "plain").unwrap().quality.is_empty());
}

#[test]
fn a_quality_table_that_cannot_be_true_is_refused_with_what_is_wrong() {
    let refused = |table: String, why: &str| {
        let e = Manifest::parse(&format!("{HEAD}{table}"), "models/demo.toml").expect_err(why);
        let msg = format!("{e:#}");
        assert!(msg.contains("models/demo.toml") && msg.contains(why), "{msg}");
    };
    refused(cell("hi", "casual", 4.9, 0.9, 1, 30), "must be \"formal\" or \"informal\"");
    refused(cell("hi", "formal", 310.0, 0.9, 1, 30), "bleu 310 is not between 0 and 100");
    refused(cell("hi", "formal", 31.0, 1.5, 1, 30), "macc 1.5 is not between 0 and 1");
    refused(cell("hi", "formal", 31.0, 0.9, 31, 30), "flagged 31 is more than the 30 segments");
    refused(cell("hi", "formal", 31.0, 0.9, 0, 0), "segments must be at least 1");
    refused(cell("Hindi", "formal", 31.0, 0.9, 0, 12), "is not a lowercase language code");
    refused(cell("hi", "formal", 31.0, 0.9, 0, 12).replace("2026-11-28 registro bench translate --lang hi --limit 12", " "), "must say where the numbers come from");
    let e = Manifest::parse(&HEAD.replace(r#"["de", "hi"]"#, r#"["German"]"#), "models/demo.toml").unwrap_err();
    assert!(format!("{e:#}").contains("languages: \"German\""), "{e:#}");
}

#[test]
fn the_shipped_local_models_carry_quality_measured_on_the_development_split() {
    let shipped = builtin();
    for id in ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"] {
        let m = shipped.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("{id} is shipped and parses"));
        assert_eq!(m.role, Role::Llm);
        assert!(!m.quality.is_empty(), "{id}: no measured quality");
        for q in &m.quality {
            // Measured on the held-out part of the training folders, never a test set, and reproducible.
            assert_eq!(q.split, "development", "{id} {} {}", q.lang, q.register);
            assert!(q.measured.get(..4).is_some_and(|y| y.starts_with("20")), "{id}: {:?} does not start with a date", q.measured);
            assert!(q.measured.contains("registro bench translate") && q.measured.contains(id), "{id}: {:?} names no command", q.measured);
        }
        // Both registers of every measured language: the verdict takes the worse.
        for q in &m.quality {
            assert_eq!(m.quality_of(&q.lang).len(), 2, "{id} {}: one register only", q.lang);
        }
    }
}
