//! The one rule that turns a model's measured numbers into what a user reads before picking it for a language
//! (core `models::judge` / `quality_for`): poor with the reason and what to do instead, usable, good; a language
//! nobody measured is "not measured", never good; the worse register decides. The window's model list and the CLI
//! get the same verdicts (`ModelSummary::quality_of`).

use registro_core::models::{judge, quality_for, quality_line, Manifest, ModelSummary, QualityLevel};
use registro_core::translate::Lang;

fn cell(lang: &str, register: &str, bleu: f64, macc: f64, flagged: u32, segments: u32) -> String {
    format!(
        "[[quality]]\nlang = \"{lang}\"\nregister = \"{register}\"\nbleu = {bleu:.1}\nmacc = {macc:.2}\nflagged = {flagged}\n\
         segments = {segments}\nsplit = \"development\"\nmeasured = \"2026-11-28 registro bench translate --lang {lang}\"\n"
    )
}

fn manifest(role: &str, cells: &[String]) -> Manifest {
    let text = format!(
        "id = \"demo\"\nfamily = \"qwen2.5\"\narchitecture = \"qwen2\"\nrole = \"{role}\"\n[[files]]\nname = \"demo.gguf\"\nbytes = 10\nsha256 = \"\"\n{}",
        cells.concat()
    );
    Manifest::parse(&text, "demo.toml").unwrap()
}

#[test]
fn hindi_on_a_model_that_cannot_do_it_is_poor_with_the_numbers_and_what_to_do() {
    // The measurement of the 1.5B model: BLEU 4.9 on the held-out split, 19 of 30 outputs flagged.
    let m = manifest("llm", &[cell("hi", "formal", 4.9, 0.9, 19, 30)]);
    let q = quality_for(&m, Lang::Hi);
    assert_eq!(q.level, QualityLevel::Poor);
    assert_eq!(
        q.text,
        "Hindi with this model: poor (BLEU 4.9 on the held-out development split, formal; register right in 90% of the \
         outputs that show one; 19 of 30 outputs flagged) — use a larger model or a backend"
    );
    assert_eq!((q.bleu, q.flagged, q.segments), (Some(4.9), 19, 30));
    assert_eq!(q.measured, ["2026-11-28 registro bench translate --lang hi"]);
}

#[test]
fn each_number_alone_can_make_a_language_poor_and_good_needs_all_three() {
    let level = |bleu, macc, flagged| judge(&[&manifest("llm", &[cell("de", "formal", bleu, macc, flagged, 12)]).quality[0]]);
    assert_eq!(level(31.0, 1.0, 0), QualityLevel::Good);
    assert_eq!(level(31.0, 1.0, 1), QualityLevel::Good, "1 of 12 flagged is within a tenth");
    assert_eq!(level(9.9, 1.0, 0), QualityLevel::Poor, "BLEU under 10: the sentences have to be redone");
    assert_eq!(level(31.0, 0.7, 0), QualityLevel::Poor, "the register wrong in 3 of 10 outputs");
    assert_eq!(level(31.0, 1.0, 5), QualityLevel::Poor, "5 of 12 flagged is more than a third");
    assert_eq!(level(24.9, 1.0, 0), QualityLevel::Usable);
    assert_eq!(level(31.0, 0.9, 0), QualityLevel::Usable);
    assert_eq!(level(31.0, 1.0, 2), QualityLevel::Usable);
}

#[test]
fn the_worse_register_decides_and_a_language_not_measured_is_never_good() {
    let m = manifest(
        "llm",
        &[
            cell("de", "formal", 31.0, 1.0, 0, 12),
            cell("de", "informal", 18.5, 0.97, 1, 12),
            cell("fr", "formal", 33.0, 1.0, 0, 12),
            cell("fr", "informal", 29.0, 0.96, 1, 12),
        ],
    );
    let de = quality_for(&m, Lang::De);
    assert_eq!(de.level, QualityLevel::Usable, "the informal side is usable only");
    assert_eq!(
        de.text,
        "German with this model: usable (BLEU 18.5–31.0 on the held-out development split, formal and informal; register \
         right in 97% of the outputs that show one; 1 of 24 outputs flagged) — review every sentence"
    );
    assert_eq!(quality_for(&m, Lang::Fr).level, QualityLevel::Good);
    assert!(!quality_for(&m, Lang::Fr).text.contains(" — "), "good needs no advice");
    let vi = quality_for(&m, Lang::Vi);
    assert_eq!((vi.level, vi.bleu, vi.segments), (QualityLevel::NotMeasured, None, 0));
    assert!(vi.text.starts_with("Vietnamese with this model: not measured"), "{}", vi.text);
    // Every target language has a verdict, grouped in one line for lists.
    let all = ModelSummary::quality_of(&m);
    assert_eq!(all.len(), Lang::ALL.len());
    assert_eq!(quality_line(&all), "good: fr · usable: de · not measured: es hi it ja ko nl pt ru vi");
    // A model that does not translate has no verdicts at all.
    assert!(ModelSummary::quality_of(&manifest("embeddings", &[])).is_empty());
}

#[test]
fn the_shipped_language_models_get_a_verdict_for_every_target_language() {
    // What Settings → Models, the Translate picker, `registro models list` and `registro doctor` show.
    for id in ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"] {
        let m = registro_core::models::manager(&[]).manifest(id).cloned().unwrap_or_else(|| panic!("{id} is shipped"));
        let all = ModelSummary::quality_of(&m);
        assert_eq!(all.len(), Lang::ALL.len());
        // Russian has no development split (its example pairs are built in), so nothing measures it.
        assert_eq!(all.iter().find(|q| q.lang == "ru").unwrap().level, QualityLevel::NotMeasured, "{id}");
        let measured: Vec<_> = all.iter().filter(|q| q.level != QualityLevel::NotMeasured).collect();
        assert!(!measured.is_empty(), "{id}: nothing measured");
        for q in measured {
            assert_eq!(q.registers, ["formal", "informal"], "{id} {}", q.lang);
            assert!(q.text.contains(" on the held-out development split, formal and informal"), "{id}: {}", q.text);
        }
    }
}

#[test]
fn no_output_showing_a_register_is_not_counted_as_the_wrong_register() {
    // CoCoA-MT's M-Acc is undefined when no output marks a register either way (the table then has no macc).
    let text = cell("ko", "informal", 27.0, 0.0, 0, 12).replace("macc = 0.00\n", "");
    let m = manifest("llm", &[text]);
    assert_eq!(m.quality[0].macc, None);
    let q = quality_for(&m, Lang::Ko);
    assert_eq!(q.level, QualityLevel::Good);
    assert_eq!(
        q.text,
        "Korean with this model: good (BLEU 27.0 on the held-out development split, informal; no output showed a register \
         either way; 0 of 12 outputs flagged)"
    );
}
