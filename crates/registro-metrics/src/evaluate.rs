//! Scoring several systems at once with any set of metrics, plus optional paired significance tests: the pure
//! part of `registro eval` (no files, no store). References are prepared once per reference set and metric, and
//! every system is compared with the first system that shares its references (the baseline), as in sacrebleu.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;

use crate::bleu::Bleu;
use crate::chrf::Chrf;
use crate::descriptor::Scope;
use crate::edits::{edit_type_counts, EditType};
use crate::macc::{classify, label_stats, phrases, Counts, Label, MaccResult, MatchedAccuracy, Register};
use crate::metric::{par_map, signature, Metric, NRefs, SegmentStats, SigResampling};
use crate::significance::{paired_ar, paired_bootstrap, TestResult};
use crate::style::{self, Bucket, Distribution};
use crate::ter::Ter;
use crate::MetricError;

/// Metrics `registro eval --metrics` understands. What each one is (direction, needs, scope, label) is its row in
/// the metric table ([`crate::descriptor`]), never decided here by the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MetricName {
    Bleu,
    Chrf,
    ChrfPlusPlus,
    Ter,
    MAcc,
    SelfBleu,
    Led,
    Levenshtein,
    Distinct,
    LengthRatio,
    LengthBuckets,
    EditTypes,
    /// Pang & Gimpel's transfer accuracy: the share of outputs a formality scorer puts in the requested register.
    Acc,
    /// Pang & Gimpel's Sim: meaning kept from the source (a similarity scorer; chrF/100 beside it always).
    Sim,
    /// Pang & Gimpel's PP: mean perplexity of the outputs under a language model.
    Pp,
    /// Pang & Gimpel's GM of Acc, Sim and PP, t = (63, 71, 97, −37).
    Gm,
    /// The outputs' mean formality, which the Dashboard measures (eval scores Acc instead).
    Formality,
    /// A metric added to the table at run time ([`crate::descriptor::register`]), by its key.
    Registered(&'static str),
}

impl Serialize for MetricName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

impl FromStr for MetricName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match crate::descriptor::find(s) {
            Some(d) if d.scope == crate::descriptor::Scope::Dashboard => Err(format!(
                "{} is measured by the Dashboard, not by eval (for eval, acc scores the outputs' register)",
                d.key
            )),
            Some(d) => Ok(d.name()),
            None => Err(format!("unknown metric {:?}; expected {}", s.trim().to_lowercase(), crate::descriptor::known_names())),
        }
    }
}

impl MetricName {
    /// This metric's row of the metric table.
    pub fn descriptor(self) -> &'static crate::descriptor::MetricDescriptor {
        crate::descriptor::of(self)
    }

    /// The key `--metrics`, eval's JSON and stored parameters use (`bleu`, `chrf_plus_plus`, `m_acc`).
    pub fn key(self) -> &'static str {
        self.descriptor().key
    }

    pub fn parse_list(s: &str) -> Result<Vec<Self>, String> {
        let mut v: Vec<Self> = s
            .split(',')
            .filter(|x| !x.trim().is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        v.sort();
        v.dedup();
        Ok(v)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SigTest {
    /// Paired bootstrap resampling with this many samples.
    Bootstrap(usize),
    /// Approximate randomization with this many trials.
    Randomization(usize),
}

/// One set of references plus what else the test set offers. Systems sharing an `Arc<TestSet>` share the
/// baseline of the significance tests.
#[derive(Clone, Debug, Default)]
pub struct TestSet {
    /// Identifies the set in output and grouping, e.g. `formal`.
    pub key: String,
    /// (name, lines) of each reference stream.
    pub refs: Vec<(String, Vec<String>)>,
    pub source: Option<Vec<String>>,
    pub formal_annotated: Option<Vec<String>>,
    pub informal_annotated: Option<Vec<String>>,
}

#[derive(Clone, Debug)]
pub struct SystemInput {
    pub name: String,
    pub lines: Vec<String>,
    pub register: Option<Register>,
    pub test_set: Arc<TestSet>,
}

#[derive(Clone, Debug)]
pub struct EvalConfig {
    pub metrics: Vec<MetricName>,
    pub bleu: Bleu,
    pub chrf: Chrf,
    pub ter: Ter,
    pub lang: String,
    pub significance: Option<SigTest>,
    pub seed: u64,
    /// Source-length bucket edges for length-bucketed BLEU.
    pub bucket_edges: Vec<usize>,
}

impl Default for EvalConfig {
    fn default() -> Self {
        Self {
            metrics: vec![MetricName::Bleu, MetricName::Chrf, MetricName::Ter],
            bleu: Bleu::default(),
            chrf: Chrf::default(),
            ter: Ter::default(),
            lang: String::new(),
            significance: None,
            seed: crate::significance::DEFAULT_SEED,
            bucket_edges: vec![10, 20, 30, 40],
        }
    }
}

/// Paired-test figures attached to a score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Significance {
    pub baseline: String,
    pub is_baseline: bool,
    pub p_value: Option<f64>,
    pub mean: Option<f64>,
    pub ci: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreReport {
    pub name: String,
    pub score: f64,
    pub signature: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<Significance>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BleuReport {
    pub score: f64,
    pub signature: String,
    pub counts: Vec<u64>,
    pub totals: Vec<u64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub ratio: f64,
    pub sys_len: u64,
    pub ref_len: u64,
    pub verbose: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<Significance>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaccReport {
    #[serde(flatten)]
    pub result: MaccResult,
    /// Accuracy for the system's requested register, in percent (what the significance test compares).
    pub score: f64,
    pub register: Register,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<Significance>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StyleReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_bleu: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub led: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub char_levenshtein: Option<Distribution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_1: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_2: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length_buckets: Option<Vec<Bucket>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_types: Option<BTreeMap<String, usize>>,
    /// Acc / Sim / PP from the configured model providers, and GM when all three exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<style::ModelScores>,
}

/// Segment-level values, in line order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Sentences {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bleu: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chrf: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chrf_pp: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ter: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m_acc: Option<Vec<Label>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub char_levenshtein: Option<Vec<usize>>,
    /// Sentence scores of the metrics added to the table at run time, by key.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, Vec<f64>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemReport {
    pub system: String,
    pub test_set: String,
    pub references: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register: Option<Register>,
    pub segments: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bleu: Option<BleuReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chrf: Option<ScoreReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chrf_pp: Option<ScoreReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ter: Option<ScoreReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m_acc: Option<MaccReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<StyleReport>,
    /// Corpus scores of the metrics added to the table at run time ([`crate::descriptor::register`]), by key.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, ScoreReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentences: Option<Sentences>,
}

fn sig_resampling(cfg: &EvalConfig) -> SigResampling {
    match cfg.significance {
        None => SigResampling::default(),
        Some(SigTest::Bootstrap(n)) => SigResampling {
            bs: Some(n),
            seed: Some(cfg.seed.to_string()),
            ..Default::default()
        },
        Some(SigTest::Randomization(n)) => SigResampling {
            ar: Some(n),
            seed: Some(cfg.seed.to_string()),
            ..Default::default()
        },
    }
}

/// Whether `m` reduces each segment to statistics that are summed over the corpus (or, for M-Acc, to a label),
/// so that it can be scored while the files are read, a chunk at a time. The style and model-based metrics need
/// every line at once.
pub fn is_segmentwise(m: MetricName) -> bool {
    m.descriptor().scope == Scope::Segmentwise
}

/// How many segments a [`GroupScorer`] is given at a time by [`evaluate_with`] (and by `registro eval`, which reads
/// files): enough work for [`par_map`]'s threads, while the references prepared for one chunk stay a few MB.
pub const CHUNK_SEGMENTS: usize = 4096;

/// A corpus metric as a group scores it: the metric, and how one segment's statistics become its sentence score.
enum CorpusMetric {
    Bleu { corpus: Bleu, sentence: Bleu },
    Chrf { name: MetricName, chrf: Chrf },
    Ter(Ter),
    /// A metric added to the table at run time: its key, label and scorer.
    Registered { key: &'static str, label: &'static str, metric: Box<dyn Metric> },
}

impl CorpusMetric {
    fn metric(&self) -> &dyn Metric {
        match self {
            Self::Bleu { corpus, .. } => corpus,
            Self::Chrf { chrf, .. } => chrf,
            Self::Ter(t) => t,
            Self::Registered { metric, .. } => metric.as_ref(),
        }
    }

    fn sentence_score(&self, row: &[f64]) -> f64 {
        match self {
            // sacrebleu's sentence BLEU uses the effective order.
            Self::Bleu { sentence, .. } => sentence.compute(row).score,
            Self::Chrf { chrf, .. } => chrf.score(row),
            Self::Ter(t) => t.score(row),
            Self::Registered { metric, .. } => metric.score(row),
        }
    }
}

/// What a group keeps of one system for one corpus metric: the running sum (added in segment order, exactly as
/// [`SegmentStats::sum`] does), the sentence scores, and every row only when a paired test will resample them.
#[derive(Default)]
struct Tally {
    sum: Vec<f64>,
    rows: Vec<f64>,
    sentences: Vec<f64>,
}

impl Tally {
    fn add(&mut self, row: &[f64], sentence: f64, keep_row: bool) {
        if self.sum.is_empty() {
            self.sum = vec![0.0; row.len()];
        }
        for (t, v) in self.sum.iter_mut().zip(row) {
            *t += v;
        }
        if keep_row {
            self.rows.extend_from_slice(row);
        }
        self.sentences.push(sentence);
    }
}

#[derive(Default)]
struct MaccTally {
    counts: Counts,
    labels: Vec<Label>,
    rows: Vec<f64>,
}

/// One chunk of aligned lines for a [`GroupScorer`]: every slice holds the same segments.
pub struct Chunk<'a> {
    /// One slice per reference stream.
    pub refs: Vec<&'a [String]>,
    /// The formal and informal annotated references, when M-Acc is scored.
    pub annotated: Option<(&'a [String], &'a [String])>,
    /// One slice per system, in the order the scorer was made with.
    pub hyps: Vec<&'a [String]>,
}

/// Scores the systems of one test set chunk by chunk: each segment becomes its statistics (and M-Acc label) as soon
/// as it is pushed, so the caller can drop its text and memory grows with the statistics alone. Every system is
/// compared with the first (the baseline) when a paired test is asked, as in sacrebleu.
pub struct GroupScorer {
    cfg: EvalConfig,
    key: String,
    references: Vec<String>,
    systems: Vec<(String, Option<Register>)>,
    corpus: Vec<(CorpusMetric, Vec<Tally>)>,
    macc: Option<(MatchedAccuracy, Vec<MaccTally>)>,
    keep_rows: bool,
    segments: usize,
}

fn mismatch(what: String, expected: usize, got: usize) -> MetricError {
    MetricError::LengthMismatch { what, expected, got }
}

impl GroupScorer {
    /// `references` names the reference streams, `systems` are (name, requested register) with the baseline
    /// first; `annotated` says whether annotated formal and informal references will come with every chunk.
    pub fn new(
        cfg: &EvalConfig,
        key: &str,
        references: Vec<String>,
        systems: Vec<(String, Option<Register>)>,
        annotated: bool,
    ) -> Result<Self, MetricError> {
        let Some((baseline, baseline_register)) = systems.first().cloned() else {
            return Err(MetricError::Input("no system to score".into()));
        };
        let wants = |m| cfg.metrics.contains(&m);
        if references.is_empty() && cfg.metrics.iter().any(|&m| needs_refs(m)) {
            return Err(MetricError::Input(format!("system {baseline}: no reference given")));
        }
        if wants(MetricName::MAcc) && !annotated {
            return Err(MetricError::Input(format!(
                "system {baseline}: m-acc needs --formal-annotated and --informal-annotated references"
            )));
        }
        let tallies = || (0..systems.len()).map(|_| Tally::default()).collect::<Vec<_>>();
        let mut corpus = Vec::new();
        if wants(MetricName::Bleu) {
            let sentence = Bleu { effective_order: true, ..cfg.bleu.clone() };
            corpus.push((CorpusMetric::Bleu { corpus: cfg.bleu.clone(), sentence }, tallies()));
        }
        if wants(MetricName::Chrf) {
            corpus.push((CorpusMetric::Chrf { name: MetricName::Chrf, chrf: cfg.chrf.clone() }, tallies()));
        }
        if wants(MetricName::ChrfPlusPlus) {
            let chrf = Chrf { word_order: 2, ..cfg.chrf.clone() };
            corpus.push((CorpusMetric::Chrf { name: MetricName::ChrfPlusPlus, chrf }, tallies()));
        }
        if wants(MetricName::Ter) {
            corpus.push((CorpusMetric::Ter(cfg.ter.clone()), tallies()));
        }
        for &m in &cfg.metrics {
            let d = m.descriptor();
            if let (MetricName::Registered(_), Some(make)) = (m, &d.make) {
                let metric = make(&cfg.lang).map_err(|e| MetricError::Input(format!("metric {}: {e}", d.key)))?;
                corpus.push((CorpusMetric::Registered { key: d.key, label: d.label, metric }, tallies()));
            }
        }
        // The paired test compares accuracy for the baseline's register across the group.
        let macc = wants(MetricName::MAcc).then(|| {
            let m = MatchedAccuracy::new(baseline_register.unwrap_or(Register::Formal), &cfg.lang);
            (m, (0..systems.len()).map(|_| MaccTally::default()).collect())
        });
        Ok(Self {
            keep_rows: cfg.significance.is_some() && systems.len() > 1,
            cfg: cfg.clone(),
            key: key.to_string(),
            references,
            systems,
            corpus,
            macc,
            segments: 0,
        })
    }

    /// Whether this group scores anything at all (a request of style metrics only needs no scorer).
    pub fn is_empty(&self) -> bool {
        self.corpus.is_empty() && self.macc.is_none()
    }

    /// Segments pushed so far.
    pub fn segments(&self) -> usize {
        self.segments
    }

    /// Scores the next segments of every system.
    pub fn push(&mut self, chunk: &Chunk) -> Result<(), MetricError> {
        if chunk.hyps.len() != self.systems.len() {
            return Err(MetricError::Input(format!(
                "{} hypothesis streams for {} systems",
                chunk.hyps.len(),
                self.systems.len()
            )));
        }
        let n = chunk
            .refs
            .first()
            .or(chunk.annotated.as_ref().map(|a| &a.0))
            .or(chunk.hyps.first())
            .map_or(0, |l| l.len());
        for (k, r) in chunk.refs.iter().enumerate() {
            if r.len() != n {
                return Err(mismatch(format!("reference stream {} vs reference stream 1", k + 1), n, r.len()));
            }
        }
        if let Some((f, i)) = chunk.annotated {
            for (what, l) in [("formal annotated reference", f), ("informal annotated reference", i)] {
                if l.len() != n {
                    return Err(mismatch(format!("{what} vs references"), n, l.len()));
                }
            }
        }
        for ((name, _), h) in self.systems.iter().zip(&chunk.hyps) {
            if h.len() != n {
                return Err(mismatch(format!("system {name} vs references"), n, h.len()));
            }
        }
        let annotated = match (&self.macc, chunk.annotated) {
            (Some((m, _)), Some(a)) => Some((m.mode, a)),
            (Some(_), None) => return Err(MetricError::Input("m-acc needs the annotated references".into())),
            (None, _) => None,
        };
        let corpus = &self.corpus;
        let per_segment = par_map(n, |i| {
            let refs: Vec<&str> = chunk.refs.iter().map(|r| r[i].as_str()).collect();
            let mut rows = Vec::with_capacity(corpus.len() * chunk.hyps.len());
            for (c, _) in corpus {
                let prep = c.metric().prepare_refs(&refs);
                for h in &chunk.hyps {
                    let row = c.metric().segment_stats(&h[i], &prep);
                    let sentence = c.sentence_score(&row);
                    rows.push((row, sentence));
                }
            }
            let labels: Vec<Label> = match annotated {
                Some((mode, (f, inf))) => {
                    let (f, inf) = (phrases(&f[i]), phrases(&inf[i]));
                    chunk.hyps.iter().map(|h| classify(&h[i], &f, &inf, mode)).collect()
                }
                None => Vec::new(),
            };
            (rows, labels)
        });
        let keep = self.keep_rows;
        for (rows, labels) in per_segment {
            let mut rows = rows.into_iter();
            for (_, tallies) in &mut self.corpus {
                for t in tallies.iter_mut() {
                    let (row, sentence) = rows.next().expect("one row per metric and system");
                    t.add(&row, sentence, keep);
                }
            }
            if let Some((_, tallies)) = &mut self.macc {
                for (t, l) in tallies.iter_mut().zip(labels) {
                    t.counts.add(l);
                    t.labels.push(l);
                    if keep {
                        t.rows.extend_from_slice(&label_stats(l));
                    }
                }
            }
        }
        self.segments += n;
        Ok(())
    }

    /// The paired test of every system against the first, on the rows kept (none without a test).
    fn paired(
        &self,
        metric: &dyn Metric,
        rows: Vec<(usize, Vec<f64>)>,
    ) -> Result<Option<Vec<TestResult>>, MetricError> {
        let Some(test) = self.cfg.significance.filter(|_| self.keep_rows) else {
            return Ok(None);
        };
        let stats: Vec<SegmentStats> = rows.into_iter().map(|(width, data)| SegmentStats { width, data }).collect();
        let others: Vec<&SegmentStats> = stats[1..].iter().collect();
        Ok(Some(match test {
            SigTest::Bootstrap(n) => paired_bootstrap(metric, &stats[0], &others, n, self.cfg.seed)?,
            SigTest::Randomization(n) => paired_ar(metric, &stats[0], &others, n, 0, self.cfg.seed)?,
        }))
    }

    /// The reports of every system, in the order given to [`GroupScorer::new`].
    pub fn finish(mut self) -> Result<Vec<SystemReport>, MetricError> {
        let baseline = self.systems[0].0.clone();
        if self.segments == 0 && !self.is_empty() {
            // sacrebleu fails on an empty corpus too; a score of an empty file would only mislead.
            return Err(MetricError::Input(format!(
                "system {baseline}: no segments to score (empty hypothesis file?)"
            )));
        }
        let rs = sig_resampling(&self.cfg);
        let nrefs = NRefs::Fixed(self.references.len());
        let mut reps: Vec<SystemReport> = self
            .systems
            .iter()
            .map(|(name, register)| blank_report(name, *register, &self.key, &self.references, self.segments))
            .collect();
        let sig = |tests: &Option<Vec<TestResult>>, i: usize| significance(tests, i, &baseline);
        for (c, tallies) in std::mem::take(&mut self.corpus) {
            let m = c.metric();
            let mut tallies = tallies;
            let rows = tallies.iter_mut().map(|t| (t.sum.len(), std::mem::take(&mut t.rows))).collect();
            let tests = self.paired(m, rows)?;
            let signature = signature(m, &nrefs, &rs);
            for (i, (r, t)) in reps.iter_mut().zip(tallies).enumerate() {
                let sentences = r.sentences.as_mut().expect("blank reports carry sentences");
                match &c {
                    CorpusMetric::Bleu { corpus, .. } => {
                        let b = corpus.compute(&t.sum);
                        r.bleu = Some(BleuReport {
                            score: b.score,
                            signature: signature.clone(),
                            ratio: b.ratio(),
                            verbose: b.verbose(),
                            counts: b.counts,
                            totals: b.totals,
                            precisions: b.precisions,
                            bp: b.bp,
                            sys_len: b.sys_len,
                            ref_len: b.ref_len,
                            significance: sig(&tests, i),
                        });
                        sentences.bleu = Some(t.sentences);
                    }
                    CorpusMetric::Chrf { name, chrf } => {
                        let rep = ScoreReport {
                            name: chrf.name(),
                            score: chrf.score(&t.sum),
                            signature: signature.clone(),
                            significance: sig(&tests, i),
                        };
                        if *name == MetricName::Chrf {
                            r.chrf = Some(rep);
                            sentences.chrf = Some(t.sentences);
                        } else {
                            r.chrf_pp = Some(rep);
                            sentences.chrf_pp = Some(t.sentences);
                        }
                    }
                    CorpusMetric::Ter(ter) => {
                        r.ter = Some(ScoreReport {
                            name: "TER".into(),
                            score: ter.score(&t.sum),
                            signature: signature.clone(),
                            significance: sig(&tests, i),
                        });
                        sentences.ter = Some(t.sentences);
                    }
                    CorpusMetric::Registered { key, label, metric } => {
                        r.metrics.insert(
                            key.to_string(),
                            ScoreReport {
                                name: label.to_string(),
                                score: metric.score(&t.sum),
                                signature: signature.clone(),
                                significance: sig(&tests, i),
                            },
                        );
                        sentences.metrics.insert(key.to_string(), t.sentences);
                    }
                }
            }
        }
        if let Some((m, mut tallies)) = self.macc.take() {
            let rows = tallies.iter_mut().map(|t| (4, std::mem::take(&mut t.rows))).collect();
            let tests = self.paired(&m, rows)?;
            let default_register = m.register;
            for (i, (r, t)) in reps.iter_mut().zip(tallies).enumerate() {
                let result = MaccResult::from(t.counts);
                let register = r.register.unwrap_or(default_register);
                let score = 100.0 * if register == Register::Formal { result.formal } else { result.informal };
                r.m_acc = Some(MaccReport { result, score, register, significance: sig(&tests, i) });
                r.sentences.as_mut().expect("blank reports carry sentences").m_acc = Some(t.labels);
            }
        }
        Ok(reps)
    }
}

fn blank_report(
    name: &str,
    register: Option<Register>,
    key: &str,
    references: &[String],
    segments: usize,
) -> SystemReport {
    SystemReport {
        system: name.to_string(),
        test_set: key.to_string(),
        references: references.to_vec(),
        register,
        segments,
        bleu: None,
        chrf: None,
        chrf_pp: None,
        ter: None,
        m_acc: None,
        style: None,
        metrics: BTreeMap::new(),
        sentences: Some(Sentences::default()),
    }
}

fn significance(tests: &Option<Vec<TestResult>>, i: usize, baseline: &str) -> Option<Significance> {
    tests.as_ref().map(|t| Significance {
        baseline: baseline.to_string(),
        is_baseline: i == 0,
        p_value: t[i].p_value,
        mean: t[i].mean,
        ci: t[i].ci,
    })
}

fn needs_refs(m: MetricName) -> bool {
    m.descriptor().needs_references
}

fn needs_source(m: MetricName) -> bool {
    m.descriptor().needs_source
}

/// Whether `m` is scored by a model the caller provides ([`style::Providers`]): Pang & Gimpel's Acc, Sim, PP, GM.
pub fn is_model_based(m: MetricName) -> bool {
    m.descriptor().scope == Scope::Model
}

/// Which model scorers a list of metrics needs (GM needs all three): the one place both the metric engine and
/// whoever loads the models read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelNeeds {
    pub formality: bool,
    pub similarity: bool,
    pub fluency: bool,
}

impl ModelNeeds {
    pub fn of(metrics: &[MetricName]) -> Self {
        let wants = |m: MetricName| metrics.contains(&m) || metrics.contains(&MetricName::Gm);
        Self { formality: wants(MetricName::Acc), similarity: wants(MetricName::Sim), fluency: wants(MetricName::Pp) }
    }

    pub fn any(&self) -> bool {
        self.formality || self.similarity || self.fluency
    }
}

/// The providers `metrics` need and `providers` lack, named for the error message.
fn missing_providers(metrics: &[MetricName], providers: &style::Providers) -> Vec<&'static str> {
    let needs = ModelNeeds::of(metrics);
    let mut missing = Vec::new();
    if needs.formality && providers.formality.is_none() {
        missing.push("a formality scorer (acc)");
    }
    if needs.similarity && providers.similarity.is_none() {
        missing.push("a similarity scorer (sim)");
    }
    if needs.fluency && providers.fluency.is_none() {
        missing.push("a language model (pp)");
    }
    missing
}

/// Scores all systems. Errors name the system and what is missing or mismatched.
pub fn evaluate(
    systems: &[SystemInput],
    cfg: &EvalConfig,
) -> Result<Vec<SystemReport>, MetricError> {
    evaluate_with(systems, cfg, &style::Providers::default())
}

/// [`evaluate`] plus model-based Acc/Sim/PP (and Pang & Gimpel's GM) from whichever providers are given; the
/// similarity is measured against the source, the accuracy against each system's requested register.
pub fn evaluate_with(
    systems: &[SystemInput],
    cfg: &EvalConfig,
    providers: &style::Providers,
) -> Result<Vec<SystemReport>, MetricError> {
    // Groups in order of first appearance.
    let mut groups: Vec<(Arc<TestSet>, Vec<usize>)> = Vec::new();
    for (i, s) in systems.iter().enumerate() {
        match groups.iter_mut().find(|(t, _)| Arc::ptr_eq(t, &s.test_set)) {
            Some(g) => g.1.push(i),
            None => groups.push((s.test_set.clone(), vec![i])),
        }
    }
    let missing = missing_providers(&cfg.metrics, providers);
    if !missing.is_empty() {
        return Err(MetricError::Input(format!("Pang & Gimpel's metrics need {}", missing.join(", "))));
    }
    let mut reports: Vec<Option<SystemReport>> = vec![None; systems.len()];
    for (ts, idx) in &groups {
        let members: Vec<&SystemInput> = idx.iter().map(|&i| &systems[i]).collect();
        for s in &members {
            if cfg.metrics.iter().any(|&m| needs_refs(m)) && ts.refs.is_empty() {
                return Err(MetricError::Input(format!(
                    "system {}: no reference given",
                    s.name
                )));
            }
            if let Some(m) = cfg.metrics.iter().find(|&&m| needs_source(m)) {
                if ts.source.is_none() {
                    return Err(MetricError::Input(format!(
                        "system {}: metric {m:?} needs the source (--src)",
                        s.name
                    )));
                }
            }
            let n_ref = ts
                .refs
                .first()
                .map(|r| r.1.len())
                .or(ts.source.as_ref().map(Vec::len));
            if let Some(n) = n_ref {
                if s.lines.len() != n {
                    return Err(MetricError::LengthMismatch {
                        what: format!("system {} vs references", s.name),
                        expected: n,
                        got: s.lines.len(),
                    });
                }
            }
        }
        let ref_names: Vec<String> = ts.refs.iter().map(|r| r.0.clone()).collect();
        let mut scorer = GroupScorer::new(
            cfg,
            &ts.key,
            ref_names.clone(),
            members.iter().map(|s| (s.name.clone(), s.register)).collect(),
            ts.formal_annotated.is_some() && ts.informal_annotated.is_some(),
        )?;
        let mut reps = if scorer.is_empty() {
            let n = members[0].lines.len();
            members.iter().map(|s| blank_report(&s.name, s.register, &ts.key, &ref_names, n)).collect()
        } else {
            let n = members[0].lines.len();
            let annotated = ts.formal_annotated.as_deref().zip(ts.informal_annotated.as_deref());
            if let Some((f, i)) = annotated.filter(|_| cfg.metrics.contains(&MetricName::MAcc)) {
                for (what, l) in [("formal annotated reference", f), ("informal annotated reference", i)] {
                    if l.len() != n {
                        return Err(mismatch(format!("system {} vs {what}", members[0].name), l.len(), n));
                    }
                }
            }
            for (k, r) in ts.refs.iter().enumerate() {
                if r.1.len() != n {
                    return Err(mismatch(format!("reference stream {} vs reference stream 1", k + 1), n, r.1.len()));
                }
            }
            for s in &members[1..] {
                if s.lines.len() != n {
                    return Err(mismatch(format!("system {} vs system {}", s.name, members[0].name), n, s.lines.len()));
                }
            }
            for start in (0..n).step_by(CHUNK_SEGMENTS) {
                let end = (start + CHUNK_SEGMENTS).min(n);
                scorer.push(&Chunk {
                    refs: ts.refs.iter().map(|r| &r.1[start..end]).collect(),
                    annotated: annotated
                        .filter(|_| cfg.metrics.contains(&MetricName::MAcc))
                        .map(|(f, i)| (&f[start..end], &i[start..end])),
                    hyps: members.iter().map(|s| &s.lines[start..end]).collect(),
                })?;
            }
            scorer.finish()?
        };
        let style_wanted = cfg.metrics.iter().any(|&m| m.descriptor().scope == Scope::Corpus);
        if style_wanted {
            let streams: Vec<Vec<String>> = ts.refs.iter().map(|(_, l)| l.clone()).collect();
            for (r, s) in reps.iter_mut().zip(&members) {
                let mut st = StyleReport::default();
                let src = ts.source.as_deref().unwrap_or(&[]);
                for m in &cfg.metrics {
                    match m {
                        MetricName::SelfBleu => {
                            st.self_bleu = Some(style::self_bleu(&s.lines, src)?)
                        }
                        MetricName::Led => st.led = Some(style::lexical_difference(&s.lines, src)?),
                        MetricName::Levenshtein => {
                            let d = style::char_edit_distances(&s.lines, src)?;
                            st.char_levenshtein = Some(style::distribution(&d));
                            r.sentences.as_mut().unwrap().char_levenshtein = Some(d);
                        }
                        MetricName::Distinct => {
                            st.distinct_1 = Some(style::distinct_n(&s.lines, 1));
                            st.distinct_2 = Some(style::distinct_n(&s.lines, 2));
                        }
                        MetricName::LengthRatio => {
                            st.length_ratio = Some(style::length_ratio(&s.lines, &streams[0]))
                        }
                        MetricName::LengthBuckets => {
                            st.length_buckets = Some(style::length_bucketed_bleu(
                                &s.lines,
                                &streams,
                                src,
                                &cfg.bucket_edges,
                            )?)
                        }
                        MetricName::EditTypes => {
                            let pairs: Vec<(String, String)> =
                                src.iter().cloned().zip(s.lines.iter().cloned()).collect();
                            st.edit_types = Some(
                                edit_type_counts(&pairs, &cfg.lang)
                                    .into_iter()
                                    .map(|(t, c): (EditType, usize)| (t.as_str().to_string(), c))
                                    .collect(),
                            );
                        }
                        _ => {}
                    }
                }
                r.style = Some(st);
            }
        }
        if providers.formality.is_some()
            || providers.similarity.is_some()
            || providers.fluency.is_some()
        {
            for (r, s) in reps.iter_mut().zip(&members) {
                let src = ts.source.as_deref().unwrap_or(&[]);
                let p = style::Providers {
                    formality: providers.formality,
                    similarity: if src.is_empty() {
                        None
                    } else {
                        providers.similarity
                    },
                    fluency: providers.fluency,
                };
                let want_formal = s.register.unwrap_or(Register::Formal) == Register::Formal;
                let m = style::model_scores(
                    &s.lines,
                    src,
                    want_formal,
                    &p,
                    style::GmThresholds::default(),
                )
                .map_err(|e| {
                    MetricError::Input(format!("system {}: model scorer failed: {e}", s.name))
                })?;
                r.style.get_or_insert_with(StyleReport::default).model = Some(m);
            }
        }
        for (&i, rep) in idx.iter().zip(reps) {
            reports[i] = Some(rep);
        }
    }
    Ok(reports
        .into_iter()
        .map(|r| r.expect("every system belongs to a group"))
        .collect())
}

impl MaccReport {
    pub fn register_name(&self) -> &'static str {
        match self.register {
            Register::Formal => "formal",
            Register::Informal => "informal",
        }
    }
}
