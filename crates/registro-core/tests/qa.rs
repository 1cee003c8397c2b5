//! QA of stored translation runs in a real SQLite file: the report finds exactly the mixed register, the changed
//! number, the missing tag and the untranslated segment; `--fix` makes a German run consistent in place with the
//! old text recoverable; a language without repair rules gets its deviating segments flagged; terms are checked.
use std::path::Path;

use registro_core::qa::{self, CheckKind, Severity};
use registro_register::{analyze, Label, Lang};
use registro_store::{NewRun, Output, Store, Task};
use registro_testkit::StoredTranslation;

/// A translate run over a stored document, with the given (source, output) pairs.
fn stored_run(
    store: &mut Store,
    lang: &str,
    register: Option<&str>,
    pairs: &[(&str, &str)],
    params: serde_json::Value,
) -> i64 {
    let project = registro_core::projects::find_or_create_project(store, "client").unwrap().id;
    StoredTranslation { project, doc_name: "letter.xlf", target_lang: lang, register, pairs, params: Some(params) }
        .store(store)
}

/// An empty store in a temp folder (`r.db`), as a user's file would be.
fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("r.db")).unwrap();
    (dir, store)
}

/// A run stored from `pairs` with no parameters of note, then checked: `fix` as `registro qa --fix`.
fn checked_run(
    store: &mut Store,
    lang: &str,
    register: Option<&str>,
    pairs: &[(&str, &str)],
    fix: bool,
) -> (i64, qa::QaOutcome) {
    let run = stored_run(store, lang, register, pairs, serde_json::json!({}));
    (run, qa::qa_run(store, run, None, fix).unwrap())
}

const DE: &[(&str, &str)] = &[
    (
        "Can you send me the report?",
        "Können Sie mir den Bericht schicken?",
    ),
    (
        "Please check your invoice.",
        "Bitte prüfen Sie Ihre Rechnung.",
    ),
    ("Do you have time tomorrow?", "Hast du morgen Zeit?"),
    (
        "The meeting starts at 10:30.",
        "Das Treffen beginnt um 11:30.",
    ),
    (
        "Click <1>Save</1> to keep your changes.",
        "Klicken Sie auf Speichern</1>, um Ihre Änderungen zu behalten.",
    ),
    (
        "Thank you for your patience, we will contact you soon.",
        "Thank you for your patience, we will contact you soon.",
    ),
    ("Where do you want to go?", "Wohin möchten Sie gehen?"),
];

fn found(r: &qa::Report) -> Vec<(usize, CheckKind, Severity)> {
    r.issues
        .iter()
        .map(|i| (i.segment, i.kind, i.severity))
        .collect()
}

#[test]
fn the_report_finds_exactly_the_mixed_register_the_number_the_tag_and_the_untranslated_segment() {
    let (_dir, mut store) = temp_store();
    let (run, out) = checked_run(&mut store, "de", Some("formal"), DE, false);
    let r = &out.report;
    assert_eq!(
        found(r),
        [
            (2, CheckKind::Register, Severity::Error),
            (3, CheckKind::Number, Severity::Error),
            (4, CheckKind::Tags, Severity::Error),
            (5, CheckKind::Untranslated, Severity::Error),
        ],
        "{:#?}",
        r.issues
    );
    let c = &r.consistency;
    assert!(c.mixed);
    assert_eq!(c.dominant.as_deref(), Some("Sie"));
    assert_eq!(
        c.forms
            .iter()
            .map(|f| (f.form.as_str(), f.segments.clone()))
            .collect::<Vec<_>>(),
        [("Sie", vec![0, 1, 4, 6]), ("du", vec![2])]
    );
    assert_eq!(c.deviating, [2]);
    let reg = &r.issues[0];
    assert_eq!(
        reg.spans
            .iter()
            .map(|s| (s.text.as_str(), s.char_start))
            .collect::<Vec<_>>(),
        [("Hast", 0), ("du", 5)]
    );
    assert!(
        reg.message.starts_with("du in a formal document (Sie)"),
        "{}",
        reg.message
    );
    assert!(
        r.issues[1].message.contains("10 missing")
            && r.issues[1].message.contains("11 not in the source"),
        "{}",
        r.issues[1].message
    );
    assert!(
        r.issues[2].message.contains("<1> missing"),
        "{}",
        r.issues[2].message
    );
    assert!(out.blocking && qa::blocking(r));
    // Checking writes nothing.
    assert_eq!(
        store.output(run, 2).unwrap().unwrap().text,
        "Hast du morgen Zeit?"
    );
}

#[test]
fn fix_makes_a_german_run_formal_throughout_and_keeps_the_old_text() {
    let (dir, mut store) = temp_store();
    let pairs: Vec<(&str, &str)> = vec![
        (
            "Can you send me the report?",
            "Können Sie mir den Bericht schicken?",
        ),
        ("Do you have time tomorrow?", "Hast du morgen Zeit?"),
        ("Is this your car?", "Ist das dein Auto?"),
        (
            "Please check your invoice.",
            "Bitte prüfen Sie Ihre Rechnung.",
        ),
    ];
    let (run, out) = checked_run(&mut store, "de", Some("formal"), &pairs, true);
    assert_eq!((out.fixed, out.unrepaired), (2, 0), "{:#?}", out.fixes);
    assert!(!out.report.consistency.mixed && out.report.consistency.deviating.is_empty());
    assert!(!out.blocking, "{:#?}", out.report.issues);
    drop(store);
    // What a user reopening the file sees: every segment FORMAL, the old text recoverable.
    let store = Store::open(dir.path().join("r.db")).unwrap();
    for o in store.outputs(run).unwrap() {
        assert_eq!(
            analyze(Lang::De, &o.text).label,
            Label::Formal,
            "{}",
            o.text
        );
        assert!(!o.flagged, "{o:?}");
    }
    let fixed = store.output(run, 1).unwrap().unwrap();
    assert_eq!(fixed.text, "Haben Sie morgen Zeit?");
    assert_eq!(fixed.detected_register.as_deref(), Some("formal"));
    assert_eq!(
        qa::text_before_fixes(&fixed).as_deref(),
        Some("Hast du morgen Zeit?")
    );
    assert_eq!(
        qa::text_before_fixes(&store.output(run, 2).unwrap().unwrap()).as_deref(),
        Some("Ist das dein Auto?")
    );
    assert_eq!(
        qa::text_before_fixes(&store.output(run, 0).unwrap().unwrap()),
        None,
        "untouched segments carry no fix"
    );
}

#[test]
fn a_segment_no_rule_can_repair_is_flagged_not_changed() {
    let (_dir, mut store) = temp_store();
    // A bare "야!" ("Hey!") ends on the 반말 level, but there is no verb to re-conjugate.
    let pairs = [
        ("Could you send me the report?", "보고서를 보내 주시겠어요?"),
        ("Hey!", "야!"),
    ];
    let (run, out) = checked_run(&mut store, "ko", Some("formal"), &pairs, true);
    assert_eq!(
        (out.fixed, out.unrepaired),
        (0, 1),
        "{:#?}",
        out.report.consistency
    );
    let o = store.output(run, 1).unwrap().unwrap();
    assert_eq!(o.text, "야!");
    assert!(o.flagged);
    assert!(o
        .flag_reason
        .unwrap()
        .contains("no rule applies to these markers"));
    assert!(
        out.blocking,
        "the register error stays until the segment is retranslated or edited"
    );
}

/// Portuguese has rules now: the same kind of deviating segment is repaired in place, as German's is.
#[test]
fn a_portuguese_tu_segment_is_repaired_to_voce() {
    let (_dir, mut store) = temp_store();
    let pairs = [
        ("Can you send me the report?", "Você pode enviar-me o relatório?"),
        ("Can you see this?", "Tu consegues ver isto?"),
    ];
    let (run, out) = checked_run(&mut store, "pt", Some("formal"), &pairs, true);
    assert_eq!((out.fixed, out.unrepaired), (1, 0), "{:#?}", out.report.consistency);
    let o = store.output(run, 1).unwrap().unwrap();
    assert_eq!(o.text, "Você consegue ver isto?");
    assert!(!o.flagged, "{o:?}");
}

#[test]
fn a_sentence_overridden_to_another_register_does_not_deviate_and_no_request_follows_the_majority()
{
    let (_dir, mut store) = temp_store();
    let pairs = [
        (
            "Can you send me the report?",
            "Kannst du mir den Bericht schicken?",
        ),
        ("Do you have time tomorrow?", "Hast du morgen Zeit?"),
        ("Where do you want to go?", "Wohin möchten Sie gehen?"),
    ];
    let run = stored_run(
        &mut store,
        "de",
        Some("informal"),
        &pairs,
        serde_json::json!({ "register_overrides": { "2": "formal" } }),
    );
    let out = qa::qa_run(&mut store, run, None, false).unwrap();
    assert!(
        out.report.consistency.deviating.is_empty(),
        "{:#?}",
        out.report.consistency
    );
    assert!(
        out.report.consistency.mixed,
        "both forms are still reported"
    );
    let (_, out) = checked_run(&mut store, "de", None, &pairs, false);
    assert_eq!(
        out.report.consistency.target,
        Some(registro_register::Register::Informal)
    );
    assert_eq!(out.report.consistency.deviating, [2]);
}

#[test]
fn terms_of_a_termbase_are_checked_for_the_run_register() {
    let (dir, mut store) = temp_store();
    let tb = dir.path().join("glossary.tsv");
    std::fs::write(&tb, "source\ttarget\ttarget_formal\ttarget_informal\tforbidden\ninvoice\tRechnung\t\t\tFaktura\nyour account\t\tIhr Konto\tdein Konto\t\n").unwrap();
    let pairs = [
        (
            "Please check your invoice and the old invoice.",
            "Bitte prüfen Sie Ihre Rechnung und die alte Faktura.",
        ),
        ("Open your account.", "Öffnen Sie Ihr Konto."),
    ];
    let run = stored_run(
        &mut store,
        "de",
        Some("formal"),
        &pairs,
        serde_json::json!({}),
    );
    let out = qa::qa_run(&mut store, run, Some(&tb), false).unwrap();
    let t = out.report.terms.clone().unwrap();
    assert_eq!(
        (t.entries, t.source_occurrences, t.missing, t.forbidden),
        (2, 3, 1, 1),
        "{:#?}",
        out.report.issues
    );
    assert_eq!(
        found(&out.report),
        [
            (0, CheckKind::TermForbidden, Severity::Error),
            (0, CheckKind::TermMissing, Severity::Warning)
        ]
    );

    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "term\ttranslation\n").unwrap();
    let e = qa::qa_run(&mut store, run, Some(&bad), false)
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("{}:1: unknown column \"term\" in the header (expected source, target and optionally target_formal, target_informal, forbidden, note)", bad.display()));
    let e = qa::qa_run(&mut store, 999, None, false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("999"), "{e}");
    assert!(Path::new(&tb).exists());
}

#[test]
fn a_run_over_pasted_text_is_checked_against_the_sources_its_outputs_keep() {
    let (_dir, mut store) = temp_store();
    let project = registro_core::projects::find_or_create_project(&store, "pasted")
        .unwrap()
        .id;
    let mut run = NewRun::new(project, Task::Translate, "registro-prompt");
    run.target_lang = Some("de".into());
    run.register = Some("formal".into());
    run.total_segments = Some(2);
    let id = store.create_run(&run).unwrap();
    let out = |i: i64, src: &str, text: &str| Output {
        candidates: serde_json::json!({ "source": src }),
        ..Output::new(i, text)
    };
    store
        .put_outputs(
            id,
            &[
                out(0, "It costs 25 euros.", "Es kostet 52 Euro."),
                out(1, "Do you have time?", "Hast du Zeit?"),
            ],
        )
        .unwrap();
    let r = qa::qa_run(&mut store, id, None, false).unwrap().report;
    assert!(r.sources_known);
    assert_eq!(
        found(&r),
        [
            (0, CheckKind::Number, Severity::Error),
            (1, CheckKind::Register, Severity::Error)
        ]
    );
    // Without the kept sources only the register can be checked, and the report says so.
    store
        .put_outputs(id, &[Output::new(0, "Es kostet 52 Euro.")])
        .unwrap();
    let r = qa::qa_run(&mut store, id, None, false).unwrap().report;
    assert!(!r.sources_known);
    assert_eq!(found(&r), [(1, CheckKind::Register, Severity::Error)]);
}
