//! Crash safety: a child process writing a run's outputs in batches is SIGKILLed mid-run; the database must open,
//! pass the integrity check, hold every batch it committed in full (no partial batch) and be resumable.
//! The child is this test binary itself, re-run with `REGISTRO_CRASH_CHILD_DB` set.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use registro_store::*;

mod common;

const ENV: &str = "REGISTRO_CRASH_CHILD_DB";
const BATCH: i64 = 10;
const TOTAL: i64 = 1_000_000;

/// The child: only does something when spawned by `killed_writer_leaves_a_consistent_resumable_db`.
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os(ENV) else { return };
    let mut s = Store::open(&path).unwrap();
    let run = s.list_runs(&RunFilter::default()).unwrap()[0].id;
    s.start_run(run).unwrap();
    let mut next = 0;
    loop {
        let batch: Vec<Output> = (next..next + BATCH)
            .map(|i| {
                let mut o = Output::new(i, format!("output {i} {}", "x".repeat(200)));
                o.timings = serde_json::json!({ "ms": i });
                o
            })
            .collect();
        s.put_outputs(run, &batch).unwrap();
        next += BATCH;
        println!("committed {next}");
    }
}

#[test]
fn killed_writer_leaves_a_consistent_resumable_db() {
    if std::env::var_os(ENV).is_some() {
        return;
    }
    let (_dir, path) = common::temp_db("crash.db");
    let run = {
        let s = Store::open(&path).unwrap();
        let p = s.create_project("crash").unwrap();
        common::create_run(&s, p.id, Task::Translate, "crash-writer", TOTAL)
    };
    let mut child = common::child_test("crash_child", ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut reported = 0i64;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("committed ") {
            reported = n.trim().parse().unwrap();
            if reported >= 3_000 {
                break;
            }
        }
    }
    // SIGKILL mid-write (Child::kill sends SIGKILL on Unix), then reap it so its pid is really gone.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(reported >= 3_000, "the child stopped early (reported {reported})");

    let s = Store::open(&path).unwrap();
    assert_eq!(s.integrity_check().unwrap(), "ok");
    let r = s.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Failed, "a run whose writer died must not stay running");
    assert!(r.error.as_deref().unwrap().starts_with("interrupted:"), "{:?}", r.error);
    let done = r.completed_segments;
    assert!(done >= reported, "committed batches lost: reported {reported}, found {done}");
    assert_eq!(done % BATCH, 0, "a partial batch survived: {done} outputs");
    let outputs = s.outputs(run).unwrap();
    for (i, o) in outputs.iter().enumerate() {
        assert_eq!(o.segment_index, i as i64);
        assert!(o.text.starts_with(&format!("output {i} ")), "segment {i} damaged");
        assert_eq!(o.timings["ms"], i as i64);
    }
    let missing = s.resume_run(run).unwrap();
    assert_eq!(missing.first(), Some(&done));
    assert_eq!(missing.len() as i64, TOTAL - done);
    assert_eq!(s.run(run).unwrap().status, RunStatus::Running);
    println!("crash test: child reported {reported} committed, store holds {done} intact outputs");
}
