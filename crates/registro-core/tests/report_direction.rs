//! Evaluation that cannot mislead: a metric's better side follows the runs' requested register (for informal
//! runs, lower formality is better — in the table's direction, the significance marks, the chart titles and the
//! drill-down), intervals stay inside what the metric can score and name their method, and chart labels tell
//! systems apart.

use registro_core::report::{self, CompareOptions, CompareRequest, Comparison, DrillOptions, DrillSort, SentenceMetric};
use registro_report::{Chart, Table};
use registro_store::{NewDocument, NewRun, NewSegment, Output, RunStatus, Store, Task};

/// A German test set of `n` requests with informal and formal references (annotated for M-Acc), and one informal
/// run per entry of `formal_every`: that run answers every k-th segment with the formal "Sie" form (0: never).
fn informal_runs(n: usize, formal_every: &[usize]) -> (Store, Vec<i64>) {
    runs(n, &formal_every.iter().map(|&e| ("informal", e)).collect::<Vec<_>>())
}

/// [`informal_runs`] with each run's register given.
fn runs(n: usize, specs: &[(&str, usize)]) -> (Store, Vec<i64>) {
    let mut store = Store::open_in_memory().unwrap();
    let project = registro_core::projects::find_or_create_project(&mut store, "direction").unwrap();
    let du = |i: usize| format!("Kannst du mir bei Aufgabe {i} helfen?");
    let sie = |i: usize| format!("Können Sie mir bei Aufgabe {i} helfen?");
    let doc = NewDocument {
        name: "informal requests".into(),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        origin: None,
        format: "eval".into(),
        segments: (0..n)
            .map(|i| NewSegment {
                text: format!("Can you help me with task {i}?"),
                references: vec![
                    ("formal".into(), sie(i)),
                    ("informal".into(), du(i)),
                    ("formal.annotated".into(), sie(i).replacen("Können Sie", "[F]Können Sie[/F]", 1)),
                    ("informal.annotated".into(), du(i).replacen("Kannst du", "[F]Kannst du[/F]", 1)),
                ],
            })
            .collect(),
    };
    let doc_id = store.insert_document(project.id, &doc).unwrap();
    let mut ids = Vec::new();
    for (k, &(register, every)) in specs.iter().enumerate() {
        let mut run = NewRun::new(project.id, Task::Eval, format!("formality-control-{}.{register}.de", k + 1));
        run.document_id = Some(doc_id);
        run.source_lang = Some("en".into());
        run.target_lang = Some("de".into());
        run.register = Some(register.into());
        let id = store.create_run(&run).unwrap();
        store.start_run(id).unwrap();
        let outputs: Vec<Output> =
            (0..n).map(|i| Output::new(i as i64, if every > 0 && i % every == 0 { sie(i) } else { du(i) })).collect();
        store.put_outputs(id, &outputs).unwrap();
        store.finish_run(id, RunStatus::Done, None).unwrap();
        ids.push(id);
    }
    (store, ids)
}

fn compare(store: &Store, ids: &[i64]) -> (report::Prepared, Comparison) {
    let req = CompareRequest { runs: ids.to_vec(), baseline: Some(ids[0]), reference: None };
    let prep = report::prepare(report::load(store, &req).unwrap()).unwrap();
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 1000, ..Default::default() }).unwrap();
    (prep, cmp)
}

fn column(t: &Table, key: &str) -> usize {
    t.columns.iter().position(|c| c.key == key).unwrap_or_else(|| panic!("no column {key}"))
}

/// The systems from best to worst by `key`, as the column's direction says (what sorting the column shows).
fn ranking(t: &Table, key: &str) -> Vec<String> {
    let c = column(t, key);
    let higher = t.columns[c].higher_is_better.unwrap_or_else(|| panic!("{key} has a better side"));
    let mut rows: Vec<(String, f64)> = t.rows.iter().map(|r| (r.id.clone(), r.cells[c].value.unwrap())).collect();
    rows.sort_by(|a, b| if higher { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) });
    rows.into_iter().map(|r| r.0).collect()
}

fn marker(t: &Table, key: &str, row: usize) -> String {
    t.rows[row].cells[column(t, key)].marker.clone().unwrap_or_default()
}

/// Always runs: three informal systems, more formal ("Sie") answers from one to the next. Lower formality is
/// better: the formality ranking equals M-Acc's, the more formal systems are marked worse (†), never better (*),
/// and the chart and drill-down say so.
#[test]
fn informal_runs_rank_lower_formality_as_better() {
    let (store, ids) = informal_runs(200, &[200, 5, 2]);
    let (prep, cmp) = compare(&store, &ids);
    let corpus = cmp.table("corpus").unwrap();
    let f = column(corpus, "formality");
    assert_eq!(corpus.columns[f].higher_is_better, Some(false), "informal target: lower formality is better");
    let by_formality = ranking(corpus, "formality");
    assert_eq!(by_formality, ranking(corpus, "macc"), "formality ranks the systems as M-Acc does");
    assert_eq!(by_formality, ids.iter().map(|i| i.to_string()).collect::<Vec<_>>());
    for row in [1, 2] {
        assert!(marker(corpus, "formality", row).starts_with('†'), "more formal = worse: {:?}", corpus.rows[row]);
        assert!(marker(corpus, "macc", row).starts_with('†'), "{:?}", corpus.rows[row]);
    }
    assert!(corpus.notes.iter().any(|n| n.contains("lower is better: the runs ask for informal")), "{:?}", corpus.notes);

    // The chart says the same: title, marks.
    let Chart::Bars(bars) = &cmp.chart("bars_formality").unwrap().chart else { panic!("bars") };
    assert!(bars.title.contains("lower is better"), "{}", bars.title);
    assert!(bars.bars[1..].iter().all(|b| b.marker.as_deref().is_some_and(|m| m.starts_with('†'))), "{:?}", bars.bars);
    let svg = cmp.chart("bars_formality").unwrap().svg.clone().unwrap();
    assert!(svg.contains("lower is better") && !svg.contains("higher is better"), "drawn title");

    // The drill-down's "improved" is the better side's: a more formal answer from an informal system is worse.
    let page = report::drilldown(
        &prep,
        &DrillOptions { a: ids[0], b: ids[2], metric: SentenceMetric::FORMALITY, sort: DrillSort::Improved, offset: 0, limit: 10 },
    )
    .unwrap();
    assert_eq!((page.improved, page.worsened), (0, 99), "every formal answer of system 3 is a worsening");
}

/// Runs asking for different registers have no better formality: no arrow, no better/worse marks.
#[test]
fn mixed_registers_have_no_better_formality() {
    let (store, ids) = runs(60, &[("informal", 0), ("formal", 3)]);
    let (_, cmp) = compare(&store, &ids);
    let corpus = cmp.table("corpus").unwrap();
    assert_eq!(corpus.columns[column(corpus, "formality")].higher_is_better, None);
    assert_eq!(marker(corpus, "formality", 1), "", "no side is better, so no mark");
    let Chart::Bars(bars) = &cmp.chart("bars_formality").unwrap().chart else { panic!("bars") };
    assert!(bars.title.contains("no better side"), "{}", bars.title);
}

/// An accuracy of 199/200 has a bootstrap interval reaching past 100 under sacrebleu's mean ± half-width rule: it
/// is clipped to 100, and the table and chart name the interval method.
#[test]
fn intervals_are_clipped_to_the_metric_range_and_named() {
    let (store, ids) = informal_runs(200, &[200, 7]);
    let (_, cmp) = compare(&store, &ids);
    let corpus = cmp.table("corpus").unwrap();
    for key in ["bleu", "chrf", "macc"] {
        for r in &corpus.rows {
            let (lo, hi) = r.cells[column(corpus, key)].ci.unwrap();
            assert!((0.0..=100.0).contains(&lo) && (0.0..=100.0).contains(&hi), "{key} of {}: [{lo}, {hi}]", r.id);
        }
    }
    let (_, hi) = corpus.rows[0].cells[column(corpus, "macc")].ci.unwrap();
    assert_eq!(hi, 100.0, "199 of 200 right: the interval reaches the bound and stops there");
    for r in &corpus.rows {
        let (lo, hi) = r.cells[column(corpus, "formality")].ci.unwrap();
        assert!(lo >= -1.0 && hi <= 1.0, "the analyzer's −1…1: [{lo}, {hi}]");
    }
    assert!(corpus.title.contains("bootstrap"), "{}", corpus.title);
    assert!(corpus.notes.iter().any(|n| n.contains("percentile") && n.contains("clipped")), "{:?}", corpus.notes);
    let Chart::Bars(bars) = &cmp.chart("bars_macc").unwrap().chart else { panic!("bars") };
    assert!(bars.bars.iter().all(|b| b.ci.is_some_and(|(l, h)| l >= 0.0 && h <= 100.0)), "{:?}", bars.bars);
    assert!(bars.title.contains("bootstrap") && bars.legend.as_deref().is_some_and(|l| l.contains("clipped")), "{bars:?}");
}

/// Five systems whose names share "formality-control-" and ".informal": each chart draws a different label per
/// system, and the SVG carries every full name for hovering.
#[test]
fn chart_labels_tell_systems_apart() {
    let (store, ids) = informal_runs(40, &[0, 2, 3, 4, 5]);
    let (_, cmp) = compare(&store, &ids);
    for key in ["bars_bleu", "bars_formality", "stacked_macc", "scatter_bleu_formality", "heatmap_led"] {
        let c = cmp.chart(key).unwrap();
        let short: Vec<&str> = c.labels.iter().map(|l| l.short.as_str()).collect();
        let unique: std::collections::BTreeSet<&&str> = short.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{key}: {short:?}");
        assert!(short.iter().all(|s| !s.starts_with("formality-control…")), "{key}: {short:?}");
        let svg = c.svg.as_ref().unwrap();
        for l in &c.labels {
            assert!(svg.contains(&format!("\n{}\n</text>", l.short)), "{key}: label {} drawn", l.short);
            assert!(svg.contains(&l.full), "{key}: {} in a <title>", l.full);
        }
        assert!(svg.contains("<title>"), "{key}");
    }
    let bars = cmp.chart("bars_bleu").unwrap();
    assert_eq!(bars.labels[0].short, "…control-1");
    assert_eq!(bars.labels[0].full, "formality-control-1.informal");
}

/// The real IWSLT 2022 EN→DE informal submissions (UMD's five systems): ranked by formality with lower as better,
/// they come out as M-Acc ranks them (best and worst the same, Spearman ≥ 0.8); with "higher is better" the order
/// was reversed and the less informal systems were marked better than the baseline.
#[test]
fn real_iwslt_informal_submissions_rank_as_m_acc_does() {
    use registro_core::eval::{discover_submissions, eval_config, run_eval, EvalSettings};
    let Some(dir) = registro_core::shared_data_dir().map(|d| d.join("iwslt2022-umd/en-de")).filter(|d| d.is_dir()) else {
        println!("skipped: IWSLT 2022 EN-DE submissions not found (set REGISTRO_SHARED_DATA)");
        return;
    };
    let loaded = discover_submissions(&dir, None).unwrap();
    let cfg = eval_config(&loaded.lang.clone().unwrap_or_default(), &loaded, &EvalSettings::default()).unwrap();
    let mut store = Store::open_in_memory().unwrap();
    let cancel = registro_core::progress::CancelToken::new();
    let all = run_eval(Some(&mut store), "iwslt", &loaded, &cfg, &cancel, &mut |_| {}).unwrap().run_ids;
    let informal: Vec<i64> = all.iter().copied().filter(|id| store.run(*id).unwrap().register.as_deref() == Some("informal")).collect();
    assert_eq!(informal.len(), 5);
    let (_, cmp) = compare(&store, &informal);
    let corpus = cmp.table("corpus").unwrap();
    let by_formality = ranking(corpus, "formality");
    let by_macc = ranking(corpus, "macc");
    let name = |id: &str| store.run(id.parse().unwrap()).unwrap().system;
    println!("informal ranking by formality (lower is better): {:?}", by_formality.iter().map(|i| name(i)).collect::<Vec<_>>());
    println!("informal ranking by M-Acc: {:?}", by_macc.iter().map(|i| name(i)).collect::<Vec<_>>());
    assert_eq!(by_formality.first(), by_macc.first(), "the same best system");
    assert_eq!(by_formality.last(), by_macc.last(), "the same worst system");
    let pos = |v: &[String], id: &str| v.iter().position(|x| x == id).unwrap() as f64;
    let d2: f64 = by_macc.iter().map(|id| (pos(&by_formality, id) - pos(&by_macc, id)).powi(2)).sum();
    let rho = 1.0 - 6.0 * d2 / (5.0 * 24.0);
    println!("Spearman between the two rankings: {rho:.2}");
    assert!(rho >= 0.8, "formality and M-Acc rank the informal systems alike: rho = {rho}");
    // No system M-Acc finds significantly worse is marked better on formality.
    for (i, r) in corpus.rows.iter().enumerate() {
        if marker(corpus, "macc", i).starts_with('†') {
            assert!(!marker(corpus, "formality", i).starts_with('*'), "{}: M-Acc worse, formality better?", r.id);
        }
    }
    let Chart::Bars(bars) = &cmp.chart("bars_formality").unwrap().chart else { panic!("bars") };
    assert!(bars.title.contains("lower is better"), "{}", bars.title);
}
