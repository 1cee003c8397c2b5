//! Resume in the real window: a rewrite run over a stored document that was cancelled after two of its four
//! sentences is listed with a Resume button; clicking it produces only the two missing sentences, the run turns
//! `done`, and the sentences finished before are kept as they were. Writes `tests/e2e/screenshots/resume.png`.
mod common;

use std::time::Duration;

use registro_core::progress::CancelToken;
use registro_core::rewrite::{self, Lang, Method, Options, RewriteRequest, ScorerChoice};
use registro_e2e::{screenshot_path, Session};
use registro_store::{NewDocument, NewSegment, RunStatus, Store};

const WAIT: Duration = Duration::from_secs(30);
const DRAFTS: [&str; 4] = ["gonna call u tmrw", "i dunno what ur talking about lol", "thx for the help!!", "wanna grab lunch?"];


/// A store holding project "Drafts" with one document and a rules rewrite of it cancelled after two sentences.
fn interrupted_run(db: &std::path::Path) -> i64 {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Drafts").unwrap();
    let doc = NewDocument {
        name: "drafts.txt".into(),
        source_lang: "en".into(),
        format: "text".into(),
        segments: DRAFTS.iter().map(|t| NewSegment { text: t.to_string(), references: vec![] }).collect(),
        ..Default::default()
    };
    let doc = store.insert_document(project.id, &doc).unwrap();
    let req = RewriteRequest {
        sentences: DRAFTS.iter().map(|s| s.to_string()).collect(),
        options: Options { n: 1, fluency: false, ..Options::new(Lang::En, Method::Rules) },
        model: None,
        scorer: ScorerChoice::Surface,
        project: Some("Drafts".into()),
        document_id: Some(doc),
    };
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let out = rewrite::rewrite(Some(&mut store), &req, None, &cancel, &mut |p| {
        if p.done == 2 {
            stop.cancel()
        }
    })
    .unwrap();
    let run = out.run_id.expect("the run is stored");
    assert_eq!(store.run(run).unwrap().status, RunStatus::Cancelled);
    assert_eq!(store.outputs(run).unwrap().len(), 2);
    run
}

#[test]
fn a_cancelled_run_is_resumed_from_the_runs_table() {
    let Some((dir, db)) = common::ready_temp_store("a_cancelled_run_is_resumed_from_the_runs_table") else { return };
    let run = interrupted_run(&db);
    let before = Store::open(&db).unwrap().outputs(run).unwrap();

    let s = Session::in_project(&db, dir.path(), &[], "Drafts", None).expect("the app opens the project");
    let row = format!(r#"[data-testid="run-item"][data-run-id="{run}"]"#);
    let listed = s.text(&s.wait_for(&row, WAIT).expect("the cancelled run is listed")).unwrap();
    assert!(listed.contains("cancelled") && listed.contains("2/4"), "the row shows the interrupted run: {listed}");
    s.click_css(&format!(r#"{row} [data-testid="resume-run"]"#), WAIT).expect("a cancelled run offers Resume");
    // The row shows the resume's state live, then is drawn again from the store: read afresh each time.
    s.wait_for(&format!(r#"{row} .badge.done"#), WAIT).expect("the run turns done");
    assert_eq!(s.text_css(&format!(r#"{row} .badge.done"#), WAIT).unwrap(), "done");
    let row_text = s.text_css(&row, WAIT).unwrap();
    assert!(row_text.contains("4/4"), "all four sentences are there: {row_text}");
    assert!(s.find_all(&format!(r#"{row} [data-testid="resume-run"]"#)).unwrap().is_empty(), "a done run offers no Resume");
    s.screenshot(&screenshot_path("resume.png")).unwrap();
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let outputs = store.outputs(run).unwrap();
    assert_eq!(outputs.iter().map(|o| o.segment_index).collect::<Vec<_>>(), vec![0, 1, 2, 3], "one output per sentence");
    assert_eq!(&outputs[..2], &before[..], "the sentences finished before are kept as they were");
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
}

/// The same run reopened in the Rewrite view: its state above the sentences ("cancelled 2/4") with Resume there;
/// Resume finishes it and the view shows all four sentences, "done 4/4" and no Resume.
#[test]
fn a_cancelled_rewrite_is_resumed_from_the_rewrite_view() {
    let Some((dir, db)) = common::ready_temp_store("a_cancelled_rewrite_is_resumed_from_the_rewrite_view") else { return };
    let run = interrupted_run(&db);
    let s = Session::in_project(&db, dir.path(), &[], "Drafts", Some("rewrite")).expect("the app opens the project");
    let row = format!(r#"[data-testid="view-rewrite"] [data-testid="run-item"][data-run-id="{run}"]"#);
    s.wait_for(&row, WAIT).expect("the run is listed in the Rewrite view");
    s.click_css(&format!("{row} td:nth-child(3)"), WAIT).unwrap();
    let state = r#"[data-testid="rewrite-run-state"] [data-testid="run-state"]"#;
    wait_until_text(&s, state, "cancelled 2/4");
    s.wait_for_count(r#"[data-testid="rewrite-sentence"]"#, 2, WAIT).expect("the two sentences it kept");
    s.click_css(r#"[data-testid="rewrite-resume"]"#, WAIT).expect("Resume is offered in the Rewrite view");
    wait_until_text(&s, state, "done 4/4");
    s.wait_for_count(r#"[data-testid="rewrite-sentence"]"#, 4, WAIT).expect("all four sentences once it is done");
    assert!(s.find_all(r#"[data-testid="rewrite-resume"]"#).unwrap().is_empty(), "a done run offers no Resume");
    wait_until_text(&s, &format!(r#"{row} [data-testid="run-state"]"#), "done 4/4");
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("resume-rewrite-view.png")).unwrap();
    s.close().unwrap();
    assert_eq!(Store::open(&db).unwrap().run(run).unwrap().status, RunStatus::Done);
}

fn wait_until_text(s: &Session, css: &str, want: &str) {
    registro_e2e::wait_until(&format!("{css} to say {want:?}"), WAIT, || {
        s.execute("const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", vec![serde_json::json!(css)])
            .unwrap()
            .as_str()
            .is_some_and(|t| t.contains(want))
    });
}
