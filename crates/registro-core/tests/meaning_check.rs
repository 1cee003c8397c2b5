//! The cross-lingual meaning check in the reranker, on the real EmbeddingGemma-300M (the README's test command
//! fetches it; skipped with a message where it is missing): a fluent, formal candidate that says something else
//! loses to a faithful one and, where it is all there is, is flagged rather than passed.
use std::sync::atomic::AtomicBool;

use registro_core::translate::{self as tr, qe, Generator, Lang, Options, Register};

mod common;

/// Fixed Italian candidates for every request, the model's favourite first.
fn scripted(candidates: Vec<(&'static str, f32)>) -> impl Generator {
    common::scripted::ScriptedModel::new("scripted", move |_, _, n| {
        candidates.iter().take(n).map(|(t, lp)| tr::Generated { text: t.to_string(), logprob: *lp, tokens: 10 }).collect()
    })
}

fn check() -> Option<std::sync::Arc<qe::MeaningCheck>> {
    let c = qe::MeaningCheck::installed().expect("an installed model must load");
    if c.is_none() {
        eprintln!("skipped: {} is not installed (registro models fetch {})", qe::MODEL, qe::MODEL);
    }
    c
}

const SOURCE: &str = "Could you send me the report, please?";
/// Formal, fluent, and about the weather: no number, date or name for the rule checks to miss.
const ELSEWHERE: &str = "Potrebbe dirmi che tempo farà domani?";
const FAITHFUL: &str = "Potrebbe inviarmi la relazione, per favore?";

fn translate(gen: &mut impl Generator, check: Option<std::sync::Arc<qe::MeaningCheck>>, n: usize) -> tr::SegmentOut {
    let opts = Options { n_best: n, early_exit: false, ..Options::new(Lang::It, Register::Formal) };
    let mut t = tr::Translator::new(gen, None).with_meaning_check(check);
    t.translate(&[SOURCE.to_string()], &opts, &AtomicBool::new(false), &mut |_| Ok(())).unwrap().remove(0)
}

#[test]
fn a_fluent_candidate_that_says_something_else_loses_to_a_faithful_one() {
    let Some(check) = check() else { return };
    let mut gen = scripted(vec![(ELSEWHERE, -0.5), (FAITHFUL, -1.5)]);
    // Without the check the model's favourite wins: both are formal and pass every rule.
    assert_eq!(translate(&mut gen, None, 2).text, ELSEWHERE);
    let seg = translate(&mut gen, Some(check), 2);
    let sims: Vec<f64> = seg.candidates.iter().map(|c| c.meaning.expect("every candidate is checked")).collect();
    assert!(sims[1] - sims[0] > qe::DRIFT_MARGIN, "faithful {:.3} vs elsewhere {:.3}", sims[1], sims[0]);
    assert_eq!(seg.text, FAITHFUL, "{sims:?}");
    assert!(!seg.flagged, "{:?}", seg.flag_reason);
}

#[test]
fn a_translation_that_drifts_from_its_source_is_flagged_with_the_similarity() {
    let Some(check) = check() else { return };
    let mut gen = scripted(vec![(ELSEWHERE, -0.5)]);
    let seg = translate(&mut gen, Some(check), 1);
    let reason = seg.flag_reason.clone().unwrap_or_default();
    assert!(seg.flagged && reason.contains("meaning drift"), "{reason:?} (similarity {:?})", seg.candidates[0].meaning);
    // The same text with the check off is not flagged: nothing else is wrong with it.
    assert!(!translate(&mut gen, None, 1).flagged);
}
