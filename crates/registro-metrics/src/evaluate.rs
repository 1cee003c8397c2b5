//! Scoring several systems at once with any set of metrics, plus optional paired significance tests: the pure
//! part of `registro eval` (no files, no store). References are prepared once per reference set and metric, and
//! every system is compared with the first system that shares its references (the baseline), as in sacrebleu.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;

use crate::bleu::Bleu;
use crate::chrf::Chrf;
use crate::edits::{edit_type_counts, EditType};
use crate::macc::{Label, MaccResult, MatchedAccuracy, Register};
use crate::metric::{
    corpus_stats, prepare_refs, signature, Metric, NRefs, PreparedRefs, SegmentStats, SigResampling,
};
use crate::significance::{paired_ar, paired_bootstrap, TestResult};
use crate::style::{self, Bucket, Distribution};
use crate::ter::Ter;
use crate::MetricError;

/// Metrics `registro eval --metrics` understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
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
}

impl FromStr for MetricName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_lowercase().as_str() {
            "bleu" => Self::Bleu,
            "chrf" => Self::Chrf,
            "chrf++" | "chrfpp" | "chrf-pp" => Self::ChrfPlusPlus,
            "ter" => Self::Ter,
            "m-acc" | "macc" | "m_acc" => Self::MAcc,
            "self-bleu" | "self_bleu" => Self::SelfBleu,
            "led" => Self::Led,
            "levenshtein" | "lev" => Self::Levenshtein,
            "distinct" => Self::Distinct,
            "length-ratio" | "length_ratio" => Self::LengthRatio,
            "length-buckets" | "length_buckets" | "bucketed-bleu" => Self::LengthBuckets,
            "edit-types" | "edit_types" | "edits" => Self::EditTypes,
            o => {
                return Err(format!(
                    "unknown metric {o:?}; expected bleu, chrf, chrf++, ter, m-acc, self-bleu, led, levenshtein, distinct, \
                     length-ratio, length-buckets, edit-types"
                ))
            }
        })
    }
}

impl MetricName {
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

/// Statistics of every system of one group (same test set) for one metric, with the significance results.
struct GroupScores {
    stats: Vec<SegmentStats>,
    tests: Option<Vec<TestResult>>,
    nrefs: NRefs,
}

fn score_group(
    metric: &dyn Metric,
    prep: &PreparedRefs,
    systems: &[&SystemInput],
    cfg: &EvalConfig,
) -> Result<GroupScores, MetricError> {
    let mut stats = Vec::with_capacity(systems.len());
    for s in systems {
        stats.push(
            corpus_stats(metric, &s.lines, prep)
                .map_err(|e| MetricError::Input(format!("system {}: {e}", s.name)))?,
        );
    }
    let tests = match cfg.significance {
        Some(t) if stats.len() > 1 => {
            let others: Vec<&SegmentStats> = stats[1..].iter().collect();
            Some(match t {
                SigTest::Bootstrap(n) => paired_bootstrap(metric, &stats[0], &others, n, cfg.seed)?,
                SigTest::Randomization(n) => paired_ar(metric, &stats[0], &others, n, 0, cfg.seed)?,
            })
        }
        _ => None,
    };
    Ok(GroupScores {
        stats,
        tests,
        nrefs: prep.nrefs.clone(),
    })
}

fn significance(g: &GroupScores, i: usize, baseline: &str) -> Option<Significance> {
    g.tests.as_ref().map(|t| Significance {
        baseline: baseline.to_string(),
        is_baseline: i == 0,
        p_value: t[i].p_value,
        mean: t[i].mean,
        ci: t[i].ci,
    })
}

fn ref_streams(ts: &TestSet) -> Vec<Vec<String>> {
    ts.refs.iter().map(|(_, l)| l.clone()).collect()
}

fn needs_refs(m: MetricName) -> bool {
    matches!(
        m,
        MetricName::Bleu
            | MetricName::Chrf
            | MetricName::ChrfPlusPlus
            | MetricName::Ter
            | MetricName::LengthRatio
            | MetricName::LengthBuckets
    )
}

fn needs_source(m: MetricName) -> bool {
    matches!(
        m,
        MetricName::SelfBleu
            | MetricName::Led
            | MetricName::Levenshtein
            | MetricName::LengthBuckets
            | MetricName::EditTypes
    )
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
    let mut reports: Vec<Option<SystemReport>> = vec![None; systems.len()];
    let rs = sig_resampling(cfg);
    for (ts, idx) in &groups {
        let members: Vec<&SystemInput> = idx.iter().map(|&i| &systems[i]).collect();
        let baseline = members[0].name.clone();
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
        let mut reps: Vec<SystemReport> = members
            .iter()
            .map(|s| SystemReport {
                system: s.name.clone(),
                test_set: ts.key.clone(),
                references: ts.refs.iter().map(|r| r.0.clone()).collect(),
                register: s.register,
                segments: s.lines.len(),
                bleu: None,
                chrf: None,
                chrf_pp: None,
                ter: None,
                m_acc: None,
                style: None,
                sentences: Some(Sentences::default()),
            })
            .collect();
        let streams = ref_streams(ts);
        if cfg.metrics.contains(&MetricName::Bleu) {
            let m = &cfg.bleu;
            let g = score_group(m, &prepare_refs(m, &streams)?, &members, cfg)?;
            let sent = Bleu {
                effective_order: true,
                ..m.clone()
            };
            let sig = signature(m, &g.nrefs, &rs);
            for (i, r) in reps.iter_mut().enumerate() {
                let b = m.compute(&g.stats[i].sum());
                r.bleu = Some(BleuReport {
                    score: b.score,
                    signature: sig.clone(),
                    ratio: b.ratio(),
                    verbose: b.verbose(),
                    counts: b.counts,
                    totals: b.totals,
                    precisions: b.precisions,
                    bp: b.bp,
                    sys_len: b.sys_len,
                    ref_len: b.ref_len,
                    significance: significance(&g, i, &baseline),
                });
                let st = &g.stats[i];
                r.sentences.as_mut().unwrap().bleu = Some(
                    (0..st.len())
                        .map(|k| sent.compute(st.row(k)).score)
                        .collect(),
                );
            }
        }
        for (name, chrf) in [
            (MetricName::Chrf, &cfg.chrf),
            (
                MetricName::ChrfPlusPlus,
                &Chrf {
                    word_order: 2,
                    ..cfg.chrf.clone()
                },
            ),
        ] {
            if !cfg.metrics.contains(&name) {
                continue;
            }
            let g = score_group(chrf, &prepare_refs(chrf, &streams)?, &members, cfg)?;
            let sig = signature(chrf, &g.nrefs, &rs);
            for (i, r) in reps.iter_mut().enumerate() {
                let st = &g.stats[i];
                let rep = ScoreReport {
                    name: chrf.name(),
                    score: chrf.score(&st.sum()),
                    signature: sig.clone(),
                    significance: significance(&g, i, &baseline),
                };
                let sent: Vec<f64> = (0..st.len()).map(|k| chrf.score(st.row(k))).collect();
                let sentences = r.sentences.as_mut().unwrap();
                if name == MetricName::Chrf {
                    r.chrf = Some(rep);
                    sentences.chrf = Some(sent);
                } else {
                    r.chrf_pp = Some(rep);
                    sentences.chrf_pp = Some(sent);
                }
            }
        }
        if cfg.metrics.contains(&MetricName::Ter) {
            let m = &cfg.ter;
            let g = score_group(m, &prepare_refs(m, &streams)?, &members, cfg)?;
            let sig = signature(m, &g.nrefs, &rs);
            for (i, r) in reps.iter_mut().enumerate() {
                let st = &g.stats[i];
                r.ter = Some(ScoreReport {
                    name: "TER".into(),
                    score: m.score(&st.sum()),
                    signature: sig.clone(),
                    significance: significance(&g, i, &baseline),
                });
                r.sentences.as_mut().unwrap().ter =
                    Some((0..st.len()).map(|k| m.score(st.row(k))).collect());
            }
        }
        if cfg.metrics.contains(&MetricName::MAcc) {
            let (Some(f), Some(inf)) = (&ts.formal_annotated, &ts.informal_annotated) else {
                return Err(MetricError::Input(format!(
                    "system {}: m-acc needs --formal-annotated and --informal-annotated references",
                    baseline
                )));
            };
            // The significance test compares accuracy for the baseline's register across the group.
            let register = members[0].register.unwrap_or(Register::Formal);
            let m = MatchedAccuracy::new(register, &cfg.lang);
            let prep = prepare_refs(&m, &[f.clone(), inf.clone()])?;
            let g = score_group(&m, &prep, &members, cfg)?;
            for (i, (r, s)) in reps.iter_mut().zip(&members).enumerate() {
                let (res, labels) = m.evaluate(&s.lines, f, inf)?;
                let reg = s.register.unwrap_or(register);
                let score = 100.0
                    * if reg == Register::Formal {
                        res.formal
                    } else {
                        res.informal
                    };
                r.m_acc = Some(MaccReport {
                    result: res,
                    score,
                    register: reg,
                    significance: significance(&g, i, &baseline),
                });
                r.sentences.as_mut().unwrap().m_acc = Some(labels);
            }
        }
        let style_wanted = cfg.metrics.iter().any(|m| {
            matches!(
                m,
                MetricName::SelfBleu
                    | MetricName::Led
                    | MetricName::Levenshtein
                    | MetricName::Distinct
                    | MetricName::LengthRatio
                    | MetricName::LengthBuckets
                    | MetricName::EditTypes
            )
        });
        if style_wanted {
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
        for (k, &i) in idx.iter().enumerate() {
            reports[i] = Some(reps[k].clone());
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
