//! `registro bench translate` (the control-step ablation) is what the README's held-out numbers come from, so it is
//! tested here on a CoCoA-MT-shaped folder written by the test and a model that always answers the formal German
//! reference: the scorer's labels, M-Acc, the flags and the outputs a reader checks must be what that answer earns.
use std::sync::atomic::AtomicBool;

use registro_core::bench::ablation::{self, AblationOptions, SystemSpec};
use registro_core::translate::{self as tr, Controls, Lang, SystemKind};
use registro_metrics::macc::Label;

mod common;

const SOURCES: [&str; 2] = ["Can you send me the file?", "Do you have time tomorrow?"];
const FORMAL: [&str; 2] = ["Können Sie mir die Datei schicken?", "Haben Sie morgen Zeit?"];
const FORMAL_ANN: [&str; 2] = ["[F]Können Sie[/F] mir die Datei schicken?", "[F]Haben Sie[/F] morgen Zeit?"];
const INFORMAL: [&str; 2] = ["Kannst du mir die Datei schicken?", "Hast du morgen Zeit?"];
const INFORMAL_ANN: [&str; 2] = ["[F]Kannst du[/F] mir die Datei schicken?", "[F]Hast du[/F] morgen Zeit?"];

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("formality-control.train.telephony.en-de");
    let write = |suffix: &str, lines: &[&str]| std::fs::write(format!("{}{suffix}", base.display()), lines.join("\n") + "\n").unwrap();
    write("", &SOURCES);
    write(".formal", &FORMAL);
    write(".formal.annotated", &FORMAL_ANN);
    write(".informal", &INFORMAL);
    write(".informal.annotated", &INFORMAL_ANN);
    dir
}

#[test]
fn the_ablation_scores_and_flags_what_the_model_answered() {
    let dir = folder();
    // Whatever it is asked, the formal reference of the source in the request.
    let mut model = common::scripted::ScriptedModel::new("scripted", |_, turn, n| {
        let k = SOURCES.iter().position(|s| turn.contains(s)).expect("the turn carries its source");
        (0..n).map(|_| tr::Generated { text: FORMAL[k].to_string(), logprob: -1.0, tokens: 8 }).collect()
    });
    let generic = SystemSpec { name: "generic".into(), system: SystemKind::Controlled, controls: Controls::default() };
    let options = AblationOptions {
        dir: dir.path().to_path_buf(),
        lang: Lang::De,
        held_out: false,
        contrastive_only: false,
        limit: None,
        systems: vec![generic],
        n_best: 1,
        max_tokens: 64,
        shots: 0,
        respectful: false,
        sequential: false,
        shots_per_sentence: false,
        sentence_examples: 0,
        llama_cpp: None,
        load_secs: 0.0,
        meaning_check: false,
        meaning_retrieval: false,
        fixed_document_examples: false,
        back_translation: true,
    };
    let report = ablation::run(&mut model, None, &options, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(report.sources, 2);
    assert_eq!(report.source_texts, SOURCES);
    let s = &report.systems[0];
    assert_eq!(s.name, "generic");
    assert_eq!(s.outputs, FORMAL.iter().map(|f| (f.to_string(), f.to_string())).collect::<Vec<_>>());
    // Formal asked, formal answered: M-Acc 1, nothing flagged, the references themselves (BLEU 100).
    assert_eq!((s.formal.macc, s.formal.counts.formal, s.formal.flagged), (1.0, 2, 0));
    assert!((s.formal.bleu - 100.0).abs() < 1e-9, "{}", s.formal.bleu);
    // Informal asked, formal answered: the scorer says FORMAL for both, M-Acc 0 — and Registro flagged both, so a
    // user is never handed them silently. The details say so per output.
    assert_eq!((s.informal.macc, s.informal.counts.formal), (0.0, 2));
    assert_eq!(s.informal.flagged, 2);
    for (f, i) in &s.details {
        assert_eq!((f.label, f.flag.as_deref()), (Label::Formal, None));
        assert_eq!(i.label, Label::Formal);
        assert!(i.flag.as_deref().is_some_and(|why| why.contains("FORMAL")), "{:?}", i.flag);
    }
    // What the CLI prints: one row per system with both registers' M-Acc.
    let table = ablation::table(&report);
    assert!(table.contains("generic") && table.contains("1.00") && table.contains("0.00"), "{table}");
}
