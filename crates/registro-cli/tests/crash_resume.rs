//! A plain-text file translated with the real 0.5B model, killed with SIGKILL mid-run (no chance to clean up, as
//! a power cut), then finished by `registro runs resume`: the lines were stored as a document, so the run can be
//! resumed; the segments stored before the kill stay exactly as they were and only the missing ones are produced.
mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{command, ok_json};

#[test]
fn a_killed_plain_text_translation_is_resumed_without_redoing_its_finished_segments() {
    let Some((dir, db)) = common::small_model_scratch("killed") else { return };
    let input = common::numbered_letters(&dir, 24, |i| format!("Thank you for letter number {i}; we will answer it soon."));

    // The fast path (one greedy candidate, no sentence examples): the test is about the crash, not the controls.
    let args = [&["translate", "--input", input.to_str().unwrap()][..], &common::FORMAL_GERMAN, &["--n-best", "1", "--sentence-examples", "0", "--no-meaning-check"]].concat();
    let mut child = command(Some(&db), &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let stored = |db: &std::path::Path| -> Option<(i64, i64)> {
        let store = registro_store::Store::open(db).ok()?;
        let run = store.list_runs(&Default::default()).ok()?.into_iter().next()?;
        Some((run.id, store.outputs(run.id).ok()?.len() as i64))
    };
    let start = Instant::now();
    let (run, before) = loop {
        assert!(start.elapsed() < Duration::from_secs(600), "no segment was stored within 10 minutes");
        assert!(child.try_wait().unwrap().is_none(), "the translation ended before it could be killed");
        if let Some((run, done)) = stored(&db).filter(|(_, done)| *done >= 2) {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            break (run, done);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let store = registro_store::Store::open(&db).unwrap();
    let kept: Vec<(i64, String)> = store.outputs(run).unwrap().iter().map(|o| (o.segment_index, o.text.clone())).collect();
    // The kill may land between the count above and this read: what counts is what the store holds now.
    assert!(kept.len() as i64 >= before && kept.len() < 24, "{} of 24 stored at the kill", kept.len());
    drop(store);

    let shown = ok_json(&db, &["--json", "runs", "show", &run.to_string()]);
    assert!(shown["resume_blocker"].is_null(), "the plain-text run must be resumable: {shown}");
    assert_eq!(shown["missing_segments"].as_array().unwrap().len(), 24 - kept.len());

    let resumed = ok_json(&db, &["--json", "runs", "resume", &run.to_string()]);
    assert_eq!(resumed["produced"].as_u64().unwrap() as usize, 24 - kept.len(), "{resumed}");
    let store = registro_store::Store::open(&db).unwrap();
    let outputs = store.outputs(run).unwrap();
    assert_eq!(outputs.len(), 24, "every segment stored once");
    for (index, text) in &kept {
        let now = outputs.iter().find(|o| o.segment_index == *index).unwrap();
        assert_eq!(&now.text, text, "segment {index} was stored before the kill and must not change");
    }
    assert!(outputs.iter().all(|o| !o.text.trim().is_empty()), "every segment translated");
    assert_eq!(store.run(run).unwrap().status, registro_store::RunStatus::Done);
}
