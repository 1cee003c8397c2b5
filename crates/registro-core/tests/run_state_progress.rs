//! What a long operation over a stored run reports and how it stops (issues 42 and 44): a resume says what it is
//! doing before its first segment and then n of m of the whole run, and hands each segment over as it is stored; a
//! document's QA and export report progress, and a cancel stops them with nothing written — no file at the user's
//! path, no half file beside it, no "exported anyway" record, no QA fix.
use std::time::Duration;

use registro_core::progress::{CancelToken, Progress};
use registro_core::qa;
use registro_core::resume::{resume_run_watched, Watch};
use registro_core::run_state::{RunPhase, RunState};
use registro_core::translate::{self as tr, Lang, Options, Register, SegmentOut};
use registro_store::{OverrideKind, RunStatus, Store};

#[path = "../../registro-remote/testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

const SOURCES: [&str; 5] = [
    "Could you send me report 1 tomorrow?",
    "Could you check invoice 2 today?",
    "Could you sign contract 3 this week?",
    "Could you read chapter 4 tonight?",
    "Could you call customer 5 on Monday?",
];

/// Answers each completion with a formal German sentence naming the source's number.
fn respond(path: &str, body: &str) -> Act {
    fake::vllm_qwen(path, body, |turn| {
        match turn.and_then(|t| SOURCES.iter().position(|s| t.contains(s))) {
            Some(i) => fake::completion(&format!("Könnten Sie bitte Nummer {} erledigen?", i + 1)),
            None => fake::completion(" Paris"),
        }
        .delay(Duration::from_millis(20))
    })
}

#[test]
fn a_resume_says_what_it_does_then_n_of_m_of_the_whole_run_and_hands_over_each_segment() {
    let server = FakeServer::start_with(Vec::new(), respond);
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("r.db")).unwrap();
    let project = store.create_project("p").unwrap();
    let doc = registro_testkit::store_text_document(&mut store, project.id, "letter.txt", &SOURCES);
    let run = {
        let cfg = tr::remote::Config { max_in_flight: 1, ..tr::remote::Config::new(&server.url()) };
        let mut gen = tr::open_generator(None, Some(cfg)).unwrap();
        let mut t = tr::Translator::new(gen.as_mut(), Some(tr::Pool::default_for(Lang::De).unwrap()));
        let opts = Options { n_best: 1, sentence_examples: 0, ..Options::new(Lang::De, Register::Formal) };
        let cancel = CancelToken::new();
        let stop = cancel.clone();
        let sources: Vec<String> = SOURCES.iter().map(|s| s.to_string()).collect();
        let target = tr::RunTarget { project_id: project.id, document_id: Some(doc) };
        let (run, _) = tr::translate_and_store(&mut store, &target, &mut t, &sources, None, &opts, &mut |p| {
            if p.done >= 2 {
                stop.cancel()
            }
        }, &cancel)
        .unwrap();
        run
    };
    // Which two were stored first depends on the order answers came in (and a segment read back for the second
    // opinion is stored at the end of its window); the resume hands over the other three.
    let stored: Vec<usize> = store.outputs(run).unwrap().iter().map(|o| o.segment_index as usize).collect();
    let before = RunState::of_run(&store.run(run).unwrap());
    assert_eq!((before.phase, before.label.as_str(), before.resumable), (RunPhase::Cancelled, "cancelled 2/5", true));

    let mut states: Vec<RunState> = Vec::new();
    let mut segments: Vec<SegmentOut> = Vec::new();
    let out = resume_run_watched(
        &mut store,
        run,
        Watch { state: &mut |s| states.push(s), segment: &mut |s| segments.push(s.clone()) },
        &CancelToken::new(),
    )
    .unwrap();
    let labels: Vec<&str> = states.iter().map(|s| s.label.as_str()).collect();
    assert!(states.iter().take_while(|s| s.phase == RunPhase::Starting).count() >= 2, "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with("starting (2/5 stored): connecting to the server")), "{labels:?}");
    assert!(labels.contains(&"starting (2/5 stored): computing the prompt prefix"), "{labels:?}");
    let running: Vec<&str> = labels.iter().copied().filter(|l| l.starts_with("running")).collect();
    assert_eq!(running, ["running 3/5", "running 4/5", "running 5/5"], "n of m counts the whole run");
    assert_eq!(states.last().unwrap().label, "done 5/5");
    assert_eq!(out.state.label, "done 5/5");
    assert!(!out.state.resumable);
    // Requests are in flight together, so answers may come in any order: each under its index in the document.
    let mut got: Vec<(usize, String)> = segments.iter().map(|s| (s.index, s.text.clone())).collect();
    got.sort();
    let want: Vec<(usize, String)> =
        (0..5).filter(|i| !stored.contains(i)).map(|i| (i, format!("Könnten Sie bitte Nummer {} erledigen?", i + 1))).collect();
    assert_eq!(want.len(), 3, "{stored:?}");
    assert_eq!(got, want);
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
}

/// A stored 2,000-segment run in a store on disk (its outputs flagged now and then, so the export needs a reason).
fn long_run(dir: &std::path::Path) -> (Store, i64) {
    let mut store = Store::open(dir.join("long.db")).unwrap();
    let f = registro_core::bench::review_fixture(&mut store, 2000).unwrap();
    (store, f.run)
}

#[test]
fn qa_reports_progress_and_a_cancelled_check_fixes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, run) = long_run(dir.path());
    let mut seen: Vec<Progress> = Vec::new();
    let done = qa::qa_run_with(&mut store, run, None, false, &mut |p| seen.push(p), &CancelToken::new()).unwrap();
    assert_eq!(done.report.segments, 2000);
    assert!(seen.len() >= 10, "progress along the way, not once: {}", seen.len());
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done), "progress only goes forward");
    assert_eq!(seen.last().map(|p| (p.done, p.total)), Some((4000, 4000)));
    assert!(seen[0].message.contains("checking 2000 segments"), "{}", seen[0].message);

    // Cancelled half way through a fix: the run is left as it was.
    let before = store.outputs(run).unwrap();
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let e = qa::qa_run_with(&mut store, run, None, true, &mut |p| {
        if p.done > p.total / 2 {
            stop.cancel()
        }
    }, &cancel)
    .unwrap_err();
    assert!(qa::is_cancelled(&e), "{e:#}");
    assert_eq!(store.outputs(run).unwrap(), before, "a cancelled fix writes nothing");
}

#[test]
fn an_export_reports_each_step_and_a_cancelled_one_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, run) = long_run(dir.path());
    let by = registro_core::review::OverrideBy { who: "tester".into(), reason: "a draft for the client".into() };
    let path = dir.path().join("manual.de.txt");

    // Cancelled at each step in turn: nothing at the path, nothing beside it, nothing recorded.
    for step in ["export: checking", "export: reading", "export: writing"] {
        let cancel = CancelToken::new();
        let stop = cancel.clone();
        let mut seen = Vec::new();
        let e = registro_core::review::export_to_with(&mut store, run, &path, Some(&by), &mut |p| {
            if p.message.starts_with(step) {
                stop.cancel()
            }
            seen.push(p.message);
        }, &cancel)
        .unwrap_err();
        assert!(qa::is_cancelled(&e), "{step}: {e:#}");
        assert_eq!(e.to_string(), "the export cancelled");
        assert!(!path.exists(), "{step}: a cancelled export leaves no file");
        let names: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.contains("registro-tmp")), "{step}: no half file is left: {names:?}");
        assert!(store.overrides(run).unwrap().iter().all(|o| o.kind != OverrideKind::Export), "{step}: no 'exported anyway' recorded");
        assert!(seen.iter().any(|m| m.starts_with(step)), "{step}: {seen:?}");
    }

    let mut seen: Vec<String> = Vec::new();
    let what = registro_core::review::export_to_with(&mut store, run, &path, Some(&by), &mut |p| seen.push(p.message), &CancelToken::new()).unwrap();
    assert!(what.contains("2000 segments as text"), "{what}");
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2000);
    for step in ["export: checking", "export: reading the translations", "export: writing"] {
        assert!(seen.iter().any(|m| m.starts_with(step)), "{step} is reported: {seen:?}");
    }
    assert_eq!(store.overrides(run).unwrap().iter().filter(|o| o.kind == OverrideKind::Export).count(), 1, "the export anyway is recorded once");
}
