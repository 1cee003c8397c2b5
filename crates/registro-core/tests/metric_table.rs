//! Issue 40: a metric added through the metric table alone reaches every face. This test registers a metric that
//! exists only here — the mean character-length gap between output and reference, lower is better — and finds it
//! in eval's JSON and stored run, in the Dashboard's corpus table (with the table's direction, not a guess from its
//! name), in a bar chart, in the drill-down's menu and order, and in the stored metric's direction.
use std::sync::Arc;

use registro_core::eval::registro_metrics::descriptor::{self, Better, MetricDescriptor, Scope, TokenizerRule};
use registro_core::eval::registro_metrics::metric::{Metric, RefPrep};
use registro_core::eval::{eval_config, load_files, run_eval, EvalFiles, EvalRequest};
use registro_core::progress::CancelToken;
use registro_core::report::{self, CompareOptions, CompareRequest, DrillOptions, DrillSort, SentenceMetric};

/// |characters of the output − characters of the first reference|, averaged over the corpus.
struct LengthGap;

impl Metric for LengthGap {
    fn name(&self) -> String {
        "LenGap".into()
    }
    fn signature_fields(&self) -> Vec<(&'static str, String)> {
        vec![("unit", "chars".into())]
    }
    fn prepare_refs(&self, refs: &[&str]) -> RefPrep {
        Box::new(refs.first().map_or(0, |r| r.chars().count()))
    }
    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64> {
        let r = *refs.downcast_ref::<usize>().expect("a char count");
        vec![(hyp.chars().count() as f64 - r as f64).abs(), 1.0]
    }
    fn score(&self, stats: &[f64]) -> f64 {
        if stats[1] == 0.0 {
            0.0
        } else {
            stats[0] / stats[1]
        }
    }
    fn higher_is_better(&self) -> bool {
        false
    }
}

fn register_length_gap() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        descriptor::register(MetricDescriptor {
            key: "len_gap",
            aliases: &["len-gap"],
            label: "LenGap",
            stored_as: &[],
            better: Better::Lower,
            needs_source: false,
            needs_references: true,
            scope: Scope::Segmentwise,
            decimals: 2,
            tokenizer: TokenizerRule::None,
            on_dashboard: true,
            make: Some(Arc::new(|_lang: &str| Ok(Box::new(LengthGap) as Box<dyn Metric>))),
        })
        .expect("a new key");
    });
}

#[test]
fn a_metric_registered_in_the_table_appears_in_eval_the_dashboard_its_charts_and_the_drilldown() {
    register_length_gap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, lines: &[&str]| {
        let p = dir.path().join(name);
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        p
    };
    let src = write("test.en", &["Can you help me?", "Where is the station?", "Thank you very much.", "See you tomorrow."]);
    let reference = write("test.de", &["Kannst du mir helfen?", "Wo ist der Bahnhof?", "Vielen Dank.", "Bis morgen."]);
    // `near` matches every reference's length; `far` is longer on every segment but the last.
    let near = write("near.de", &["Kannst du mir helfen?", "Wo ist der Bahnhof?", "Vielen Dank.", "Bis morgen."]);
    let far = write("far.de", &["Kannst du mir bitte heute helfen?", "Wo genau ist der Bahnhof hier?", "Vielen herzlichen Dank.", "Bis morgen."]);

    // eval: `--metrics bleu,len-gap` finds it through the table, scores it, prints it, stores it.
    let loaded = load_files(&EvalFiles {
        hyps: vec![far.clone(), near.clone()],
        refs: vec![reference],
        src: Some(src),
        names: vec!["far".into(), "near".into()],
        ..Default::default()
    })
    .unwrap();
    let cfg = eval_config("de", &loaded, &EvalRequest { metrics: vec!["bleu".into(), "len-gap".into()], ..Default::default() }).unwrap();
    let mut store = registro_store::Store::open_in_memory().unwrap();
    let out = run_eval(Some(&mut store), "metric-table", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let json = serde_json::to_value(&out.reports).unwrap();
    // Gaps of 12, 11, 11 and 0 characters.
    let gaps = [(12.0 + 11.0 + 11.0 + 0.0) / 4.0, 0.0];
    for (i, want) in gaps.iter().enumerate() {
        let m = &json[i]["metrics"]["len_gap"];
        assert_eq!(m["name"], "LenGap", "{json}");
        assert!((m["score"].as_f64().unwrap() - want).abs() < 1e-9, "{}: {m}", json[i]["system"]);
        assert!(m["signature"].as_str().unwrap().contains("unit:chars"), "{m}");
        assert_eq!(json[i]["sentences"]["metrics"]["len_gap"].as_array().map(Vec::len), Some(4), "sentence scores in the JSON");
    }
    let stored = store.corpus_metrics(out.run_ids[0]).unwrap();
    assert!(stored.iter().any(|m| m.metric == "LenGap" && (m.value - gaps[0]).abs() < 1e-9), "stored with the run: {stored:?}");
    let params = store.run(out.run_ids[0]).unwrap().params;
    assert!(params["metrics"].as_array().unwrap().iter().any(|m| m == "len_gap"), "the run's parameters name it: {params}");

    // The Dashboard: a column in the corpus table whose better side is the table's (lower), with CIs and markers.
    let req = CompareRequest { runs: out.run_ids.clone(), baseline: Some(out.run_ids[0]), reference: None };
    let prep = report::prepare_stored(report::load(&store, &req).unwrap(), &mut store).unwrap();
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 200, ..Default::default() }).unwrap();
    let corpus = cmp.table("corpus").unwrap();
    let col = corpus.columns.iter().position(|c| c.key == "len_gap").expect("a LenGap column");
    assert_eq!(corpus.columns[col].label, "LenGap");
    assert_eq!(corpus.columns[col].higher_is_better, Some(false), "lower is better, from the table");
    let values: Vec<f64> = corpus.rows.iter().map(|r| r.cells[col].value.unwrap()).collect();
    assert!((values[0] - gaps[0]).abs() < 1e-9 && values[1].abs() < 1e-9, "the Dashboard's numbers are eval's: {values:?}");
    assert!(corpus.rows[1].cells[col].ci.is_some(), "a 95% CI like BLEU's");
    assert!(corpus.notes.iter().any(|n| n.starts_with("LenGap: ") && n.contains("unit:chars")), "its signature: {:?}", corpus.notes);
    assert_eq!(corpus.columns.iter().filter(|c| c.label == "LenGap").count(), 1, "not repeated as a stored extra");

    // A bar chart of it, titled with its direction.
    let chart = cmp.chart("bars_len_gap").expect("a LenGap bar chart");
    assert!(chart.title.contains("LenGap") && chart.title.contains("lower is better"), "{}", chart.title);
    assert!(chart.svg.as_deref().is_some_and(|s| s.contains("<svg")), "rendered");

    // The drill-down offers it and ranks by it the right way round: `near` (B) is better where its gap is smaller.
    assert!(cmp.sentence_metrics.iter().any(|m| m.key.key() == "len_gap" && m.label == "sentence LenGap"), "{:?}", cmp.sentence_metrics);
    let page = report::drilldown(
        &prep,
        &DrillOptions {
            a: out.run_ids[0],
            b: out.run_ids[1],
            metric: SentenceMetric("len_gap".into()),
            sort: DrillSort::Improved,
            offset: 0,
            limit: 10,
        },
    )
    .unwrap();
    assert_eq!((page.improved, page.worsened), (3, 0), "B is better on the three segments where A is longer");
    assert_eq!(page.segments[0].index, 0, "the largest improvement (a gap of 12 characters) first");
    assert!(page.segments[0].diff > 0.0 && page.segments[0].b.score < page.segments[0].a.score);
    assert!(page.metric_label.contains("lower is better"), "{}", page.metric_label);

    // A number stored under its label has the table's direction wherever the Dashboard shows it.
    assert_eq!(report::stored_metric_direction("LenGap", [Some("formal")]).higher_is_better, Some(false));
}
