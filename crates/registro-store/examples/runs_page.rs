//! How long the Dashboard's runs table query takes on a store with many runs: builds a store of N finished runs
//! (a few outputs each) in a temporary file and prints the median time of `page_runs` for the first page, the last
//! page, a text filter and an order by system name (each with its total count). Run it in release:
//!
//! `cargo run --release -p registro-store --example runs_page -- 2000 10000`

use std::time::Instant;

use registro_store::{NewRun, Output, RunFilter, RunNarrowing, RunPageQuery, RunSort, RunStatus, Store, Task};

const REPEAT: usize = 21;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![2000, 10_000] } else { sizes };
    for n in sizes {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open(dir.path().join("registro.db")).expect("open the store");
        let t = Instant::now();
        let project = store.create_project("bench").expect("project").id;
        for k in 0..n {
            let mut r = NewRun::new(project, Task::Eval, format!("system-{:05}", k / 2));
            r.total_segments = Some(3);
            r.source_lang = Some("en".into());
            r.target_lang = Some("de".into());
            r.register = Some(if k % 2 == 0 { "formal" } else { "informal" }.into());
            let id = store.create_run(&r).expect("run");
            store.put_outputs(id, &(0..3).map(|i| Output::new(i, "Guten Tag.")).collect::<Vec<_>>()).expect("outputs");
            store.finish_run(id, RunStatus::Done, None).expect("finish");
        }
        println!("{n} runs stored in {:.1} s", t.elapsed().as_secs_f64());
        let done = RunFilter { project_id: Some(project), status: Some(RunStatus::Done), ..Default::default() };
        let page = |narrowing: RunNarrowing, sort: RunSort, offset: i64| RunPageQuery {
            filter: done.clone(),
            narrowing,
            sort,
            ascending: sort != RunSort::Id,
            offset,
            limit: 50,
        };
        let cases = [
            ("first page, newest first", page(RunNarrowing::default(), RunSort::Id, 0)),
            ("last page", page(RunNarrowing::default(), RunSort::Id, (n as i64 - 1) / 50 * 50)),
            ("text filter 'SYSTEM-0001'", page(RunNarrowing { text: Some("SYSTEM-0001".into()), ..Default::default() }, RunSort::Id, 0)),
            ("ordered by system", page(RunNarrowing::default(), RunSort::System, 0)),
        ];
        for (what, q) in cases {
            let mut ms = Vec::with_capacity(REPEAT);
            let mut total = 0;
            for _ in 0..REPEAT {
                let t = Instant::now();
                let (rows, all) = store.page_runs(&q).expect("page");
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(rows.len() <= 50);
                total = all;
            }
            ms.sort_by(f64::total_cmp);
            println!("  {n} runs, {what}: median {:.2} ms (min {:.2}, max {:.2}; {total} match)", ms[REPEAT / 2], ms[0], ms[REPEAT - 1]);
        }
    }
}
