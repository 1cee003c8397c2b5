//! Per-segment work done once per loaded comparison: sufficient statistics of every corpus metric (so corpus
//! scores and resampling only re-sum), sentence-level scores for the drill-down, M-Acc labels, formality scores,
//! edit distances and the lexical difference between every pair of systems.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use registro_metrics::macc::{Label, MatchedAccuracy, Register as MaccRegister};
use registro_metrics::{corpus_stats, prepare_refs, Bleu, Chrf, Metric, MetricDescriptor, NRefs, SegmentStats, Ter};
use registro_store::{fingerprint, RunId, SegmentTable, Store};
use serde::{Deserialize, Serialize};

use super::data::ComparisonData;
use super::resampled::{ResampledCache, TableRef};
use crate::progress::{Progress, ProgressFn};

/// A sentence-level score the drill-down can sort by and human ratings are correlated with: the key of a metric
/// in the table ([`registro_metrics::descriptor`]) that the Dashboard computes per sentence — `bleu`, `chrf`,
/// `ter`, `formality`, and any metric registered with `on_dashboard`.
/// Serialized as the bare key (a newtype).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub struct SentenceMetric(#[ts(as = "String")] pub Cow<'static, str>);

impl SentenceMetric {
    pub const BLEU: SentenceMetric = SentenceMetric(Cow::Borrowed("bleu"));
    pub const CHRF: SentenceMetric = SentenceMetric(Cow::Borrowed("chrf"));
    pub const TER: SentenceMetric = SentenceMetric(Cow::Borrowed("ter"));
    pub const FORMALITY: SentenceMetric = SentenceMetric(Cow::Borrowed("formality"));

    pub fn key(&self) -> &str {
        &self.0
    }

    /// The metric's row of the table, if it has one.
    pub fn descriptor(&self) -> Option<&'static MetricDescriptor> {
        registro_metrics::descriptor::find(&self.0)
    }

    /// Which way is better between systems asking for these registers: the table's direction (TER down, BLEU and
    /// chrF up, formality the registers' side, [`super::direction::metric_direction`]).
    pub fn direction<'a>(&self, registers: impl IntoIterator<Item = Option<&'a str>>) -> super::direction::Direction {
        let better = self.descriptor().map_or(registro_metrics::Better::Neither, |d| d.better);
        super::direction::metric_direction(better, registers)
    }

    pub fn label(&self) -> String {
        match self.descriptor() {
            Some(d) if d.better == registro_metrics::Better::Register => d.label.to_lowercase(),
            Some(d) => format!("sentence {}", d.label),
            None => self.0.to_string(),
        }
    }
}

/// A corpus metric's per-segment statistics for one system, and how to turn sums into a score.
pub struct MetricStats {
    pub stats: SegmentStats,
    pub signature: String,
}

pub struct PreparedSystem {
    pub bleu: MetricStats,
    pub chrf: MetricStats,
    pub ter: MetricStats,
    /// The statistics of each metric registered for the Dashboard ([`Prepared::registered`]), in that order.
    pub registered: Vec<MetricStats>,
    /// M-Acc for the run's register, when the document has annotated references and the run a register.
    pub macc: Option<(MetricStats, Vec<Label>)>,
    pub sentence: HashMap<SentenceMetric, Vec<f64>>,
    /// Formality of each output (PT16 scale, −3..3); from the store when a model scored it, else the built-in
    /// lexical scorer.
    pub formality: Vec<f64>,
    pub formality_source: String,
    /// The values the formality scale can take (low, high), where known: its CI is clipped to it.
    pub formality_range: Option<(f64, f64)>,
    /// Character edit distance from the input (same-language tasks) or from the first reference (translation).
    pub levenshtein: Vec<f64>,
}

pub struct Prepared {
    pub data: ComparisonData,
    pub systems: Vec<PreparedSystem>,
    pub source_formality: Vec<f64>,
    /// Source length in whitespace tokens (for length buckets).
    pub source_len: Vec<usize>,
    /// Mean lexical difference (LeD, percent, the metric engine's definition) between pairs of systems' outputs,
    /// computed for the pairs a chart shows ([`Prepared::led_matrix`]).
    pub(crate) led: super::led::LedCache,
    /// Whether `levenshtein` measures input→output (true) or output→reference (false).
    pub levenshtein_from_input: bool,
    pub bleu_metric: Bleu,
    pub chrf_metric: Chrf,
    pub ter_metric: Ter,
    /// The metrics added to the table at run time that the Dashboard shows (`on_dashboard`), with their scorers
    /// for the target language.
    pub registered: Vec<(&'static MetricDescriptor, Box<dyn Metric>)>,
    pub macc_metrics: Vec<Option<MatchedAccuracy>>,
    pub timings_ms: BTreeMap<String, f64>,
    /// Edit-type counts already computed by [`compare`](super::compare), keyed by (from: the baseline's index for
    /// translations, `None` for the inputs; to: the system's index): changing the baseline back, α, the test or
    /// the resamples then costs nothing for this table. Counts only depend on the texts, which never change here.
    pub(crate) edit_types: EditTypeCache,
    /// Edit-type counts read from the store (for the default baseline), consulted after `edit_types`; they survive
    /// [`Prepared::clear_caches`] as they would a restart.
    pub(crate) stored_edit_types: HashMap<(Option<usize>, usize), Vec<(registro_metrics::edits::EditType, usize)>>,
    /// Each system's bootstrap-resampled scores, from the store or computed by a comparison.
    pub(crate) resampled: ResampledCache,
}

pub(crate) type EditTypeCache = std::sync::Mutex<HashMap<(Option<usize>, usize), Vec<(registro_metrics::edits::EditType, usize)>>>;

/// Where the edit-type counts from `from` (the inputs when `None`) to system `to` are stored.
fn edit_types_key(data: &ComparisonData, from: Option<usize>, to: usize) -> (RunId, String, String) {
    let old: Vec<&str> = match from {
        None => data.sources.iter().map(String::as_str).collect(),
        Some(f) => data.systems[f].outputs.iter().map(String::as_str).collect(),
    };
    let from_name = from.map_or("input".to_string(), |f| data.systems[f].run.id.to_string());
    let fp = fingerprint(old.into_iter().chain(["\u{0}"]).chain(data.systems[to].outputs.iter().map(String::as_str)));
    (data.systems[to].run.id, format!("edit_types|from:{from_name}|{}", data.target_lang), fp)
}

/// Stores the edit-type counts this comparison computed, so the next opening of the same runs reads them.
pub fn store_computed(prep: &Prepared, store: &mut Store) -> Result<()> {
    let computed = prep.edit_types.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let rows: Vec<(RunId, String, String, SegmentTable)> = computed
        .into_iter()
        .filter(|(k, _)| !prep.stored_edit_types.contains_key(k))
        .map(|((from, to), counts)| {
            let (run, key, fp) = edit_types_key(&prep.data, from, to);
            (run, versioned(&key), fp, SegmentTable { width: counts.len(), values: counts.iter().map(|(_, c)| *c as f64).collect() })
        })
        .chain(prep.resampled.to_store())
        .chain(prep.led.to_store().into_iter().map(|(run, key, fp, t)| (run, versioned(&key), fp, t)))
        .collect();
    if !rows.is_empty() {
        store.put_segment_tables(&rows)?;
    }
    Ok(())
}

impl Prepared {
    /// Forgets what [`compare`](super::compare) cached (for benchmarks that time a first comparison).
    pub fn clear_caches(&self) {
        self.edit_types.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.resampled.clear_computed();
        self.led.clear_computed();
    }

    /// The sentence scores this comparison holds, in the metric table's order: what the drill-down can sort by and
    /// human ratings are correlated with.
    pub fn sentence_metrics(&self) -> Vec<SentenceMetric> {
        let Some(first) = self.systems.first() else { return Vec::new() };
        registro_metrics::descriptor::all()
            .into_iter()
            .filter(|d| d.on_dashboard)
            .map(|d| SentenceMetric(Cow::Borrowed(d.key)))
            .filter(|m| first.sentence.contains_key(m))
            .collect()
    }

    /// Mean LeD (percent) between every two of `systems` (indices; `None` on the diagonal), computing the pairs no
    /// earlier comparison or chart did.
    pub fn led_matrix(&self, systems: &[usize]) -> Vec<Vec<Option<f64>>> {
        let outputs: Vec<&[String]> = self.data.systems.iter().map(|s| s.outputs.as_slice()).collect();
        self.led.matrix(&outputs, systems, self.data.sources.len())
    }
}

/// BLEU as `registro eval` scores language `lang` by default: the same tokenizer rule
/// ([`registro_metrics::bleu_tokenizer`]), so the Dashboard and eval print the same BLEU for a run.
fn bleu_for(lang: &str) -> Result<Bleu> {
    let tokenizer = registro_metrics::bleu_tokenizer(lang).map_err(anyhow::Error::msg)?;
    Ok(Bleu { tokenizer, ..Bleu::default() })
}

fn rewrite_lang(code: &str) -> Option<registro_rewrite::Lang> {
    code.parse().ok()
}

/// What "formality" means for outputs in language `code`. The PT16 regressor was trained on English ratings: on
/// German outputs it put formal systems at −0.1, so every other language is measured by the register analyzer.
enum FormalityScale {
    Pt16,
    Analyzer(registro_register::Lang),
    None,
}

fn formality_scale(code: &str) -> FormalityScale {
    if code.is_empty() || code == "en" {
        return FormalityScale::Pt16;
    }
    code.parse().map_or(FormalityScale::None, FormalityScale::Analyzer)
}

impl FormalityScale {
    /// Part of the cache key, so a table scored on one scale is never read as the other.
    fn key(&self) -> &'static str {
        match self {
            Self::Pt16 => "lexical",
            Self::Analyzer(_) => "analyzer",
            Self::None => "none",
        }
    }

    /// The values a sentence's formality can take on this scale.
    fn range(&self) -> Option<(f64, f64)> {
        match self {
            // The regressor clamps its output there.
            Self::Pt16 => Some((-3.5, 3.5)),
            Self::Analyzer(_) => Some((-1.0, 1.0)),
            Self::None => None,
        }
    }

    /// The axis: which measure and its range (shown in the Dashboard's signature and chart labels).
    fn describe(&self) -> String {
        match self {
            Self::Pt16 => "built-in lexical formality scorer, PT16 scale −3 informal … 3 formal".into(),
            Self::Analyzer(l) => format!("register analyzer ({}): +1 formal, −1 informal, 0 neither, per sentence", l.code()),
            Self::None => "no formality measure for this language".into(),
        }
    }
}

/// A sentence's register on the analyzer's −1…1 scale.
fn analyzer_formality(lang: registro_register::Lang, text: &str) -> f64 {
    registro_register::analyze(lang, text).label.formality_sign().unwrap_or(0.0)
}

/// Cached per-segment tables, read from and written back to the store when there is one.
struct StatsCache<'s> {
    store: Option<&'s mut Store>,
    /// What the store holds for the compared runs, read in one query per run.
    loaded: HashMap<RunId, HashMap<String, (String, SegmentTable)>>,
    pending: Vec<(RunId, String, String, SegmentTable)>,
    /// Every table [`StatsCache::get`] answered, per run: where the resampled scores derived from it are kept.
    used: HashMap<RunId, Vec<TableRef>>,
}

impl StatsCache<'_> {
    /// The table under `key` for `run` computed from texts with `fp` (`rows` of them), from the store or `compute`.
    fn get(&mut self, run: RunId, key: String, fp: &str, rows: usize, compute: impl FnOnce() -> Result<SegmentTable>) -> Result<SegmentTable> {
        let key = versioned(&key);
        self.used.entry(run).or_default().push(TableRef { run, key: key.clone(), fp: fp.to_string() });
        // A table of the wrong size (a damaged or forged store) is recomputed like any miss.
        if let Some(t) = self.lookup(run, &key, fp, rows) {
            return Ok(t);
        }
        let t = compute()?;
        if self.store.is_some() {
            self.pending.push((run, key, fp.to_string(), t.clone()));
        }
        Ok(t)
    }

    /// The stored table, if any (no computing).
    fn peek(&self, run: RunId, key: &str, fp: &str, rows: usize) -> Option<SegmentTable> {
        self.lookup(run, &versioned(key), fp, rows)
    }

    fn lookup(&self, run: RunId, versioned_key: &str, fp: &str, rows: usize) -> Option<SegmentTable> {
        let (stored_fp, t) = self.loaded.get(&run)?.get(versioned_key)?;
        (stored_fp == fp && t.values.len() == t.width * rows).then(|| t.clone())
    }

    fn flush(&mut self) {
        if let (Some(store), false) = (self.store.as_deref_mut(), self.pending.is_empty()) {
            // A read-only or full disk costs the next comparison its cache, never this one its result.
            let _ = store.put_segment_tables(&self.pending);
        }
        self.pending.clear();
    }
}

/// A new Registro may score differently (a fixed tokenizer, a richer lexicon): its tables are its own.
pub(super) fn versioned(key: &str) -> String {
    format!("{key}|registro:{}", env!("CARGO_PKG_VERSION"))
}

fn stats_table(s: SegmentStats) -> SegmentTable {
    SegmentTable { width: s.width, values: s.data }
}

/// [`prepare`] with the per-segment statistics read from `store` where they were computed before (by an earlier
/// comparison, or when the run was scored) and stored there when they were not: a comparison reopened later only
/// aggregates and resamples.
pub fn prepare_stored(data: ComparisonData, store: &mut Store) -> Result<Prepared> {
    prepare_stored_with(data, store, &AtomicBool::new(false), &mut |_| {})
}

/// [`prepare_stored`] telling `progress` which system (then which pair of systems) it is at, and stopping with
/// an error at the next one once `cancel` is set; what it computed until then is stored for the next try.
pub fn prepare_stored_with(data: ComparisonData, store: &mut Store, cancel: &AtomicBool, progress: ProgressFn) -> Result<Prepared> {
    let mut loaded = HashMap::new();
    for sys in &data.systems {
        // An unreadable cache is an empty one: everything is recomputed from the texts.
        loaded.insert(sys.run.id, store.segment_tables_of(sys.run.id).unwrap_or_default());
    }
    prepare_with(data, StatsCache { store: Some(store), loaded, pending: Vec::new(), used: HashMap::new() }, cancel, progress)
}

pub fn prepare(data: ComparisonData) -> Result<Prepared> {
    prepare_with(data, StatsCache { store: None, loaded: HashMap::new(), pending: Vec::new(), used: HashMap::new() }, &AtomicBool::new(false), &mut |_| {})
}

/// The error a comparison stops with once its cancel flag is set.
pub(super) fn stop_if_cancelled(cancel: &AtomicBool) -> Result<()> {
    if cancel.load(Ordering::Relaxed) {
        anyhow::bail!("comparison cancelled");
    }
    Ok(())
}

fn prepare_with(data: ComparisonData, mut cache: StatsCache, cancel: &AtomicBool, progress: ProgressFn) -> Result<Prepared> {
    let mut timings = BTreeMap::new();
    let t0 = std::time::Instant::now();
    let lang = data.target_lang.clone();
    let bleu = bleu_for(&lang)?;
    let sentence_bleu = Bleu { effective_order: true, ..bleu.clone() };
    let chrf = Chrf::default();
    let ter = Ter::default();

    // References are prepared once per distinct reference set (formal runs share the formal refs, …).
    let mut ref_cache: HashMap<(String, Vec<String>), registro_metrics::PreparedRefs> = HashMap::new();
    let registered: Vec<(&'static MetricDescriptor, Box<dyn Metric>)> = registro_metrics::descriptor::all()
        .into_iter()
        .filter(|d| d.on_dashboard)
        .filter_map(|d| d.make.as_ref().map(|make| make(&lang).map(|m| (d, m)).map_err(|e| anyhow::anyhow!("metric {}: {e}", d.key))))
        .collect::<Result<_>>()?;
    let metrics: Vec<(&str, &dyn Metric)> = [("bleu", &bleu as &dyn Metric), ("chrf", &chrf), ("ter", &ter)]
        .into_iter()
        .chain(registered.iter().map(|(d, m)| (d.key, m.as_ref())))
        .collect();
    let mut systems = Vec::with_capacity(data.systems.len());
    let mut macc_metrics = Vec::with_capacity(data.systems.len());
    let scorer = registro_rewrite::scorer::Scorer::builtin(registro_rewrite::scorer::Variant::Lexical).ok();
    let mut scorer = scorer;
    let score_texts = |scorer: &mut Option<registro_rewrite::scorer::Scorer>, texts: &[String], code: &str| -> Vec<f64> {
        match formality_scale(code) {
            FormalityScale::Pt16 => match (scorer.as_mut(), rewrite_lang(code)) {
                (Some(s), Some(l)) => texts.iter().map(|t| s.score(t, l, None).map(|v| v as f64).unwrap_or(f64::NAN)).collect(),
                _ => vec![f64::NAN; texts.len()],
            },
            FormalityScale::Analyzer(l) => texts.iter().map(|t| analyzer_formality(l, t)).collect(),
            FormalityScale::None => vec![f64::NAN; texts.len()],
        }
    };
    let same_lang = data.source_lang == data.target_lang;
    let sources_fp = fingerprint(data.sources.iter().map(String::as_str));
    let mut refs_fp: HashMap<Vec<String>, String> = HashMap::new();

    for (i, sys) in data.systems.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            cache.flush();
            stop_if_cancelled(cancel)?;
        }
        progress(Progress { done: i as u64, total: data.systems.len() as u64, message: format!("statistics of {}", sys.label) });
        let run = sys.run.id;
        let n = sys.outputs.len();
        let out_fp = fingerprint(sys.outputs.iter().map(String::as_str));
        let ref_fp = refs_fp
            .entry(sys.ref_names.clone())
            .or_insert_with(|| fingerprint(sys.refs.iter().flat_map(|r| r.iter().map(String::as_str))))
            .clone();
        let texts_fp = fingerprint([out_fp.as_str(), ref_fp.as_str()]);
        let mut stats: Vec<MetricStats> = Vec::with_capacity(3);
        for &(key, metric) in &metrics {
            let cache_key = (key.to_string(), sys.ref_names.clone());
            if !ref_cache.contains_key(&cache_key) {
                let prepared = prepare_refs(metric, &sys.refs)
                    .with_context(|| format!("preparing references {:?} for {key}", sys.ref_names))?;
                ref_cache.insert(cache_key.clone(), prepared);
            }
            let refs = &ref_cache[&cache_key];
            let signature = registro_metrics::signature(metric, &refs.nrefs, &registro_metrics::SigResampling::default());
            let table = cache.get(run, format!("{key}|{signature}|{}", sys.ref_names.join(",")), &texts_fp, n, || {
                let s = corpus_stats(metric, &sys.outputs, refs).with_context(|| format!("{key} of {}", sys.label))?;
                Ok(stats_table(s))
            })?;
            stats.push(MetricStats { stats: SegmentStats { width: table.width, data: table.values }, signature });
        }
        let mut stats = stats.into_iter();
        let (bleu_s, chrf_s, ter_s) = (stats.next().expect("BLEU"), stats.next().expect("chrF"), stats.next().expect("TER"));
        let registered_s: Vec<MetricStats> = stats.collect();

        let mut sentence = HashMap::new();
        sentence.insert(SentenceMetric::BLEU, (0..n).map(|i| sentence_bleu.compute(bleu_s.stats.row(i)).score).collect());
        sentence.insert(SentenceMetric::CHRF, (0..n).map(|i| chrf.score(chrf_s.stats.row(i))).collect());
        sentence.insert(SentenceMetric::TER, (0..n).map(|i| ter.score(ter_s.stats.row(i))).collect());
        for ((d, m), st) in registered.iter().zip(&registered_s) {
            sentence.insert(SentenceMetric(Cow::Borrowed(d.key)), (0..n).map(|i| m.score(st.stats.row(i))).collect());
        }

        let register = sys.run.register.as_deref().and_then(|r| r.parse::<MaccRegister>().ok());
        let macc = match (&sys.annotated, register) {
            (Some((formal, informal)), Some(reg)) => {
                let m = MatchedAccuracy::new(reg, &lang);
                let signature = registro_metrics::signature(&m, &NRefs::Fixed(2), &Default::default());
                let fp = fingerprint(
                    [out_fp.as_str()].into_iter().chain(formal.iter().map(String::as_str)).chain(informal.iter().map(String::as_str)),
                );
                let table = cache.get(run, format!("m-acc|{signature}"), &fp, n, || {
                    // The lengths are checked here, with the error M-Acc gives for mismatched files.
                    m.evaluate(&sys.outputs, formal, informal).context("M-Acc")?;
                    let refs = prepare_refs(&m, &[formal.clone(), informal.clone()])?;
                    Ok(stats_table(corpus_stats(&m, &sys.outputs, &refs)?))
                })?;
                let s = SegmentStats { width: table.width, data: table.values };
                // Each segment's statistics are the one-hot of its label (FORMAL, INFORMAL, NEUTRAL, OTHER).
                let labels = (0..n)
                    .map(|i| match s.row(i).iter().position(|v| *v > 0.5) {
                        Some(0) => Label::Formal,
                        Some(1) => Label::Informal,
                        Some(2) => Label::Neutral,
                        _ => Label::Other,
                    })
                    .collect();
                macc_metrics.push(Some(m));
                Some((MetricStats { stats: s, signature }, labels))
            }
            _ => {
                macc_metrics.push(None);
                None
            }
        };

        let stored = sys.stored.get("formality").filter(|m| m.segments.len() == n);
        let (formality, formality_source, formality_range) = match stored {
            Some(m) => (m.segments.values().copied().collect(), "stored formality metric".to_string(), None),
            None => {
                let scale = formality_scale(&lang);
                let table = cache.get(run, format!("formality|{}|{lang}", scale.key()), &out_fp, n, || {
                    Ok(SegmentTable { width: 1, values: score_texts(&mut scorer, &sys.outputs, &lang) })
                })?;
                (table.values, scale.describe(), scale.range())
            }
        };
        sentence.insert(SentenceMetric::FORMALITY, formality.clone());

        let (from, from_fp) = if same_lang { ("input", sources_fp.clone()) } else { ("reference", ref_fp.clone()) };
        let fp = fingerprint([out_fp.as_str(), from_fp.as_str()]);
        let levenshtein = cache.get(run, format!("levenshtein|{from}"), &fp, n, || {
            let values = (0..n)
                .map(|i| {
                    let other = if same_lang { &data.sources[i] } else { sys.refs.first().map(|r| &r[i]).unwrap_or(&data.sources[i]) };
                    registro_metrics::distance::char_levenshtein(other, &sys.outputs[i]) as f64
                })
                .collect();
            Ok(SegmentTable { width: 1, values })
        })?
        .values;

        systems.push(PreparedSystem {
            bleu: bleu_s,
            chrf: chrf_s,
            ter: ter_s,
            registered: registered_s,
            macc,
            sentence,
            formality,
            formality_source,
            formality_range,
            levenshtein,
        });
    }
    cache.flush();
    timings.insert("metrics".into(), t0.elapsed().as_secs_f64() * 1e3);

    let t1 = std::time::Instant::now();
    let source_formality = score_texts(&mut scorer, &data.sources, &data.source_lang);
    let source_len = data.sources.iter().map(|s| s.split_whitespace().count()).collect();

    // Lexical difference between systems: only what the store holds is read here; a chart computes the pairs
    // it shows.
    let k = data.systems.len();
    let out_fps: Vec<String> = data.systems.iter().map(|s| fingerprint(s.outputs.iter().map(String::as_str))).collect();
    let led = super::led::LedCache::new(data.systems.iter().map(|s| s.run.id).collect(), out_fps, |run, key, fp| {
        cache.peek(run, key, fp, 1).map(|t| t.values[0])
    });
    let mut stored_edit_types = HashMap::new();
    if cache.store.is_some() {
        let from = if same_lang { None } else { Some(data.baseline) };
        for to in 0..k {
            if from == Some(to) {
                continue;
            }
            let (run, key, fp) = edit_types_key(&data, from, to);
            if let Some(t) = cache.peek(run, &key, &fp, 1) {
                let counts = registro_metrics::edits::EditType::ALL.iter().copied().zip(t.values.iter().map(|v| *v as usize)).collect();
                stored_edit_types.insert((from, to), counts);
            }
        }
    }
    timings.insert("formality+led".into(), t1.elapsed().as_secs_f64() * 1e3);
    let tables = data.systems.iter().map(|s| cache.used.remove(&s.run.id).unwrap_or_default()).collect();
    let resampled = ResampledCache::new(tables, &cache.loaded);

    Ok(Prepared {
        data,
        systems,
        source_formality,
        source_len,
        led,
        levenshtein_from_input: same_lang,
        bleu_metric: bleu,
        chrf_metric: chrf,
        ter_metric: ter,
        registered,
        macc_metrics,
        timings_ms: timings,
        edit_types: Default::default(),
        stored_edit_types,
        resampled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// German outputs are placed by the register analyzer, not by the English PT16 regressor, and the axis says so.
    #[test]
    fn formality_of_non_english_outputs_comes_from_the_register_analyzer() {
        let FormalityScale::Analyzer(de) = formality_scale("de") else { panic!("German should use the analyzer") };
        assert_eq!(analyzer_formality(de, "Können Sie mir helfen?"), 1.0);
        assert_eq!(analyzer_formality(de, "Kannst du mir helfen?"), -1.0);
        assert_eq!(analyzer_formality(de, "Das Wetter ist schön."), 0.0);
        assert!(formality_scale("de").describe().starts_with("register analyzer (de)"));
        assert!(matches!(formality_scale("en"), FormalityScale::Pt16));
        assert!(formality_scale("en").describe().contains("PT16"));
        assert_ne!(formality_scale("de").key(), formality_scale("en").key(), "cached tables of the two scales never mix");
    }
}
