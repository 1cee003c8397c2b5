//! A run of this process that is no longer executing is not "running": the app lives for days, so its own pid
//! being alive says nothing about a run whose operation panicked or returned without finishing it.

use registro_store::*;

mod common;

fn started_run(s: &Store, total: i64) -> RunId {
    let p = s.create_project("p").unwrap();
    let run = common::create_run(s, p.id, Task::Translate, "sys", total);
    s.start_run(run).unwrap();
    run
}

#[test]
fn a_panic_in_the_operation_that_owns_the_store_ends_its_run_failed() {
    let (_dir, path) = common::temp_db("r.db");
    let mut s = Store::open(&path).unwrap();
    let run = started_run(&s, 3);
    s.put_output(run, &Output::new(0, "done")).unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let _owned_by_the_operation = s;
        panic!("index out of bounds in a decoder");
    }));
    assert!(panicked.is_err());
    // The same process looks again (the app opens a fresh connection for the next operation).
    common::assert_failed_and_resumable(&path, run, "crashed:", "1 of 3 segments were saved", &[1, 2]);
}

#[test]
fn a_run_left_unfinished_by_an_operation_of_this_process_is_not_running() {
    let (_dir, path) = common::temp_db("r.db");
    let s = Store::open(&path).unwrap();
    let run = started_run(&s, 2);
    let other = Store::open(&path).unwrap();
    // Still executing through `s`: another connection of this process must not take it over.
    assert_eq!(other.run(run).unwrap().status, RunStatus::Running);
    let err = other.resume_run(run).unwrap_err().to_string();
    assert!(err.contains("still being written by this process"), "{err}");
    drop(s);
    let r = other.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Failed);
    assert!(r.error.as_deref().unwrap().starts_with("interrupted:"), "{:?}", r.error);
    assert_eq!(other.resume_run(run).unwrap(), vec![0, 1]);
}

#[test]
fn finishing_a_run_through_another_connection_is_not_undone_when_the_first_is_dropped() {
    let (_dir, path) = common::temp_db("r.db");
    let s = Store::open(&path).unwrap();
    let run = started_run(&s, 1);
    let mut other = Store::open(&path).unwrap();
    other.put_output(run, &Output::new(0, "x")).unwrap();
    other.finish_run(run, RunStatus::Done, None).unwrap();
    drop(s);
    assert_eq!(other.run(run).unwrap().status, RunStatus::Done);
}
