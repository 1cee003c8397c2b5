//! The app and the CLI (or the app's own per-operation connections) use one database file at once. SQLite's locks
//! are POSIX record locks, which belong to the process and all go when *any* descriptor of the file is closed: a
//! plain `std::fs` read of the store's header while this process has it open through SQLite drops its locks, and
//! another process closing its connection then takes the file as unused, checkpoints and deletes the WAL under the
//! first one ("file is not a database", lost writes). This test is that sequence.
//! The child is this test binary itself, re-run with `REGISTRO_TWO_PROCESSES_DB` set.

use registro_store::*;

mod common;

const ENV: &str = "REGISTRO_TWO_PROCESSES_DB";

/// The other process: opens the store, reads, writes, and closes it.
#[test]
fn other_process() {
    let Some(path) = std::env::var_os(ENV) else { return };
    let s = Store::open(&path).unwrap();
    assert!(!s.list_projects().unwrap().is_empty());
    s.create_project("from the other process").unwrap();
}

#[test]
fn a_second_open_in_this_process_keeps_the_first_connections_locks() {
    if std::env::var_os(ENV).is_some() {
        return;
    }
    let (_dir, db) = common::temp_db("registro.db");
    let first = Store::open(&db).unwrap();
    first.create_project("before").unwrap();
    // What every long command of the app does while its shared connection stays open.
    drop(Store::open(&db).unwrap());
    let status = common::child_test("other_process", ENV, &db).status().unwrap();
    assert!(status.success(), "the other process could use the store");
    // The next operation of the app opens its own connection: both must see one database.
    let next = Store::open(&db).unwrap();
    next.create_project("next operation").unwrap();
    first.create_project("after").expect("the first connection still works");
    let seen_by = |s: &Store| -> Vec<String> { s.list_projects().unwrap().into_iter().map(|p| p.name).collect() };
    assert_eq!(seen_by(&first).len(), 4, "{:?}", seen_by(&first));
    assert_eq!(seen_by(&first), seen_by(&next), "two connections of one process see different databases");
    drop(next);
    drop(first);
    let names: Vec<String> = Store::open(&db).unwrap().list_projects().unwrap().into_iter().map(|p| p.name).collect();
    assert!(["before", "after", "from the other process", "next operation"].iter().all(|n| names.iter().any(|m| m == n)), "nothing was lost: {names:?}");
    assert_eq!(Store::open(&db).unwrap().integrity_check().unwrap(), "ok");
}
