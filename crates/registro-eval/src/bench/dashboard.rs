//! A store of many systems over one test set, for `registro bench dashboard`: sources and references come from the
//! IWSLT 2022 EN→DE test set when the shared data is present (else generated sentences), and each system's output
//! is its register's reference with deterministic, system-specific damage (dropped, swapped and replaced words),
//! so scores spread out as real systems' do.

use std::path::PathBuf;

use anyhow::Result;
use registro_report::agreement::SplitMix64;
use registro_store::{NewDocument, NewRun, NewSegment, Output, RunId, RunStatus, Store, Task};

fn shared_dir() -> Option<PathBuf> {
    let d = crate::shared_data_dir()?.join("iwslt2022-umd/en-de");
    d.is_dir().then_some(d)
}

fn lines(dir: &std::path::Path, name: &str) -> Option<Vec<String>> {
    Some(std::fs::read_to_string(dir.join(name)).ok()?.lines().map(str::to_string).collect())
}

struct TestSet {
    src: Vec<String>,
    formal: Vec<String>,
    informal: Vec<String>,
    formal_annotated: Vec<String>,
    informal_annotated: Vec<String>,
}

fn test_set(n: usize) -> TestSet {
    let real = shared_dir().and_then(|d| {
        let p = "formality-control.test.en-de";
        Some(TestSet {
            src: lines(&d, &format!("{p}.en"))?,
            formal: lines(&d, &format!("{p}.formal.de"))?,
            informal: lines(&d, &format!("{p}.informal.de"))?,
            formal_annotated: lines(&d, &format!("{p}.formal.annotated.de"))?,
            informal_annotated: lines(&d, &format!("{p}.informal.annotated.de"))?,
        })
    });
    let base = real.unwrap_or_else(|| {
        let words = ["Haus", "gestern", "schnell", "Antwort", "Frage", "heute", "Zug", "Brief", "morgen", "gut"];
        let mut rng = SplitMix64(7);
        let mut mk = |formal: bool| -> Vec<String> {
            (0..n)
                .map(|i| {
                    let len = 5 + (rng.next() % 25) as usize;
                    let body: Vec<&str> = (0..len).map(|_| words[(rng.next() % 10) as usize]).collect();
                    format!("{} {} {i}.", if formal { "Können Sie" } else { "Kannst du" }, body.join(" "))
                })
                .collect()
        };
        let formal = mk(true);
        let informal = mk(false);
        TestSet {
            src: (0..n).map(|i| format!("Can you check item {i} for me?")).collect(),
            formal_annotated: formal.iter().map(|s| s.replacen("Können Sie", "[F]Können Sie[/F]", 1)).collect(),
            informal_annotated: informal.iter().map(|s| s.replacen("Kannst du", "[F]Kannst du[/F]", 1)).collect(),
            formal,
            informal,
        }
    });
    let cycle = |v: &Vec<String>| (0..n).map(|i| v[i % v.len()].clone()).collect::<Vec<_>>();
    TestSet {
        src: cycle(&base.src),
        formal: cycle(&base.formal),
        informal: cycle(&base.informal),
        formal_annotated: cycle(&base.formal_annotated),
        informal_annotated: cycle(&base.informal_annotated),
    }
}

fn damage(text: &str, rate: f64, rng: &mut SplitMix64) -> String {
    let mut w: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    let roll = |rng: &mut SplitMix64| (rng.next() % 10_000) as f64 / 10_000.0;
    let mut i = 0;
    while i < w.len() {
        let r = roll(rng);
        if r < rate / 3.0 && w.len() > 1 {
            w.remove(i);
            continue;
        } else if r < 2.0 * rate / 3.0 && i + 1 < w.len() {
            w.swap(i, i + 1);
        } else if r < rate {
            w[i] = w[i].chars().rev().collect();
        }
        i += 1;
    }
    w.join(" ")
}

/// Creates project `dashboard-bench` with one `segments`-long document and `runs` finished runs over it.
pub fn bench_fixture(store: &mut Store, runs: usize, segments: usize) -> Result<Vec<RunId>> {
    let ts = test_set(segments.max(1));
    let project = store.find_or_create_project("dashboard-bench")?;
    let doc = NewDocument {
        name: format!("bench test set ({segments} segments)"),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        origin: None,
        format: "eval".into(),
        segments: (0..ts.src.len())
            .map(|i| NewSegment {
                text: ts.src[i].clone(),
                references: vec![
                    ("formal".into(), ts.formal[i].clone()),
                    ("informal".into(), ts.informal[i].clone()),
                    ("formal.annotated".into(), ts.formal_annotated[i].clone()),
                    ("informal.annotated".into(), ts.informal_annotated[i].clone()),
                ],
            })
            .collect(),
    };
    let doc_id = store.insert_document(project.id, &doc)?;
    let mut ids = Vec::with_capacity(runs);
    for k in 0..runs {
        let register = if k % 2 == 0 { "formal" } else { "informal" };
        let mut run = NewRun::new(project.id, Task::Eval, format!("system-{:02}", k / 2 + 1));
        run.document_id = Some(doc_id);
        run.source_lang = Some("en".into());
        run.target_lang = Some("de".into());
        run.register = Some(register.into());
        let id = store.create_run(&run)?;
        store.start_run(id)?;
        let mut rng = SplitMix64(1000 + k as u64);
        let rate = 0.05 + 0.4 * (k as f64 / runs.max(1) as f64);
        let refs = if register == "formal" { &ts.formal } else { &ts.informal };
        // Every fifth segment of some systems uses the other register: M-Acc then varies too.
        let other = if register == "formal" { &ts.informal } else { &ts.formal };
        let outputs: Vec<Output> = (0..refs.len())
            .map(|i| {
                let base = if (i + k) % (5 + k % 3) == 0 { &other[i] } else { &refs[i] };
                Output::new(i as i64, damage(base, rate, &mut rng))
            })
            .collect();
        store.put_outputs(id, &outputs)?;
        store.finish_run(id, RunStatus::Done, None)?;
        ids.push(id);
    }
    Ok(ids)
}

/// What [`review_fixture`] stored: the run and which of its segments are flagged and approved (0-based).
#[derive(Clone, Debug)]
pub struct ReviewFixture {
    pub run: RunId,
    pub flagged: Vec<usize>,
    pub approved: Vec<usize>,
}

/// Creates project `review-bench` with one `segments`-long English document and a finished formal German translate
/// run over it, as Translate leaves one: every 7th segment (from the 4th) stored flagged in the informal register,
/// every 10th of the others approved. Segment `i`'s source and translation name `i + 1`, so a test can tell the rows
/// apart; the translations are the test set's formal references.
pub fn review_fixture(store: &mut Store, segments: usize) -> Result<ReviewFixture> {
    let ts = test_set(segments.max(1));
    let project = store.find_or_create_project("review-bench")?;
    let doc = NewDocument {
        name: format!("long manual ({segments} segments).txt"),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        origin: None,
        format: "text".into(),
        segments: (0..segments).map(|i| NewSegment { text: format!("{} [{}]", ts.src[i], i + 1), references: Vec::new() }).collect(),
    };
    let doc_id = store.insert_document(project.id, &doc)?;
    let mut run = NewRun::new(project.id, Task::Translate, "registro-prompt");
    run.document_id = Some(doc_id);
    run.source_lang = Some("en".into());
    run.target_lang = Some("de".into());
    run.register = Some("formal".into());
    let id = store.create_run(&run)?;
    store.start_run(id)?;
    let is_flagged = |i: usize| i % 7 == 3;
    let outputs: Vec<Output> = (0..segments)
        .map(|i| {
            let flagged = is_flagged(i);
            let text = if flagged { &ts.informal[i] } else { &ts.formal[i] };
            Output {
                flagged,
                flag_reason: flagged.then(|| "wrong register: informal".to_string()),
                detected_register: Some(if flagged { "informal" } else { "formal" }.into()),
                ..Output::new(i as i64, format!("{text} [{}]", i + 1))
            }
        })
        .collect();
    store.put_outputs(id, &outputs)?;
    let approved: Vec<usize> = (0..segments).filter(|&i| i % 10 == 0 && !is_flagged(i)).collect();
    for &i in &approved {
        store.set_output_status(id, i as i64, registro_store::SegmentStatus::Approved)?;
    }
    store.finish_run(id, RunStatus::Done, None)?;
    Ok(ReviewFixture { run: id, flagged: (0..segments).filter(|&i| is_flagged(i)).collect(), approved })
}

/// What `registro bench dashboard` measures: the statistics computed when the runs are stored, each phase of the
/// Dashboard's first request after that, and repeated comparisons.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DashboardTimings {
    pub runs: usize,
    pub segments: usize,
    pub bootstrap: usize,
    pub tables: usize,
    pub charts: usize,
    /// Computing and storing every run's statistics and default resamples as `eval`/import do when they store a
    /// run ([`store_run_statistics`](crate::report::store_run_statistics)); with `--run-ids`, what was missing.
    pub statistics_at_import_ms: f64,
    /// The first request after import, as the app does it: load, prepare (statistics read from the store; what
    /// depends on pairs of runs, the lexical difference, computed), compare (edit types against the baseline
    /// computed; resampled scores read).
    pub load_ms: f64,
    pub prepare_ms: f64,
    pub first_compare_ms: f64,
    pub first_request_ms: f64,
    /// Tables the first request left pending (edit types of every system), built as when the page scrolls to them.
    pub pending_tables: Vec<String>,
    pub first_pending_tables_ms: f64,
    /// Rendering every chart of the first comparison to SVG, as a user scrolling past all of them asks for.
    pub charts_svg_ms: f64,
    /// Load + prepare when the same runs are opened again (everything the first request computed is stored).
    pub reopen_ms: f64,
    /// Every timed comparison of the reopened runs, sorted (each starts with the in-memory caches cleared).
    pub compare_ms: Vec<f64>,
    pub compare_ms_median: f64,
    /// The app's next comparison of the same runs (nothing cleared).
    pub compare_again_ms: f64,
    /// A comparison under a seed never used before: every system's scores resampled.
    pub compare_new_seed_ms: f64,
    /// The first comparison's own breakdown (`prepare.*`, tables, bootstrap, charts).
    pub first_breakdown_ms: std::collections::BTreeMap<String, f64>,
    /// The last timed comparison's breakdown.
    pub breakdown_ms: std::collections::BTreeMap<String, f64>,
}

/// Times the statistics stored at import, the first request for `runs` (with `bootstrap` resamples) after that,
/// and `repeat` comparisons of the same runs opened again, from `store`.
pub fn time_dashboard(store: &mut Store, runs: &[RunId], bootstrap: usize, repeat: usize) -> Result<DashboardTimings> {
    use std::time::Instant;
    let req = crate::report::CompareRequest { runs: runs.to_vec(), baseline: None, reference: None };
    // As the app asks: charts rendered when shown, tables over every segment pair built when shown.
    let opts = crate::report::CompareOptions { bootstrap, render_svg: false, lazy_tables: true, ..Default::default() };
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    crate::report::store_run_statistics(store, runs, &crate::progress::CancelToken::new(), &mut |_| {});
    let statistics_at_import_ms = ms(t);

    let t = Instant::now();
    let data = crate::report::load(store, &req)?;
    let load_ms = ms(t);
    let t = Instant::now();
    let prep = crate::report::prepare_stored(data, store)?;
    let prepare_ms = ms(t);
    let t = Instant::now();
    let mut first = crate::report::compare(&prep, &opts)?;
    let first_compare_ms = ms(t);
    let pending_tables = first.pending_tables.iter().map(|p| p.key.clone()).collect();
    let t = Instant::now();
    crate::report::complete_tables(&prep, &mut first, &std::sync::atomic::AtomicBool::new(false), &mut |_| {})?;
    let first_pending_tables_ms = ms(t);
    let t = Instant::now();
    for c in &first.charts {
        c.chart.to_svg(opts.chart_size)?;
    }
    let charts_svg_ms = ms(t);
    // The app keeps what the comparison computed.
    crate::report::store_computed(&prep, store)?;
    drop(prep);

    let t = Instant::now();
    let prep = crate::report::prepare_stored(crate::report::load(store, &req)?, store)?;
    let reopen_ms = ms(t);
    let mut compare_ms = Vec::new();
    let mut last = None;
    for _ in 0..repeat.max(1) {
        prep.clear_caches();
        let t = Instant::now();
        let cmp = crate::report::compare(&prep, &opts)?;
        compare_ms.push(ms(t));
        last = Some(cmp);
    }
    let t = Instant::now();
    crate::report::compare(&prep, &opts)?;
    let compare_again_ms = ms(t);
    let t = Instant::now();
    crate::report::compare(&prep, &crate::report::CompareOptions { seed: opts.seed.wrapping_add(1), ..opts.clone() })?;
    let compare_new_seed_ms = ms(t);
    let cmp = last.expect("at least one repetition ran");
    compare_ms.sort_by(f64::total_cmp);
    Ok(DashboardTimings {
        runs: runs.len(),
        segments: prep.data.segments(),
        bootstrap,
        tables: cmp.tables.len(),
        charts: cmp.charts.len(),
        statistics_at_import_ms,
        load_ms,
        prepare_ms,
        first_compare_ms,
        first_request_ms: load_ms + prepare_ms + first_compare_ms,
        pending_tables,
        first_pending_tables_ms,
        charts_svg_ms,
        reopen_ms,
        compare_ms_median: compare_ms[compare_ms.len() / 2],
        compare_ms,
        compare_again_ms,
        compare_new_seed_ms,
        first_breakdown_ms: first.timings_ms,
        breakdown_ms: cmp.timings_ms,
    })
}
