//! Aggregation of a prepared comparison: corpus scores with 95% CIs and significance against the baseline, the
//! M-Acc and edit-type tables, and the charts.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use registro_metrics::edits::{edit_type_counts, EditType};
use registro_metrics::evaluate::MetricName;
use registro_metrics::Metric;
use registro_report::{Cell, Chart, Column, Table};
use serde::{Deserialize, Serialize};

use super::direction::{formality_direction, metric_direction, stored_metric_direction, Direction};
use super::prepare::{stop_if_cancelled, Prepared, SentenceMetric};
use super::resampled::{resampled, Stat};
use crate::progress::{Progress, ProgressFn};

use super::significance::{corpus_from_scores, corpus_test, paired_bootstrap, PairedResult, PairedTest};

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct CompareOptions {
    /// Bootstrap resamples (sacrebleu's default is 1000); 0 skips CIs and significance.
    #[ts(optional = nullable)]
    pub bootstrap: usize,
    #[ts(optional = nullable)]
    pub seed: u64,
    /// Bootstrap or approximate randomization for BLEU/chrF/TER (M-Acc and formality always bootstrap).
    #[ts(optional = nullable)]
    pub test: PairedTest,
    /// Significance level for the markers: `*` below it, `**` below 0.01, `***` below 0.001 (`†` … when worse).
    #[ts(optional = nullable)]
    pub alpha: f64,
    /// Render every chart to SVG (the app shows them; `registro report` writes files).
    #[ts(optional = nullable)]
    pub render_svg: bool,
    #[ts(optional = nullable)]
    pub chart_size: (u32, u32),
    /// Leave out tables that cost a pass over every segment of every system (edit types) unless they were computed
    /// before; they are listed in [`Comparison::pending_tables`] and built by [`complete_table`] when the page
    /// shows them. The app sets it; a written report builds everything.
    #[ts(optional = nullable)]
    pub lazy_tables: bool,
}

impl CompareOptions {
    /// The limits both faces' options are held to (`registro report`'s flags, the Dashboard's form): a resample
    /// count the bootstrap can hold, a significance level strictly between 0 and 1.
    pub fn validate(&self) -> Result<()> {
        if self.bootstrap > crate::eval::MAX_SIG_SAMPLES {
            anyhow::bail!("{} bootstrap resamples: at most {} (0 = no CIs)", self.bootstrap, crate::eval::MAX_SIG_SAMPLES);
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            anyhow::bail!("significance level {}: give a number between 0 and 1 (e.g. 0.05)", self.alpha);
        }
        Ok(())
    }
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions { bootstrap: 1000, seed: 12345, test: PairedTest::Bootstrap, alpha: 0.05, render_svg: true, chart_size: registro_report::charts::DEFAULT_SIZE, lazy_tables: false }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct SystemInfo {
    pub run_id: i64,
    pub label: String,
    pub system: String,
    pub task: String,
    pub register: Option<String>,
    pub model_id: Option<String>,
    pub created_at: String,
    pub references: Vec<String>,
    /// Segments without an output (scored as empty).
    pub missing: usize,
    pub baseline: bool,
}

/// A label a chart draws and the full name it stands for (the page shows the key with the chart; hovering a short
/// label there, or the system's column in the SVG, shows the full name).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct ChartLabel {
    pub short: String,
    pub full: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct NamedChart {
    pub key: String,
    pub title: String,
    pub chart: Chart,
    /// The names the chart draws, short and full ([`Chart::label_key`]).
    #[serde(default)]
    pub labels: Vec<ChartLabel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct Comparison {
    pub document: String,
    pub segments: usize,
    pub source_lang: String,
    pub target_lang: String,
    pub baseline_run: i64,
    pub systems: Vec<SystemInfo>,
    pub tables: Vec<Table>,
    /// Tables not built yet (see [`CompareOptions::lazy_tables`]), in the order they belong after `tables`.
    pub pending_tables: Vec<PendingTable>,
    pub charts: Vec<NamedChart>,
    /// The sentence scores the drill-down can sort by, in the metric table's order.
    #[serde(default)]
    pub sentence_metrics: Vec<MetricChoice>,
    /// Where the time went, in milliseconds (prepare steps and this aggregation).
    pub timings_ms: BTreeMap<String, f64>,
}

impl Comparison {
    pub fn table(&self, key: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.key == key)
    }
    pub fn chart(&self, key: &str) -> Option<&NamedChart> {
        self.charts.iter().find(|c| c.key == key)
    }
}

/// A sentence score the drill-down offers: its key and what the menu calls it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct MetricChoice {
    pub key: SentenceMetric,
    pub label: String,
}

/// A table of the comparison that [`complete_table`] builds on request.
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct PendingTable {
    pub key: String,
    pub title: String,
    /// Systems whose rows still need computing (the others were computed before).
    pub to_compute: usize,
}

/// How a 95% interval is computed, as the tables and charts name it.
pub const CI_METHOD: &str = "bootstrap percentile width: the resamples' mean ± half the distance between their 2.5th and 97.5th percentiles (sacrebleu's interval), clipped to the metric's range";

/// One corpus metric evaluated for every system: full-set score and bootstrap result.
pub(super) struct MetricRow {
    pub(super) key: &'static str,
    pub(super) label: String,
    /// Which way is better ([`super::direction`]): the metric's own, or for formality the runs' register.
    pub(super) direction: Direction,
    /// The values the score can take; intervals are clipped to it.
    range: (f64, f64),
    decimals: usize,
    /// Per system: `None` where the metric does not apply (e.g. M-Acc without a register).
    pub(super) values: Vec<Option<(f64, Option<PairedResult>)>>,
    signature: Option<String>,
}

impl MetricRow {
    /// Every interval clipped to the metric's range (sacrebleu's is centred on the resamples' mean, so an accuracy
    /// near 100 would read "[98.6, 100.1]").
    fn clip_intervals(mut self) -> Self {
        let (lo, hi) = self.range;
        for (_, res) in self.values.iter_mut().flatten() {
            if let Some(r) = res {
                r.ci = (r.ci.0.clamp(lo, hi), r.ci.1.clamp(lo, hi));
            }
        }
        self
    }
}

/// The significance marker of a value against the baseline's (levels: `registro_report::significance_marker`)
/// and the p-value shown with it. Better or worse is `higher`'s side ([`Direction`]); a metric with no better side
/// (formality over runs asking for different registers) gets no marker, only its p-value.
pub(super) fn marker(res: &Option<PairedResult>, value: f64, base: Option<f64>, higher: Option<bool>, alpha: f64) -> (String, Option<f64>) {
    match (res.and_then(|r| r.p), base, higher) {
        (Some(p), Some(b), Some(higher)) => {
            let better = if higher { value > b } else { value < b };
            (registro_report::significance_marker(p, better, alpha), Some(p))
        }
        (p, _, _) => (String::new(), p),
    }
}

pub fn compare(prep: &Prepared, opts: &CompareOptions) -> Result<Comparison> {
    compare_with(prep, opts, &AtomicBool::new(false))
}

/// [`compare`] that stops with an error between its steps (resampling, each system's edit types, charts) once
/// `cancel` is set.
pub fn compare_with(prep: &Prepared, opts: &CompareOptions, cancel: &AtomicBool) -> Result<Comparison> {
    opts.validate()?;
    stop_if_cancelled(cancel)?;
    let t0 = Instant::now();
    let data = &prep.data;
    let k = data.systems.len();
    let n = data.segments();
    let base = data.baseline;
    let resampling = opts.bootstrap > 0 && n > 1;

    // Every resampled statistic (BLEU, chrF and TER under the bootstrap test, M-Acc, formality means): each
    // system's from the store or an earlier comparison, the rest in one pass over the shared resample indices;
    // the engine's test gives each metric's CIs and p-values from these.
    let corpus_metrics: [&dyn Metric; 3] = [&prep.bleu_metric, &prep.chrf_metric, &prep.ter_metric];
    let corpus_stats: [Vec<&registro_metrics::SegmentStats>; 3] = [
        prep.systems.iter().map(|s| &s.bleu.stats).collect(),
        prep.systems.iter().map(|s| &s.chrf.stats).collect(),
        prep.systems.iter().map(|s| &s.ter.stats).collect(),
    ];
    let formality_real: Vec<Option<f64>> = prep.systems.iter().map(|s| finite_mean(&s.formality)).collect();
    let mut jobs: Vec<(usize, Stat)> = Vec::new();
    // Where each system's result lies in `jobs`, per metric.
    let mut corpus_at: [Vec<usize>; 3] = Default::default();
    let mut macc_at: Vec<Option<usize>> = vec![None; k];
    let mut formality_at: Vec<Option<usize>> = vec![None; k];
    if resampling {
        if opts.test == PairedTest::Bootstrap {
            for (m, stat) in [Stat::Bleu, Stat::Chrf, Stat::Ter].into_iter().enumerate() {
                for i in 0..k {
                    corpus_at[m].push(jobs.len());
                    jobs.push((i, stat));
                }
            }
        }
        for i in 0..k {
            if prep.macc_metrics[i].is_some() && prep.systems[i].macc.is_some() {
                macc_at[i] = Some(jobs.len());
                jobs.push((i, Stat::Macc));
            }
        }
        if formality_real.iter().all(|r| r.is_some()) {
            for (i, at) in formality_at.iter_mut().enumerate() {
                *at = Some(jobs.len());
                jobs.push((i, Stat::Formality));
            }
        }
    }
    let mut boot: Vec<Option<Vec<f64>>> = if resampling && !jobs.is_empty() {
        resampled(prep, &jobs, opts.bootstrap, opts.seed).into_iter().map(|s| s.map(|s| s.to_vec())).collect()
    } else {
        Vec::new()
    };
    stop_if_cancelled(cancel)?;
    let mut take = |at: Option<usize>| at.and_then(|j| boot[j].take());

    // Every metric the table puts on the Dashboard, in the table's order: BLEU, chrF and TER (the engine's paired
    // test over all systems at once), M-Acc, formality, then the metrics registered at run time.
    let nrefs = data.systems[base].refs.len();
    let registers = || data.systems.iter().map(|s| s.run.register.as_deref());
    let mut rows: Vec<MetricRow> = Vec::with_capacity(5);
    for d in registro_metrics::descriptor::all().into_iter().filter(|d| d.on_dashboard) {
        let builtin = match d.name() {
            MetricName::Bleu => Some(0),
            MetricName::Chrf => Some(1),
            MetricName::Ter => Some(2),
            _ => None,
        };
        if let Some(m) = builtin {
            let scores: Option<Vec<Vec<f64>>> = (!corpus_at[m].is_empty()).then(|| corpus_at[m].iter().map(|&j| take(Some(j)).expect("resampled")).collect());
            let dir = metric_direction(d.better, registers());
            rows.push(corpus_row(d.key, &corpus_metrics[m].name(), dir, d.decimals, corpus_metrics[m], &corpus_stats[m], base, opts, nrefs, scores.as_deref())?);
        } else if let Some(at) = prep.registered.iter().position(|(r, _)| r.key == d.key) {
            let metric = prep.registered[at].1.as_ref();
            let stats: Vec<&registro_metrics::SegmentStats> = prep.systems.iter().map(|s| &s.registered[at].stats).collect();
            let dir = metric_direction(d.better, registers());
            rows.push(corpus_row(d.key, d.label, dir, d.decimals, metric, &stats, base, opts, nrefs, None)?);
        } else if d.name() == MetricName::MAcc {
            if let Some(row) = macc_row(prep, d, &mut take, &macc_at) {
                rows.push(row);
            }
        } else if d.name() == MetricName::Formality {
            let real = formality_real.clone();
            let boots: Vec<Option<Vec<f64>>> = (0..k).map(|i| take(formality_at[i])).collect();
            let values = against_baseline(&real, &boots, base);
            let dir = metric_direction(d.better, registers());
            rows.push(MetricRow {
                key: "formality",
                label: d.label.into(),
                range: prep.systems.first().and_then(|s| s.formality_range).unwrap_or((f64::NEG_INFINITY, f64::INFINITY)),
                decimals: d.decimals,
                values,
                signature: prep.systems.first().map(|s| format!("formality: {}; {}", s.formality_source, dir.label())),
                direction: dir,
            });
        }
    }
    let formality_dir = formality_direction(registers());
    let rows: Vec<MetricRow> = rows.into_iter().map(MetricRow::clip_intervals).collect();
    // Corpus metrics other tools stored for these runs (perplexity, similarity, COMET…), shown as they are; the
    // ones the Dashboard computes itself (and chrF/BLEU variants) are not repeated.
    let computed = |k: &str| registro_metrics::descriptor::find(k).is_some_and(|d| d.on_dashboard);
    let mut extra: Vec<String> = data
        .systems
        .iter()
        .flat_map(|s| s.stored.iter().filter(|(_, m)| m.corpus.is_some()).map(|(k, _)| k.clone()))
        .filter(|k| !computed(k) && !k.to_lowercase().starts_with("chrf") && !k.to_lowercase().starts_with("bleu"))
        .collect();
    extra.sort();
    extra.dedup();

    let bt = t0.elapsed().as_secs_f64() * 1e3;

    // ---- corpus table
    let mut columns = vec![Column::new("system", "System"), Column::new("register", "Register")];
    for r in &rows {
        columns.push(Column { higher_is_better: r.direction.higher_is_better, ..Column::metric(r.key, r.label.clone(), true, r.decimals) });
    }
    for e in &extra {
        let dir = stored_metric_direction(e, data.systems.iter().map(|s| s.run.register.as_deref()));
        columns.push(Column { higher_is_better: dir.higher_is_better, ..Column::metric(e.clone(), e.clone(), true, 2) });
    }
    let mut corpus = Table::new("corpus", "Corpus metrics (95% bootstrap CI)", columns);
    for (i, s) in data.systems.iter().enumerate() {
        let mut cells = vec![
            Cell::text(if i == base { format!("{} (baseline)", s.label) } else { s.label.clone() }),
            Cell::text(s.run.register.clone().unwrap_or_default()),
        ];
        for r in &rows {
            cells.push(match &r.values[i] {
                None => Cell::empty(),
                Some((v, res)) => {
                    let mut c = Cell::num(*v);
                    if let Some(res) = res {
                        c = c.with_ci(res.ci.0, res.ci.1);
                    }
                    let base_v = r.values[base].as_ref().map(|x| x.0);
                    let (m, p) = if i == base { (String::new(), None) } else { marker(res, *v, base_v, r.direction.higher_is_better, opts.alpha) };
                    c.with_marker(m, p)
                }
            });
        }
        for e in &extra {
            cells.push(s.stored.get(e).and_then(|m| m.corpus).map(Cell::num).unwrap_or_default());
        }
        corpus.push(s.run.id.to_string(), cells)?;
    }
    for r in &rows {
        if let Some(sig) = &r.signature {
            corpus.notes.push(format!("{}: {sig}", r.label));
        }
    }
    if resampling {
        corpus.notes.push(format!(
            "95% CI from {} bootstrap resamples (seed {}), {CI_METHOD}; significance against the baseline {} (paired {}): {}.",
            opts.bootstrap,
            opts.seed,
            data.systems[base].label,
            match opts.test {
                PairedTest::Bootstrap => "bootstrap resampling",
                PairedTest::Randomization => "approximate randomization",
            },
            registro_report::significance_legend(opts.alpha)
        ));
    }
    let missing: Vec<String> =
        data.systems.iter().filter(|s| s.missing > 0).map(|s| format!("{}: {} of {n}", s.label, s.missing)).collect();
    if !missing.is_empty() {
        corpus.notes.push(format!("Segments without output, scored as empty: {}", missing.join("; ")));
    }

    let mut tables = vec![corpus];

    // ---- M-Acc counts
    if prep.systems.iter().any(|s| s.macc.is_some()) {
        let mut t = Table::new(
            "macc",
            "Matched accuracy (CoCoA-MT): label counts",
            vec![
                Column::new("system", "System"),
                Column::new("register", "Register"),
                // More FORMAL labels are better for formal runs, more INFORMAL ones for informal runs.
                Column { higher_is_better: formality_dir.higher_is_better, ..Column::metric("formal", "FORMAL", true, 0) },
                Column { higher_is_better: formality_dir.higher_is_better.map(|h| !h), ..Column::metric("informal", "INFORMAL", true, 0) },
                Column::metric("neutral", "NEUTRAL", false, 0),
                Column::metric("other", "OTHER", false, 0),
                Column::metric("macc", "M-Acc", true, 1),
            ],
        );
        for (i, (s, p)) in data.systems.iter().zip(&prep.systems).enumerate() {
            let Some((_, labels)) = &p.macc else { continue };
            let c = label_counts(labels);
            let acc = rows.iter().find(|r| r.key == "macc").and_then(|r| r.values[i].as_ref()).map(|v| v.0);
            t.push(
                s.run.id.to_string(),
                vec![
                    Cell::text(s.label.clone()),
                    Cell::text(s.run.register.clone().unwrap_or_default()),
                    Cell::num(c[0]),
                    Cell::num(c[1]),
                    Cell::num(c[2]),
                    Cell::num(c[3]),
                    acc.map(Cell::num).unwrap_or_default(),
                ],
            )?;
        }
        t.notes.push("Accuracy counts FORMAL and INFORMAL only: correct / (FORMAL + INFORMAL) for the requested register.".into());
        tables.push(t);
    }

    // ---- edit types (XFORMAL Table 4)
    let mut pending_tables = Vec::new();
    let missing = edit_types_missing(prep);
    if opts.lazy_tables && missing > 0 {
        pending_tables.push(PendingTable { key: EDIT_TYPES.into(), title: EDIT_TYPES_TITLE.into(), to_compute: missing });
    } else {
        tables.push(edit_types_table(prep, cancel, &mut |_| {})?);
    }
    let tt = t0.elapsed().as_secs_f64() * 1e3 - bt;

    // ---- charts
    stop_if_cancelled(cancel)?;
    let t2 = Instant::now();
    let charts = super::charts::build(prep, &rows, &extra, opts.alpha)?;
    let mut named = Vec::with_capacity(charts.len());
    for (key, chart) in charts {
        let svg = if opts.render_svg { Some(chart.to_svg(opts.chart_size)?) } else { None };
        let labels = chart.label_key().into_iter().map(|(short, full)| ChartLabel { short, full }).collect();
        named.push(NamedChart { key, title: chart.title().to_string(), chart, labels, svg });
    }
    let ct = t2.elapsed().as_secs_f64() * 1e3;

    let mut timings = prep.timings_ms.iter().map(|(k, v)| (format!("prepare.{k}"), *v)).collect::<BTreeMap<_, _>>();
    timings.insert("compare.bootstrap".into(), bt);
    timings.insert("compare.tables".into(), tt);
    timings.insert("compare.charts".into(), ct);

    Ok(Comparison {
        document: data.document.name.clone(),
        segments: n,
        source_lang: data.source_lang.clone(),
        target_lang: data.target_lang.clone(),
        baseline_run: data.systems[base].run.id,
        systems: data
            .systems
            .iter()
            .enumerate()
            .map(|(i, s)| SystemInfo {
                run_id: s.run.id,
                label: s.label.clone(),
                system: s.run.system.clone(),
                task: s.run.task.to_string(),
                register: s.run.register.clone(),
                model_id: s.run.model_id.clone(),
                created_at: s.run.created_at.clone(),
                references: s.ref_names.clone(),
                missing: s.missing,
                baseline: i == base,
            })
            .collect(),
        tables,
        pending_tables,
        charts: named,
        sentence_metrics: prep.sentence_metrics().into_iter().map(|m| MetricChoice { label: m.label(), key: m }).collect(),
        timings_ms: timings,
    })
}

const EDIT_TYPES: &str = "edit_types";
const EDIT_TYPES_TITLE: &str = "Edit types (% of segments)";

/// The edit-type rows of the comparison: (from, to) per system — from the inputs for same-language tasks, from the
/// baseline's output for translations (the baseline itself has no row).
fn edit_type_keys(prep: &Prepared) -> Vec<(Option<usize>, usize)> {
    let same_lang = prep.levenshtein_from_input;
    let base = prep.data.baseline;
    (0..prep.data.systems.len()).filter(|&i| same_lang || i != base).map(|i| (if same_lang { None } else { Some(base) }, i)).collect()
}

fn cached_edit_types(prep: &Prepared, key: &(Option<usize>, usize)) -> Option<Vec<(EditType, usize)>> {
    let computed = prep.edit_types.lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned();
    computed.or_else(|| prep.stored_edit_types.get(key).cloned())
}

/// How many systems' edit types are neither stored nor computed yet.
fn edit_types_missing(prep: &Prepared) -> usize {
    edit_type_keys(prep).iter().filter(|k| cached_edit_types(prep, k).is_none()).count()
}

/// The edit-types table (XFORMAL Table 4): each system's counts from the cache or computed now (reporting each
/// system on `progress`, stopping at the next one once `cancel` is set).
fn edit_types_table(prep: &Prepared, cancel: &AtomicBool, progress: ProgressFn) -> Result<Table> {
    let data = &prep.data;
    let n = data.segments();
    let base = data.baseline;
    let same_lang = prep.levenshtein_from_input;
    let mut cols = vec![Column::new("system", "System")];
    for e in EditType::ALL {
        cols.push(Column::metric(e.as_str(), e.as_str().replace('_', " "), true, 1));
    }
    let mut t = Table::new(EDIT_TYPES, EDIT_TYPES_TITLE, cols);
    let keys = edit_type_keys(prep);
    for (done, key) in keys.iter().enumerate() {
        stop_if_cancelled(cancel)?;
        let s = &data.systems[key.1];
        let counts = match cached_edit_types(prep, key) {
            Some(c) => c,
            None => {
                progress(Progress { done: done as u64, total: keys.len() as u64, message: format!("edit types of {}", s.label) });
                let pairs: Vec<(String, String)> = (0..n)
                    .map(|j| {
                        let old = if same_lang { data.sources[j].clone() } else { data.systems[base].outputs[j].clone() };
                        (old, s.outputs[j].clone())
                    })
                    .collect();
                let c = edit_type_counts(&pairs, &data.target_lang);
                prep.edit_types.lock().unwrap_or_else(|p| p.into_inner()).insert(*key, c.clone());
                c
            }
        };
        let mut cells = vec![Cell::text(s.label.clone())];
        cells.extend(counts.iter().map(|(_, c)| Cell::num(100.0 * *c as f64 / n.max(1) as f64)));
        t.push(s.run.id.to_string(), cells)?;
    }
    t.notes.push(if same_lang {
        "Edits from each input to the system's output.".to_string()
    } else {
        format!("Edits from the baseline's output ({}) to each system's output.", data.systems[base].label)
    });
    Ok(t)
}

/// Builds the pending table `key` of `cmp` (a comparison of `prep` made with [`CompareOptions::lazy_tables`]),
/// puts it among `cmp.tables` and returns it; a table already built is returned as it is.
pub fn complete_table(prep: &Prepared, cmp: &mut Comparison, key: &str, cancel: &AtomicBool, progress: ProgressFn) -> Result<Table> {
    if let Some(t) = cmp.table(key) {
        return Ok(t.clone());
    }
    if !cmp.pending_tables.iter().any(|p| p.key == key) {
        anyhow::bail!("the comparison has no table {key:?}");
    }
    if prep.data.systems[prep.data.baseline].run.id != cmp.baseline_run {
        anyhow::bail!("the comparison on screen is not the one loaded: compare again");
    }
    let table = match key {
        EDIT_TYPES => edit_types_table(prep, cancel, progress)?,
        other => anyhow::bail!("the comparison has no table {other:?}"),
    };
    cmp.pending_tables.retain(|p| p.key != key);
    cmp.tables.push(table.clone());
    Ok(table)
}

/// Builds every pending table of `cmp` (before a report is written: it holds every table).
pub fn complete_tables(prep: &Prepared, cmp: &mut Comparison, cancel: &AtomicBool, progress: ProgressFn) -> Result<()> {
    for key in cmp.pending_tables.iter().map(|p| p.key.clone()).collect::<Vec<_>>() {
        complete_table(prep, cmp, &key, cancel, progress)?;
    }
    Ok(())
}

/// One corpus metric's row. `boot`: every system's resampled scores when the bootstrap test was batched with
/// the other metrics (else the engine's test runs here: approximate randomization).
#[allow(clippy::too_many_arguments)]
fn corpus_row(
    key: &'static str,
    label: &str,
    direction: Direction,
    decimals: usize,
    metric: &dyn Metric,
    stats: &[&registro_metrics::SegmentStats],
    base: usize,
    opts: &CompareOptions,
    nrefs: usize,
    boot: Option<&[Vec<f64>]>,
) -> Result<MetricRow> {
    let n = stats.first().map_or(0, |s| s.len());
    let tests = match boot {
        Some(b) => Some(corpus_from_scores(metric, stats, base, b)),
        None if opts.bootstrap > 0 && n > 1 => Some(corpus_test(metric, stats, base, opts.test, opts.bootstrap, opts.seed)?),
        None => None,
    };
    let values = (0..stats.len()).map(|i| Some((metric.score(&stats[i].sum()), tests.as_ref().map(|t| t[i])))).collect();
    Ok(MetricRow {
        key,
        label: label.to_string(),
        direction,
        range: metric.range(),
        decimals,
        values,
        signature: Some(registro_metrics::signature(metric, &registro_metrics::NRefs::Fixed(nrefs), &sig_resampling(opts))),
    })
}

fn sig_resampling(opts: &CompareOptions) -> registro_metrics::SigResampling {
    if opts.bootstrap == 0 {
        return Default::default();
    }
    match opts.test {
        PairedTest::Bootstrap => registro_metrics::SigResampling { bs: Some(opts.bootstrap), ar: None, seed: Some(opts.seed.to_string()) },
        PairedTest::Randomization => registro_metrics::SigResampling { bs: Some(opts.bootstrap), ar: Some(opts.bootstrap), seed: Some(opts.seed.to_string()) },
    }
}

pub(super) fn finite_mean(v: &[f64]) -> Option<f64> {
    let f: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    (!f.is_empty()).then(|| f.iter().sum::<f64>() / f.len() as f64)
}

pub(super) fn label_counts(labels: &[registro_metrics::macc::Label]) -> [f64; 4] {
    use registro_metrics::macc::Label;
    let mut c = [0.0; 4];
    for l in labels {
        c[match l {
            Label::Formal => 0,
            Label::Informal => 1,
            Label::Neutral => 2,
            Label::Other => 3,
        }] += 1.0;
    }
    c
}

/// M-Acc's row: each run is scored for its own register (the metric object only differs in that); `None` when no
/// run has one.
fn macc_row(
    prep: &Prepared,
    d: &registro_metrics::MetricDescriptor,
    take: &mut impl FnMut(Option<usize>) -> Option<Vec<f64>>,
    macc_at: &[Option<usize>],
) -> Option<MetricRow> {
    let first = prep.macc_metrics.iter().flatten().next()?;
    let k = prep.systems.len();
    let real: Vec<Option<f64>> = (0..k)
        .map(|i| match (&prep.macc_metrics[i], &prep.systems[i].macc) {
            (Some(m), Some((s, _))) => Some(m.score(&s.stats.sum())),
            _ => None,
        })
        .collect();
    let boots: Vec<Option<Vec<f64>>> = (0..k).map(|i| take(macc_at[i])).collect();
    let values = against_baseline(&real, &boots, prep.data.baseline);
    let signature = prep.systems.iter().find_map(|s| s.macc.as_ref().map(|m| m.0.signature.clone()));
    Some(MetricRow {
        key: "macc",
        label: d.label.into(),
        direction: metric_direction(d.better, prep.data.systems.iter().map(|s| s.run.register.as_deref())),
        range: first.range(),
        decimals: d.decimals,
        values,
        signature,
    })
}

/// Each system's real score with its CI, and a p-value against the baseline's resamples where both exist.
fn against_baseline(real: &[Option<f64>], boots: &[Option<Vec<f64>>], base: usize) -> Vec<Option<(f64, Option<PairedResult>)>> {
    (0..real.len())
        .map(|i| {
            let v = real[i]?;
            let res = boots[i].as_ref().map(|b| {
                let bp = match (i != base, real[base], boots[base].as_ref()) {
                    (true, Some(br), Some(bb)) => Some((br, bb.as_slice())),
                    _ => None,
                };
                paired_bootstrap(v, b, bp)
            });
            Some((v, res))
        })
        .collect()
}
