//! A cancelled translation reopened in the real window (issue 44, "state that never lies"): the segments the run
//! produced show their translation, status and register label; the ones it never reached say "not translated" and
//! carry no register label (an empty string used to be labelled NEUTRAL with status "draft") and no Approve button.
//! Screenshot: `tests/e2e/screenshots/translate-cancelled-reopened.png`.
mod common;

use std::time::Duration;

use registro_e2e::{screenshot_path, Session};
use registro_store::{NewDocument, NewRun, NewSegment, Output, RunStatus, Store, Task};

const WAIT: Duration = Duration::from_secs(60);
const SOURCES: [&str; 5] = [
    "Could you send me the report tomorrow?",
    "Thank you for your message.",
    "Where do you keep the folder?",
    "Your order has been shipped.",
    "Can you call me about the ticket?",
];

/// Project "Letters" with a five-segment document and a formal German run of it cancelled after two segments.
fn cancelled_run(db: &std::path::Path) -> i64 {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Letters").unwrap();
    let doc = NewDocument {
        name: "letters.txt".into(),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        format: "text".into(),
        segments: SOURCES.iter().map(|t| NewSegment { text: t.to_string(), references: vec![] }).collect(),
        ..Default::default()
    };
    let doc = store.insert_document(project.id, &doc).unwrap();
    let mut run = NewRun::new(project.id, Task::Translate, "registro-prompt");
    run.document_id = Some(doc);
    run.source_lang = Some("en".into());
    run.target_lang = Some("de".into());
    run.register = Some("formal".into());
    run.total_segments = Some(SOURCES.len() as i64);
    let id = store.create_run(&run).unwrap();
    store.start_run(id).unwrap();
    let done = [
        Output { detected_register: Some("formal".into()), ..Output::new(0, "Könnten Sie mir morgen den Bericht senden?") },
        Output { detected_register: Some("formal".into()), ..Output::new(1, "Vielen Dank für Ihre Nachricht.") },
    ];
    store.put_outputs(id, &done).unwrap();
    store.finish_run(id, RunStatus::Cancelled, None).unwrap();
    id
}

fn row_text(s: &Session, index: usize, what: &str) -> String {
    let css = format!(r#"[data-testid="translate-row"][data-index="{index}"] {what}"#);
    s.execute("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", vec![css.into()])
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_cancelled_run_shows_its_missing_segments_as_not_translated() {
    let Some((dir, db)) = common::ready_temp_store("a_cancelled_run_shows_its_missing_segments_as_not_translated") else { return };
    let run = cancelled_run(&db);
    let s = Session::in_project(&db, dir.path(), &[], "Letters", Some("translate")).expect("the app opens the project");
    let item = format!(r#"[data-view="translate"] [data-testid="run-item"][data-run-id="{run}"]"#);
    s.wait_for(&item, WAIT).expect("the cancelled run is listed");
    s.click_css(&format!("{item} td:nth-child(3)"), WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-grid"][data-run="{run}"]"#), WAIT).expect("the grid shows the run");
    s.wait_for_count(r#"[data-testid="translate-row"]"#, 5, WAIT).expect("all five segments are rows");

    for i in 0..2 {
        assert!(!row_text(&s, i, r#"[data-testid="translate-output"]"#).is_empty(), "segment {} keeps its translation", i + 1);
        assert_ne!(row_text(&s, i, r#"[data-testid="translate-status"]"#), "not translated");
        assert!(row_text(&s, i, ".tr-meta").contains("FORMAL"), "segment {} has its register label", i + 1);
    }
    for i in 2..5 {
        assert_eq!(row_text(&s, i, r#"[data-testid="translate-status"]"#), "not translated", "segment {}", i + 1);
        let meta = row_text(&s, i, ".tr-meta");
        assert!(meta.contains("not translated"), "segment {}: {meta}", i + 1);
        for label in ["NEUTRAL", "FORMAL", "INFORMAL", "MIXED"] {
            assert!(!meta.contains(label), "segment {} was never translated yet is labelled {label}: {meta}", i + 1);
        }
        assert!(row_text(&s, i, r#"[data-testid="translate-approve"]"#).is_empty(), "nothing to approve in segment {}", i + 1);
    }
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("translate-cancelled-reopened.png")).unwrap();
    s.close().unwrap();
}
