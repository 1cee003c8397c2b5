//! The Dashboard at shared-task scale: the runs table pages and filters thousands of stored runs in the store's
//! query, and a comparison over many runs reports where it is and stops when cancelled, keeping what it computed.

use std::sync::atomic::{AtomicBool, Ordering};

use registro_core::report::{self, CompareOptions, CompareRequest, RunQuery};
use registro_store::{RunSort, Store};

#[test]
fn the_runs_table_pages_and_filters_two_thousand_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("registro.db")).unwrap();
    let ids = registro_core::bench::bench_fixture(&mut store, 2000, 3).unwrap();

    let first = report::list_runs(&store, &RunQuery::default()).unwrap();
    assert_eq!(first.total, 2000);
    assert_eq!(first.runs.len(), 50, "one page of the default size");
    assert_eq!(first.runs[0].run.id, *ids.last().unwrap(), "newest first");
    assert_eq!(first.runs[0].project, "dashboard-bench");
    assert!(first.runs[0].document.as_deref().is_some_and(|d| d.contains("3 segments")));

    let third = report::list_runs(&store, &RunQuery { offset: 200, limit: 100, ..Default::default() }).unwrap();
    assert_eq!((third.total, third.runs.len(), third.offset), (2000, 100, 200));
    assert_eq!(third.runs[0].run.id, ids[2000 - 201]);

    let formal = report::list_runs(&store, &RunQuery { register: Some("formal".into()), ..Default::default() }).unwrap();
    assert_eq!(formal.total, 1000);
    assert!(formal.runs.iter().all(|r| r.run.register.as_deref() == Some("formal")));

    // What the user types in the model / system box narrows by substring, ignoring case.
    let one = report::list_runs(&store, &RunQuery { model: Some("SYSTEM-07".into()), ..Default::default() }).unwrap();
    assert_eq!(one.total, 2, "system-07 formal and informal: {:?}", one.runs.iter().map(|r| &r.run.system).collect::<Vec<_>>());
    let pair = report::list_runs(&store, &RunQuery { language_pair: Some("en-fr".into()), ..Default::default() }).unwrap();
    assert_eq!(pair.total, 0);

    let by_system = report::list_runs(&store, &RunQuery { sort: Some(RunSort::System), ascending: true, limit: 3, ..Default::default() }).unwrap();
    assert_eq!(by_system.runs.iter().map(|r| r.run.system.as_str()).collect::<Vec<_>>(), ["system-01", "system-01", "system-02"]);

    // A page far too large is cut to the most a page may hold.
    let huge = report::list_runs(&store, &RunQuery { limit: 1_000_000, ..Default::default() }).unwrap();
    assert_eq!(huge.runs.len(), report::MAX_PAGE);
}

#[test]
fn a_comparison_reports_progress_and_stops_when_cancelled_keeping_what_it_computed() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("registro.db")).unwrap();
    let ids = registro_core::bench::bench_fixture(&mut store, 12, 40).unwrap();
    let req = CompareRequest { runs: ids.clone(), ..Default::default() };

    let cancel = AtomicBool::new(false);
    let mut seen = Vec::new();
    let err = report::prepare_stored_with(report::load(&store, &req).unwrap(), &mut store, &cancel, &mut |p| {
        seen.push(p.message.clone());
        if p.done == 4 {
            cancel.store(true, Ordering::Relaxed);
        }
    })
    .err()
    .expect("a cancelled comparison stops");
    assert!(format!("{err:#}").contains("cancelled"), "{err:#}");
    assert_eq!(seen.len(), 5, "one event per system until the cancel: {seen:?}");
    assert!(seen[0].starts_with("statistics of "), "{seen:?}");
    // The systems finished before the cancel need not be computed again.
    assert!(!store.segment_tables_of(ids[0]).unwrap().is_empty(), "the first system's statistics were kept");
    assert!(store.segment_tables_of(ids[11]).unwrap().is_empty(), "the last system was never reached");

    let cancel = AtomicBool::new(false);
    let prep = report::prepare_stored_with(report::load(&store, &req).unwrap(), &mut store, &cancel, &mut |_| {}).unwrap();
    let opts = CompareOptions { bootstrap: 100, render_svg: false, ..Default::default() };
    let cmp = report::compare_with(&prep, &opts, &cancel).unwrap();
    assert_eq!(cmp.table("corpus").unwrap().rows.len(), 12);
    cancel.store(true, Ordering::Relaxed);
    let err = report::compare_with(&prep, &opts, &cancel).err().expect("a cancelled aggregation stops");
    assert!(format!("{err:#}").contains("cancelled"), "{err:#}");
}
