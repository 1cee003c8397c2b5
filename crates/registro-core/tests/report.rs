//! The Dashboard use case over a real store: compare runs, drill down, rate blind, summarise, export.

use registro_core::report::{self, CompareOptions, CompareRequest, DrillOptions, DrillSort, Rating, SentenceMetric};
use registro_store::{Scale, Store};

fn fixture(runs: usize, segments: usize) -> (Store, Vec<i64>) {
    let mut store = Store::open_in_memory().unwrap();
    let ids = registro_core::bench::bench_fixture(&mut store, runs, segments).unwrap();
    (store, ids)
}

/// The stored `runs` loaded and prepared for a comparison against `baseline`.
fn prepared(store: &Store, runs: &[i64], baseline: Option<i64>) -> report::Prepared {
    let req = CompareRequest { runs: runs.to_vec(), baseline, reference: None };
    report::prepare(report::load(store, &req).unwrap()).unwrap()
}

/// Comparison options with `bootstrap` resamples and no SVG rendering.
fn without_svg(bootstrap: usize) -> CompareOptions {
    CompareOptions { bootstrap, render_svg: false, ..Default::default() }
}

#[test]
fn compare_builds_tables_with_cis_and_every_chart() {
    let (store, ids) = fixture(4, 80);
    let prep = prepared(&store, &ids, Some(ids[1]));
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 200, ..Default::default() }).unwrap();
    let corpus = cmp.table("corpus").expect("corpus table");
    assert_eq!(corpus.rows.len(), 4);
    let bleu_col = corpus.columns.iter().position(|c| c.key == "bleu").unwrap();
    for r in &corpus.rows {
        let c = &r.cells[bleu_col];
        let (v, (lo, hi)) = (c.value.unwrap(), c.ci.unwrap());
        assert!(lo <= v + 1.0 && v - 1.0 <= hi, "CI [{lo}, {hi}] around {v}");
    }
    assert!(corpus.notes.iter().any(|n| n.contains("nrefs:1") && n.contains("bs:200")), "{:?}", corpus.notes);
    assert!(corpus.rows[1].cells[0].text.as_deref().unwrap().contains("(baseline)"));
    assert!(cmp.table("macc").is_some(), "the fixture has annotated references");
    assert!(cmp.table("edit_types").is_some());
    for key in ["bars_bleu", "bars_chrf", "bars_ter", "bars_macc", "scatter_bleu_formality", "scatter_acc_sim", "stacked_macc", "hist_levenshtein", "hist_formality", "heatmap_led", "grouped_length_bleu"] {
        let c = cmp.chart(key).unwrap_or_else(|| panic!("chart {key} missing"));
        assert!(c.svg.as_ref().is_some_and(|s| s.contains("<svg")), "{key} rendered");
    }
    // More damage in later systems: BLEU falls from system-01 (formal) to system-02 (informal, damaged more).
    let bleu: Vec<f64> = corpus.rows.iter().map(|r| r.cells[bleu_col].value.unwrap()).collect();
    assert!(bleu[0] > bleu[3], "{bleu:?}");
}

#[test]
fn markers_show_significance_levels_in_table_and_charts() {
    let (store, ids) = fixture(6, 200);
    let prep = prepared(&store, &ids, None);
    let cmp = report::compare(&prep, &CompareOptions::default()).unwrap();
    let corpus = cmp.table("corpus").unwrap();
    let legend = registro_report::significance_legend(0.05);
    assert!(legend.contains("** p < 0.01") && legend.contains("*** p < 0.001"), "{legend}");
    assert!(corpus.notes.iter().any(|n| n.contains(&legend)), "{:?}", corpus.notes);
    let mut seen = std::collections::BTreeSet::new();
    for (ci, col) in corpus.columns.iter().enumerate() {
        let Some(higher) = col.higher_is_better else { continue };
        let base_v = corpus.rows[0].cells[ci].value;
        for row in &corpus.rows[1..] {
            let c = &row.cells[ci];
            let (Some(p), Some(v), Some(b)) = (c.p, c.value, base_v) else { continue };
            let better = if higher { v > b } else { v < b };
            let want = registro_report::significance_marker(p, better, 0.05);
            assert_eq!(c.marker.clone().unwrap_or_default(), want, "{} of {}: p = {p}", col.key, row.id);
            seen.insert(want);
        }
    }
    // The heavily damaged systems differ from the baseline at the strictest level.
    assert!(seen.contains("†††"), "{seen:?}");
    let bars = cmp.chart("bars_bleu").unwrap();
    let json = serde_json::to_string(&bars.chart).unwrap();
    assert!(json.contains("†††") && json.contains(&legend), "{json}");
    assert!(bars.svg.as_ref().unwrap().contains("*** p &lt; 0.001"), "legend drawn");
}

#[test]
fn cached_edit_types_give_the_same_tables_after_a_baseline_change() {
    let (store, ids) = fixture(4, 60);
    let mut prep = prepared(&store, &ids, None);
    let opts = without_svg(100);
    let first = report::compare(&prep, &opts).unwrap();
    prep.data.baseline = 2;
    let other = report::compare(&prep, &opts).unwrap();
    assert_ne!(first.table("edit_types"), other.table("edit_types"), "edits are from the baseline's output");
    prep.data.baseline = 0;
    let again = report::compare(&prep, &opts).unwrap();
    assert_eq!(first.tables, again.tables);
    prep.clear_caches();
    let cold = report::compare(&prep, &opts).unwrap();
    assert_eq!(first.tables, cold.tables);
}

/// The app's comparison leaves the edit types (a pass over every segment of every system) for when the page shows
/// them: the table built then equals the one a written report gets, is kept for the next comparison, and a report
/// written from the lazy comparison holds it too.
#[test]
fn lazy_tables_are_built_on_request_and_equal_the_eager_ones() {
    let (store, ids) = fixture(4, 60);
    let prep = prepared(&store, &ids, Some(ids[1]));
    let eager = report::compare(&prep, &without_svg(50)).unwrap();
    prep.clear_caches();
    let lazy_opts = CompareOptions { bootstrap: 50, render_svg: false, lazy_tables: true, ..Default::default() };
    let mut lazy = report::compare(&prep, &lazy_opts).unwrap();
    assert!(lazy.table("edit_types").is_none(), "not built with the others");
    assert_eq!(lazy.pending_tables.len(), 1);
    assert_eq!((lazy.pending_tables[0].key.as_str(), lazy.pending_tables[0].to_compute), ("edit_types", 3), "every system but the baseline");
    let mut seen = Vec::new();
    let cancelled = std::sync::atomic::AtomicBool::new(true);
    let err = report::complete_table(&prep, &mut lazy, "edit_types", &cancelled, &mut |p| seen.push(p.done)).unwrap_err();
    assert!(format!("{err:#}").contains("cancelled"), "{err:#}");
    let built = report::complete_table(&prep, &mut lazy, "edit_types", &Default::default(), &mut |p| seen.push(p.done)).unwrap();
    assert_eq!(Some(&built), eager.table("edit_types"));
    assert_eq!(seen, [0, 1, 2], "progress per system computed");
    assert!(lazy.pending_tables.is_empty() && lazy.table("edit_types").is_some());
    assert!(report::complete_table(&prep, &mut lazy, "no-such-table", &Default::default(), &mut |_| {}).is_err());
    // Computed once: the next comparison of the same runs has it at once.
    let again = report::compare(&prep, &lazy_opts).unwrap();
    assert!(again.pending_tables.is_empty());
    assert_eq!(again.table("edit_types"), eager.table("edit_types"));

    prep.clear_caches();
    let mut lazy = report::compare(&prep, &lazy_opts).unwrap();
    assert_eq!(lazy.pending_tables.len(), 1);
    report::complete_tables(&prep, &mut lazy, &Default::default(), &mut |_| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    report::write_report(&lazy, None, dir.path(), &[]).unwrap();
    assert!(std::fs::read_to_string(dir.path().join("report.html")).unwrap().contains("Edit types"));
}

/// With many systems the LeD heatmap shows the baseline and the next 19 — a readable grid, 190 pairs computed
/// instead of all — with the values a full computation gives, and says how many it left out.
#[test]
fn the_led_heatmap_of_many_systems_shows_the_baseline_and_the_next_nineteen() {
    let (store, ids) = fixture(23, 30);
    let prep = prepared(&store, &ids, Some(ids[5]));
    let cmp = report::compare(&prep, &without_svg(0)).unwrap();
    let json = serde_json::to_value(&cmp.chart("heatmap_led").unwrap().chart).unwrap();
    let rows = json["row_labels"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    assert_eq!(rows[0], serde_json::json!(cmp.systems[5].label), "the baseline first");
    assert!(json["title"].as_str().unwrap().contains("the next 19 of 23"), "{}", json["title"]);
    let values = json["values"].as_array().unwrap();
    assert!(values[0][0].is_null() && values[3][3].is_null(), "no value on the diagonal");
    assert_eq!(values[0][1], values[1][0], "symmetric");
    // The same pair in a comparison of just those two runs (where every pair is shown).
    let small = report::compare(&prepared(&store, &[ids[5], ids[0]], Some(ids[5])), &without_svg(0)).unwrap();
    let small = serde_json::to_value(&small.chart("heatmap_led").unwrap().chart).unwrap();
    assert_eq!(values[0][1], small["values"][0][1]);
    assert!(values[0][1].as_f64().unwrap() > 0.0);
}

#[test]
fn runs_over_different_sources_are_refused_with_their_names() {
    let mut store = Store::open_in_memory().unwrap();
    let a = registro_core::bench::bench_fixture(&mut store, 1, 20).unwrap();
    let b = registro_core::bench::bench_fixture(&mut store, 1, 30).unwrap();
    let err = report::load(&store, &CompareRequest { runs: vec![a[0], b[0]], baseline: None, reference: None }).unwrap_err();
    assert!(format!("{err:#}").contains("different source segments"), "{err:#}");
    let err = report::load(&store, &CompareRequest { runs: vec![a[0]], baseline: Some(b[0]), reference: None }).unwrap_err();
    assert!(format!("{err:#}").contains("not among the compared runs"), "{err:#}");
}

#[test]
fn drilldown_sorts_by_sentence_difference() {
    let (store, ids) = fixture(3, 50);
    let prep = prepared(&store, &ids, None);
    let page = report::drilldown(
        &prep,
        &DrillOptions { a: ids[0], b: ids[2], metric: SentenceMetric::BLEU, sort: DrillSort::Worsened, offset: 0, limit: 50 },
    )
    .unwrap();
    assert_eq!(page.segments.len(), 50);
    assert!(page.segments.windows(2).all(|w| w[0].diff <= w[1].diff), "worst first");
    assert!(page.worsened > page.improved, "the more damaged system loses more often");
    let s = &page.segments[0];
    assert!(s.a.tokens.iter().any(|t| t.class != registro_core::report::TokenClass::Plain), "reference n-grams marked");
    assert!(!s.references.is_empty());
}

#[test]
fn blind_ratings_round_trip_into_agreement_and_correlation() {
    let (mut store, ids) = fixture(3, 40);
    let runs = ids.clone();
    let ann = report::rating_items(&store, &runs, 6, 1, "ann").unwrap();
    let bob = report::rating_items(&store, &runs, 6, 1, "bob").unwrap();
    let mut sa: Vec<i64> = ann.iter().map(|i| i.segment_index).collect();
    let mut sb: Vec<i64> = bob.iter().map(|i| i.segment_index).collect();
    assert_ne!(sa, sb, "each rater gets their own order");
    sa.sort();
    sb.sort();
    assert_eq!(sa, sb, "but the same segments");
    for (rater, items, shift) in [("ann", &ann, 0.0), ("bob", &bob, 1.0)] {
        let mut ratings = Vec::new();
        for it in items.iter() {
            for o in &it.outputs {
                let k = runs.iter().position(|r| *r == o.run_id).unwrap() as f64;
                ratings.push(Rating { run_id: o.run_id, segment_index: it.segment_index, scale: Scale::Fluency, value: (5.0 - k - shift * (k == 0.0) as u8 as f64).max(1.0) });
                ratings.push(Rating { run_id: o.run_id, segment_index: it.segment_index, scale: Scale::Formality, value: 2.0 - k });
                ratings.push(Rating { run_id: o.run_id, segment_index: it.segment_index, scale: Scale::Rank, value: k + 1.0 });
            }
        }
        assert_eq!(report::save_ratings(&mut store, rater, &ratings).unwrap(), ratings.len());
    }
    // Saving again replaces instead of duplicating.
    let again = Rating { run_id: runs[0], segment_index: ann[0].segment_index, scale: Scale::Fluency, value: 4.0 };
    report::save_ratings(&mut store, "ann", &[again]).unwrap();
    let bad = Rating { run_id: runs[0], segment_index: 0, scale: Scale::Meaning, value: 7.0 };
    assert!(report::save_ratings(&mut store, "ann", &[bad]).unwrap_err().to_string().contains("1..6"));

    let prep = prepared(&store, &runs, None);
    let h = report::human_summary(&store, &prep).unwrap();
    assert_eq!(h.raters, vec!["ann".to_string(), "bob".to_string()]);
    assert_eq!(h.judgments, 2 * 6 * 3 * 3);
    let formality = h.agreement.iter().find(|a| a.scale == Scale::Formality && a.statistic.starts_with("ICC")).unwrap();
    assert!((formality.value.unwrap() - 1.0).abs() < 1e-9, "identical formality ratings ⇒ ICC 1: {formality:?}");
    let rank = h.agreement.iter().find(|a| a.scale == Scale::Rank).unwrap();
    assert!((rank.value.unwrap() - 1.0).abs() < 1e-9, "identical rankings ⇒ τ 1");
    let fluency = h.agreement.iter().find(|a| a.scale == Scale::Fluency).unwrap();
    assert!(fluency.value.unwrap() < 1.0 && fluency.value.unwrap() > 0.0, "{fluency:?}");
    assert!(h.tables.iter().any(|t| t.key == "human_correlation"));
}

#[test]
fn report_folder_has_tables_charts_and_html() {
    let (store, ids) = fixture(3, 30);
    let prep = prepared(&store, &ids, None);
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 100, ..Default::default() }).unwrap();
    let dir = std::env::temp_dir().join(format!("registro-report-test-{}", std::process::id()));
    let files = report::write_report(&cmp, None, &dir, &[report::ImageFormat::Svg, report::ImageFormat::Png]).unwrap();
    for name in ["corpus.csv", "corpus.tex", "corpus.json", "macc.md", "bars_bleu.svg", "bars_bleu.png", "heatmap_led.png", "report.html", "comparison.json"] {
        assert!(dir.join(name).is_file(), "{name} written");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("Corpus metrics"), "one-file report embeds charts and tables");
    assert!(files.files.len() > 20);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Dashboard reads per-segment statistics stored by an earlier comparison instead of recomputing them: every
/// table is the same as when everything is computed from the texts (IWSLT 2022 EN→DE references when the shared
/// data is present), and an output changed afterwards is noticed, not served stale.
#[test]
fn stored_statistics_give_the_same_comparison_as_computing_from_text() {
    let (mut store, ids) = fixture(5, 150);
    let req = CompareRequest { runs: ids.clone(), baseline: Some(ids[0]), reference: None };
    let opts = CompareOptions { bootstrap: 100, ..Default::default() };
    // Tables and charts (the LeD heatmap, the edit-type and formality charts) as the user gets them.
    let tables = |c: &report::Comparison| serde_json::to_value((&c.tables, &c.charts)).unwrap();
    let from_text = |store: &Store| report::compare(&report::prepare(report::load(store, &req).unwrap()).unwrap(), &opts).unwrap();
    let stored = |store: &mut Store| {
        let data = report::load(store, &req).unwrap();
        report::compare(&report::prepare_stored(data, store).unwrap(), &opts).unwrap()
    };

    let expected = from_text(&store);
    assert_eq!(store.segment_table_count(None).unwrap(), 0);
    let first = stored(&mut store);
    let per_run = store.segment_table_count(Some(ids[0])).unwrap();
    assert!(per_run >= 5, "BLEU, chrF, TER, M-Acc, formality and edit distances are stored: {per_run}");
    let data = report::load(&store, &req).unwrap();
    let prep = report::prepare_stored(data, &mut store).unwrap();
    report::compare(&prep, &opts).unwrap();
    report::store_computed(&prep, &mut store).unwrap();
    let per_run = store.segment_table_count(Some(ids[1])).unwrap();
    let second = stored(&mut store);
    assert_eq!(store.segment_table_count(Some(ids[1])).unwrap(), per_run, "read back, not stored again");
    assert_eq!(tables(&first), tables(&expected));
    assert_eq!(tables(&second), tables(&expected));

    // One output of the baseline changes: its statistics are recomputed, the others' are still read.
    let mut out = registro_store::Output::new(3, "Völlig anderer Text ohne jede Ähnlichkeit.");
    out.flagged = false;
    store.put_outputs(ids[0], &[out]).unwrap();
    let changed = from_text(&store);
    assert_ne!(tables(&changed), tables(&expected), "the edit changes the scores");
    assert_eq!(tables(&stored(&mut store)), tables(&changed));
}

/// Over the real IWSLT 2022 EN→DE submissions (five systems × two registers, scored and stored by `run_eval` as the
/// app's folder import does): BLEU/chrF/TER/M-Acc tables read from stored statistics equal those computed from the
/// texts, on the first (computing and storing) and the second (reading) comparison.
#[test]
fn stored_statistics_match_recomputing_on_the_real_iwslt_submissions() {
    use registro_core::eval::{discover_submissions, eval_config, run_eval, EvalSettings};
    let Some(dir) = registro_core::shared_data_dir().map(|d| d.join("iwslt2022-umd/en-de")).filter(|d| d.is_dir()) else {
        println!("skipped: IWSLT 2022 EN-DE submissions not found (set REGISTRO_SHARED_DATA)");
        return;
    };
    let loaded = discover_submissions(&dir, None).unwrap();
    let cfg = eval_config(&loaded.lang.clone().unwrap_or_default(), &loaded, &EvalSettings::default()).unwrap();
    let mut store = Store::open_in_memory().unwrap();
    let cancel = registro_core::progress::CancelToken::new();
    let ids = run_eval(Some(&mut store), "iwslt", &loaded, &cfg, &cancel, &mut |_| {}).unwrap().run_ids;
    assert!(ids.len() >= 10, "five systems × two registers, got {}", ids.len());
    let req = CompareRequest { runs: ids.clone(), baseline: Some(ids[0]), reference: None };
    let opts = CompareOptions { bootstrap: 100, ..Default::default() };
    let view = |c: &report::Comparison| serde_json::to_value((&c.tables, &c.charts)).unwrap();
    let expected = report::compare(&report::prepare(report::load(&store, &req).unwrap()).unwrap(), &opts).unwrap();
    for key in ["corpus", "macc"] {
        assert!(expected.table(key).is_some(), "{key} table");
    }
    for round in ["computed and stored", "read back"] {
        let prep = report::prepare_stored(report::load(&store, &req).unwrap(), &mut store).unwrap();
        let got = report::compare(&prep, &opts).unwrap();
        report::store_computed(&prep, &mut store).unwrap();
        assert_eq!(view(&got), view(&expected), "{round}");
        assert!(store.segment_table_count(Some(ids[0])).unwrap() >= 5, "{round}");
    }
}

/// Statistics stored when the runs are scored (as `eval` and imports do, resampled scores included) give the same
/// comparison as computing everything from the texts — CIs, p-values and markers to the last bit — under the
/// default resampling and under another; an output changed afterwards is recomputed, never served stale.
#[test]
fn statistics_stored_at_import_give_the_same_comparison_as_the_texts() {
    let (mut store, ids) = fixture(4, 120);
    let cancel = registro_core::progress::CancelToken::new();
    let done = report::store_run_statistics(&mut store, &ids, &cancel, &mut |_| {});
    assert_eq!(done.stored, ids, "skipped: {:?}", done.skipped);
    let per_run = store.segment_table_count(Some(ids[0])).unwrap();
    assert!(per_run >= 10, "statistics and their resampled scores are stored: {per_run}");
    let req = CompareRequest { runs: ids.clone(), baseline: Some(ids[1]), reference: None };
    let view = |c: &report::Comparison| serde_json::to_value((&c.tables, &c.charts)).unwrap();
    let from_text = |store: &Store, opts: &CompareOptions| report::compare(&report::prepare(report::load(store, &req).unwrap()).unwrap(), opts).unwrap();
    let stored = |store: &mut Store, opts: &CompareOptions| {
        let prep = report::prepare_stored(report::load(store, &req).unwrap(), store).unwrap();
        let cmp = report::compare(&prep, opts).unwrap();
        report::store_computed(&prep, store).unwrap();
        cmp
    };
    let other = CompareOptions { bootstrap: 300, seed: 7, render_svg: false, ..Default::default() };
    for opts in [CompareOptions { render_svg: false, ..Default::default() }, other.clone()] {
        let expected = from_text(&store, &opts);
        assert_eq!(view(&stored(&mut store, &opts)), view(&expected), "seed {}", opts.seed);
        assert_eq!(view(&stored(&mut store, &opts)), view(&expected), "seed {}, read back", opts.seed);
    }

    let mut out = registro_store::Output::new(5, "Völlig anderer Text ohne jede Ähnlichkeit.");
    out.flagged = false;
    store.put_outputs(ids[1], &[out]).unwrap();
    let changed = from_text(&store, &other);
    assert_eq!(view(&stored(&mut store, &other)), view(&changed));
}

/// A run that cannot be compared is left alone with the reason, and the others still get their statistics.
#[test]
fn runs_without_references_are_skipped_with_the_reason() {
    let (mut store, ids) = fixture(1, 20);
    let project = store.find_project("dashboard-bench").unwrap();
    let doc = store
        .insert_document(
            project.id,
            &registro_store::NewDocument {
                name: "no references".into(),
                source_lang: "en".into(),
                target_lang: Some("de".into()),
                origin: None,
                format: "eval".into(),
                segments: vec![registro_store::NewSegment { text: "Hello.".into(), references: vec![] }],
            },
        )
        .unwrap();
    let mut run = registro_store::NewRun::new(project.id, registro_store::Task::Import, "bare");
    run.document_id = Some(doc);
    let bare = store.create_run(&run).unwrap();
    store.put_outputs(bare, &[registro_store::Output::new(0, "Hallo.")]).unwrap();
    store.finish_run(bare, registro_store::RunStatus::Done, None).unwrap();
    let done = report::store_run_statistics(&mut store, &[bare, ids[0]], &registro_core::progress::CancelToken::new(), &mut |_| {});
    assert_eq!(done.stored, vec![ids[0]]);
    assert_eq!(done.skipped.len(), 1);
    assert_eq!(done.skipped[0].0, bare);
    assert!(done.skipped[0].1.contains("no references"), "{:?}", done.skipped);
}
