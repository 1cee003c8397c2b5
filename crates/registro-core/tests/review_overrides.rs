//! A flag is cleared only when the checks pass on the new text, and signing off or exporting past an open problem
//! needs an explicit, stored override (issue 43, parts 2 and 3). The model is not needed: outputs are stored the way
//! `translate_and_store` stores them, flags from the same output check.
//!
//! - Repair that leaves the text in English keeps the flag (Italian formal, "hey, can you send me the file by friday?").
//! - An edit that fixes it clears the flag and makes the segment reviewed.
//! - Reviewed/approved with an open flag is refused without an override; with one, who/when/why are stored and shown.
//! - The quality check makes untranslated text, English left in, raw markup, mixed address and open flags errors.
//! - An export with errors is blocked unless exported anyway, which is recorded.

use registro_core::qa::{qa_run, CheckKind, Severity};
use registro_core::review::{export_to, open_review, repair_segment, set_status, set_status_overriding, OverrideBy};
use registro_core::review::store_edit;
use registro_core::translate::{check_output, to_output, Lang, Register};
use registro_store::{OverrideKind, SegmentStatus, Store};
use registro_testkit::StoredTranslation;

/// A stored run over `pairs` in `lang`/`register`, each output flagged by the output check as translation flags it.
fn run_of(store: &mut Store, lang: Lang, register: Register, pairs: &[(&str, &str)]) -> i64 {
    let project = store.create_project("p").unwrap().id;
    let run = StoredTranslation { project, doc_name: "mail.txt", target_lang: lang.code(), register: Some(register.as_str()), pairs, params: None }.store(store);
    for (i, (source, target)) in pairs.iter().enumerate() {
        let c = check_output(lang, register, Some(source), target);
        let seg = registro_core::translate::SegmentOut {
            index: i,
            source: source.to_string(),
            text: target.to_string(),
            register,
            analysis: c.analysis,
            verdict: c.verdict,
            flagged: c.flagged,
            flag_reason: c.flag_reason,
            before_repair: None,
            repair_edits: Vec::new(),
            candidates: Vec::new(),
            back_translation: None,
            seconds: 0.0,
        };
        store.put_output(run, &to_output(&seg)).unwrap();
    }
    run
}

const FRIDAY: (&str, &str) = ("hey, can you send me the file by friday?", "Hey, can you send me the file by Friday?");

#[test]
fn repair_that_leaves_english_keeps_the_flag_and_the_segment_unreviewed() {
    let mut store = Store::open_in_memory().unwrap();
    let run = run_of(&mut store, Lang::It, Register::Formal, &[FRIDAY]);
    let before = store.output(run, 0).unwrap().unwrap();
    assert!(before.flagged, "English output is flagged at translation");
    assert!(before.flag_reason.as_deref().unwrap().contains("untranslated"), "{:?}", before.flag_reason);

    let r = repair_segment(&mut store, run, 0, None).unwrap();
    assert_eq!(r.text, FRIDAY.1, "no rule translates English");
    assert!(r.check.flagged, "the check ran again on the repaired text and still fails");
    assert!(r.check.flag_reason.as_deref().unwrap().contains("untranslated"), "{:?}", r.check.flag_reason);
    assert_eq!(r.check.status, Some(SegmentStatus::Translated), "a repair never makes a segment reviewed");
    let stored = store.output(run, 0).unwrap().unwrap();
    assert!(stored.flagged && stored.flag_reason == r.check.flag_reason, "the flag is still stored");
    let row = &open_review(&store, run).unwrap().rows[0];
    assert_eq!(row.status, SegmentStatus::Translated);
    assert!(row.segment.flagged && row.flag_override.is_none());

    // An edit that is still English keeps the flag too, and is not `reviewed`.
    let c = store_edit(&mut store, run, 0, Lang::It, Register::Formal, "Hey, could you send me the file by Friday?").unwrap();
    assert!(c.flagged, "{c:?}");
    assert_eq!(c.status, Some(SegmentStatus::Translated));
}

#[test]
fn an_edit_that_fixes_the_text_clears_the_flag_and_is_reviewed() {
    let mut store = Store::open_in_memory().unwrap();
    let run = run_of(&mut store, Lang::It, Register::Formal, &[FRIDAY]);
    let c = store_edit(&mut store, run, 0, Lang::It, Register::Formal, "Potrebbe inviarmi il file entro venerdì?").unwrap();
    assert!(!c.flagged, "the checks pass on the new text: {:?}", c.flag_reason);
    assert_eq!(c.status, Some(SegmentStatus::Reviewed));
    let out = store.output(run, 0).unwrap().unwrap();
    assert!(!out.flagged && out.flag_reason.is_none());
    assert_eq!(open_review(&store, run).unwrap().rows[0].status, SegmentStatus::Reviewed);
    // Reviewed and approved need no override once the flag is gone.
    set_status(&mut store, run, 0, SegmentStatus::Approved).unwrap();
    assert!(store.overrides(run).unwrap().is_empty());
    // An informal edit of a formal document is flagged again by the same checks, and Repair fixes that one.
    let c = store_edit(&mut store, run, 0, Lang::It, Register::Formal, "Puoi inviarmi il file entro venerdì?").unwrap();
    assert!(c.flagged, "{c:?}");
    let r = repair_segment(&mut store, run, 0, None).unwrap();
    assert!(r.changed && !r.check.flagged, "{r:?}");
    let out = store.output(run, 0).unwrap().unwrap();
    assert_eq!(out.candidates["before_repair"], "Puoi inviarmi il file entro venerdì?");
}

#[test]
fn approving_with_an_open_flag_needs_an_override_which_is_stored_and_shown() {
    let mut store = Store::open_in_memory().unwrap();
    let run = run_of(&mut store, Lang::It, Register::Formal, &[FRIDAY]);
    for status in [SegmentStatus::Reviewed, SegmentStatus::Approved] {
        let err = set_status(&mut store, run, 0, status).unwrap_err().to_string();
        assert!(err.contains("open flag") && err.contains("override"), "{err}");
    }
    let blank = OverrideBy { who: "Ana".into(), reason: "  ".into() };
    assert!(set_status_overriding(&mut store, run, 0, SegmentStatus::Approved, Some(&blank)).is_err(), "a reason is required");
    assert_eq!(open_review(&store, run).unwrap().rows[0].status, SegmentStatus::Translated, "nothing changed");

    let by = OverrideBy { who: "Ana".into(), reason: "the client wants the English line kept".into() };
    let o = set_status_overriding(&mut store, run, 0, SegmentStatus::Approved, Some(&by)).unwrap().expect("the override");
    assert_eq!((o.who.as_str(), o.reason.as_str(), o.kind), ("Ana", "the client wants the English line kept", OverrideKind::Flag));
    assert_eq!(o.text.as_deref(), Some(FRIDAY.1));
    assert!(o.what.contains("untranslated"), "the flag it overrode is kept: {}", o.what);
    assert!(o.created_at.len() >= 19, "when: {}", o.created_at);
    let row = &open_review(&store, run).unwrap().rows[0];
    assert_eq!(row.status, SegmentStatus::Approved);
    assert!(row.segment.flagged, "the flag is still there, overridden");
    assert_eq!(row.flag_override.as_ref().map(|o| o.who.as_str()), Some("Ana"));

    // The QA report shows the override as a warning, so it no longer blocks.
    let q = qa_run(&mut store, run, None, false).unwrap();
    assert!(!q.blocking, "{:?}", q.report.issues);
    let ov = q.report.issues.iter().find(|i| i.kind == CheckKind::OverriddenFlag).expect("the override is shown");
    assert!(ov.message.contains("Ana") && ov.message.contains("English line kept"), "{}", ov.message);

    // A new text makes the override stale: the flag is open again.
    store_edit(&mut store, run, 0, Lang::It, Register::Formal, "Hey, can you please send me the file by Friday?").unwrap();
    let row = &open_review(&store, run).unwrap().rows[0];
    assert!(row.segment.flagged && row.flag_override.is_none());
    assert!(qa_run(&mut store, run, None, false).unwrap().blocking);
}

#[test]
fn qa_errors_for_untranslated_english_left_in_raw_markup_mixed_address_and_open_flags() {
    let mut store = Store::open_in_memory().unwrap();
    let pairs = [
        // Untranslated: the source itself.
        ("<1>Super</1> job, you guys rock!", "<1>Super</1> job, you guys rock!"),
        // The DOCX case of issue 43: English with the tags shown, not identical to the source.
        ("<1>Great</1> job, you guys rock!", "<1>Super</1> job, you guys rock!"),
        // English left inside an Italian sentence.
        ("Or re-fueling the vehicle, booking travel, and a lot more.", "O per rifornire il vehicle, booking travel, e molto altro."),
        // Markup the source does not have.
        ("Thank you for your help.", "La ringrazio per il suo <b>aiuto</b>."),
        // Informal address in a formal document.
        ("Can you call me tomorrow?", "Puoi chiamarmi domani?"),
        ("Could you send me the report?", "Potrebbe inviarmi il rapporto?"),
        ("Would you like to join us?", "Vorrebbe unirsi a noi?"),
    ];
    let run = run_of(&mut store, Lang::It, Register::Formal, &pairs);
    let q = qa_run(&mut store, run, None, false).unwrap();
    let errors = |seg: usize| -> Vec<CheckKind> {
        q.report.issues.iter().filter(|i| i.segment == seg && i.severity == Severity::Error).map(|i| i.kind).collect()
    };
    assert!(errors(0).contains(&CheckKind::Untranslated), "{:?}", q.report.issues);
    assert!(errors(1).contains(&CheckKind::Untranslated), "{:?}", q.report.issues);
    assert!(errors(2).contains(&CheckKind::Untranslated), "{:?}", q.report.issues);
    let left = q.report.issues.iter().find(|i| i.segment == 2 && i.kind == CheckKind::Untranslated).unwrap();
    assert!(left.message.contains("vehicle"), "the English words are named: {}", left.message);
    assert!(errors(3).contains(&CheckKind::RawMarkup), "{:?}", q.report.issues);
    assert!(errors(4).contains(&CheckKind::Register), "mixed address: {:?}", q.report.issues);
    // Each of these was flagged when it was translated, and the flag is open.
    for seg in 0..5 {
        assert!(errors(seg).contains(&CheckKind::OpenFlag), "segment {seg}: {:?}", errors(seg));
    }
    assert!(errors(5).is_empty() && errors(6).is_empty(), "good segments pass: {:?}", q.report.issues);
    assert!(q.blocking);
    assert!(q.report.consistency.mixed);
}

#[test]
fn an_export_with_errors_is_blocked_unless_exported_anyway_which_is_recorded() {
    let mut store = Store::open_in_memory().unwrap();
    let run = run_of(&mut store, Lang::It, Register::Formal, &[FRIDAY, ("Thank you!", "Grazie!")]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mail.it.txt");
    let err = export_to(&mut store, run, &path, None).unwrap_err().to_string();
    assert!(err.contains("export blocked") && err.contains("export anyway"), "{err}");
    assert!(!path.exists());
    let no_reason = OverrideBy { who: "Ana".into(), reason: String::new() };
    assert!(export_to(&mut store, run, &path, Some(&no_reason)).is_err(), "export anyway needs a reason");
    assert!(!path.exists());

    let by = OverrideBy { who: "Ana".into(), reason: "draft for the client's review".into() };
    let said = export_to(&mut store, run, &path, Some(&by)).unwrap();
    assert!(said.contains("exported anyway") && said.contains("Ana"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\nGrazie!\n", FRIDAY.1));
    let q = qa_run(&mut store, run, None, false).unwrap();
    assert_eq!(q.exported_anyway.len(), 1);
    let rec = &q.exported_anyway[0];
    assert_eq!((rec.kind, rec.who.as_str(), rec.reason.as_str()), (OverrideKind::Export, "Ana", "draft for the client's review"));
    assert!(rec.what.contains("segment 1") && rec.what.contains("untranslated"), "the errors exported past: {}", rec.what);

    // Fixed by an edit, the run exports without asking.
    store_edit(&mut store, run, 0, Lang::It, Register::Formal, "Potrebbe inviarmi il file entro venerdì?").unwrap();
    let path2 = dir.path().join("mail2.it.txt");
    export_to(&mut store, run, &path2, None).unwrap();
    assert_eq!(store.overrides(run).unwrap().len(), 1, "no new record when nothing was overridden");
}
