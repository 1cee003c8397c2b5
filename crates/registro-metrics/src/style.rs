//! Style-transfer metrics of XFORMAL (Briakou et al. 2021), GYAFC (Rao & Tetreault 2018), MTFC and Pang &
//! Gimpel (2019): self-BLEU, lexical difference, character Levenshtein distribution, Distinct-n, length ratio,
//! length-bucketed BLEU and the geometric mean GM of accuracy, similarity and fluency. Model-based scores come from
//! providers implementing [`FormalityScorer`], [`SimilarityScorer`] and [`FluencyScorer`] (the engine crate
//! implements them; this crate has no ML dependencies).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::bleu::Bleu;
use crate::distance::char_levenshtein;
use crate::metric::{corpus_stats, prepare_refs, Metric};
use crate::text::py_split;
use crate::tokenize::tokenize_13a;
use crate::MetricError;

pub type ProviderError = Box<dyn std::error::Error + Send + Sync>;

/// Probability that each text is formal, in `[0, 1]`.
pub trait FormalityScorer: Send + Sync {
    fn name(&self) -> String;
    fn formality(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError>;
}

/// Meaning preservation between pairs of texts, in `[0, 1]` (e.g. cosine of sentence embeddings).
pub trait SimilarityScorer: Send + Sync {
    fn name(&self) -> String;
    fn similarity(&self, a: &[String], b: &[String]) -> Result<Vec<f64>, ProviderError>;
}

/// Per-text perplexity under a language model (lower is more fluent).
pub trait FluencyScorer: Send + Sync {
    fn name(&self) -> String;
    fn perplexity(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError>;
}

fn check_len(what: &str, a: usize, b: usize) -> Result<(), MetricError> {
    if a != b {
        return Err(MetricError::LengthMismatch {
            what: what.into(),
            expected: a,
            got: b,
        });
    }
    Ok(())
}

fn corpus_bleu(hyps: &[String], refs: Vec<Vec<String>>) -> Result<f64, MetricError> {
    let b = Bleu::default();
    let prep = prepare_refs(&b, &refs)?;
    Ok(b.score(&corpus_stats(&b, hyps, &prep)?.sum()))
}

/// BLEU of the outputs against their own inputs: how much of the input a rewrite copies.
pub fn self_bleu(outputs: &[String], inputs: &[String]) -> Result<f64, MetricError> {
    check_len("outputs vs inputs", inputs.len(), outputs.len())?;
    corpus_bleu(outputs, vec![inputs.to_vec()])
}

/// Multi-reference BLEU, e.g. against the 4 formal rewrites of GYAFC/XFORMAL.
pub fn multi_ref_bleu(outputs: &[String], refs: &[Vec<String>]) -> Result<f64, MetricError> {
    corpus_bleu(outputs, refs.to_vec())
}

fn word_set(s: &str) -> HashSet<String> {
    py_split(&tokenize_13a(&s.to_lowercase()))
        .map(str::to_string)
        .collect()
}

/// Lexical difference (LeD): mean Jaccard distance between the lower-cased 13a word sets of input and output,
/// in percent. 0 means every output reuses exactly the input's words.
pub fn lexical_difference(outputs: &[String], inputs: &[String]) -> Result<f64, MetricError> {
    check_len("outputs vs inputs", inputs.len(), outputs.len())?;
    if outputs.is_empty() {
        return Ok(0.0);
    }
    let total: f64 = outputs
        .iter()
        .zip(inputs)
        .map(|(o, i)| {
            let (a, b) = (word_set(o), word_set(i));
            let union = a.union(&b).count();
            if union == 0 {
                0.0
            } else {
                1.0 - a.intersection(&b).count() as f64 / union as f64
            }
        })
        .sum();
    Ok(100.0 * total / outputs.len() as f64)
}

/// Summary of per-sentence character edit distances between inputs and outputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub max: f64,
    /// `(upper bound inclusive, count)` buckets: 0, 1–5, 6–10, 11–20, 21–50, 51+ (bound `usize::MAX`).
    pub histogram: Vec<(usize, usize)>,
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Linear interpolation between closest ranks (numpy's default).
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

pub fn distribution(values: &[usize]) -> Distribution {
    let mut v: Vec<f64> = values.iter().map(|&x| x as f64).collect();
    v.sort_by(f64::total_cmp);
    let bounds = [0usize, 5, 10, 20, 50, usize::MAX];
    let mut hist: Vec<(usize, usize)> = bounds.iter().map(|&b| (b, 0)).collect();
    for &x in values {
        if let Some(h) = hist.iter_mut().find(|(b, _)| x <= *b) {
            h.1 += 1;
        }
    }
    Distribution {
        count: v.len(),
        mean: if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        },
        min: v.first().copied().unwrap_or(0.0),
        p25: percentile(&v, 0.25),
        median: percentile(&v, 0.5),
        p75: percentile(&v, 0.75),
        max: v.last().copied().unwrap_or(0.0),
        histogram: hist,
    }
}

/// Character Levenshtein distance of every input/output pair.
pub fn char_edit_distances(
    outputs: &[String],
    inputs: &[String],
) -> Result<Vec<usize>, MetricError> {
    check_len("outputs vs inputs", inputs.len(), outputs.len())?;
    Ok(crate::metric::par_map(outputs.len(), |i| {
        char_levenshtein(&inputs[i], &outputs[i])
    }))
}

/// Distinct-n (Li et al. 2016): distinct n-grams over all n-grams of the corpus, on 13a tokens.
pub fn distinct_n(texts: &[String], n: usize) -> f64 {
    let mut seen: HashMap<Vec<String>, ()> = HashMap::new();
    let mut total = 0usize;
    for t in texts {
        let toks: Vec<String> = py_split(&tokenize_13a(t)).map(str::to_string).collect();
        if toks.len() < n || n == 0 {
            continue;
        }
        for w in toks.windows(n) {
            total += 1;
            seen.insert(w.to_vec(), ());
        }
    }
    if total == 0 {
        0.0
    } else {
        seen.len() as f64 / total as f64
    }
}

/// Total 13a tokens of the outputs over those of the references (or inputs).
pub fn length_ratio(outputs: &[String], refs: &[String]) -> f64 {
    let count = |v: &[String]| {
        v.iter()
            .map(|s| py_split(&tokenize_13a(s)).count())
            .sum::<usize>()
    };
    let r = count(refs);
    if r == 0 {
        0.0
    } else {
        count(outputs) as f64 / r as f64
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bucket {
    /// Source length range in 13a tokens, inclusive.
    pub min_len: usize,
    pub max_len: Option<usize>,
    pub segments: usize,
    pub bleu: f64,
}

/// Corpus BLEU of the segments grouped by source length (MTFC Fig. 3). `edges` are the inclusive upper bounds of
/// all but the last bucket, e.g. `[10, 20, 30, 40]`.
pub fn length_bucketed_bleu(
    outputs: &[String],
    refs: &[Vec<String>],
    sources: &[String],
    edges: &[usize],
) -> Result<Vec<Bucket>, MetricError> {
    check_len("outputs vs sources", sources.len(), outputs.len())?;
    let b = Bleu::default();
    let prep = prepare_refs(&b, refs)?;
    let stats = corpus_stats(&b, outputs, &prep)?;
    let mut buckets: Vec<(Bucket, Vec<f64>)> = Vec::new();
    let mut lo = 0;
    for &e in edges.iter().chain(std::iter::once(&usize::MAX)) {
        let max_len = (e != usize::MAX).then_some(e);
        buckets.push((
            Bucket {
                min_len: lo,
                max_len,
                segments: 0,
                bleu: 0.0,
            },
            vec![0.0; stats.width],
        ));
        lo = e.saturating_add(1);
    }
    for (i, s) in sources.iter().enumerate() {
        let len = py_split(&tokenize_13a(s)).count();
        let (bk, acc) = buckets
            .iter_mut()
            .find(|(b, _)| b.max_len.is_none_or(|m| len <= m))
            .expect("last bucket is open");
        bk.segments += 1;
        for (a, v) in acc.iter_mut().zip(stats.row(i)) {
            *a += v;
        }
    }
    Ok(buckets
        .into_iter()
        .map(|(mut bk, acc)| {
            if bk.segments > 0 {
                bk.bleu = b.score(&acc);
            }
            bk
        })
        .collect())
}

/// Pang & Gimpel's thresholds t1..t4 for GM.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GmThresholds {
    pub t1: f64,
    pub t2: f64,
    pub t3: f64,
    pub t4: f64,
}

impl Default for GmThresholds {
    fn default() -> Self {
        Self {
            t1: 63.0,
            t2: 71.0,
            t3: 97.0,
            t4: -37.0,
        }
    }
}

/// GM = ∛([100·Acc − t1]₊ · [100·Sim − t2]₊ · min([t3 − PP]₊, [PP − t4]₊)); `acc`, `sim` in `[0, 1]`.
pub fn gm(acc: f64, sim: f64, pp: f64, t: GmThresholds) -> f64 {
    let pos = |x: f64| x.max(0.0);
    let prod =
        pos(100.0 * acc - t.t1) * pos(100.0 * sim - t.t2) * pos(t.t3 - pp).min(pos(pp - t.t4));
    prod.cbrt()
}

/// Whatever model-based providers are configured.
#[derive(Default)]
pub struct Providers<'a> {
    pub formality: Option<&'a dyn FormalityScorer>,
    pub similarity: Option<&'a dyn SimilarityScorer>,
    pub fluency: Option<&'a dyn FluencyScorer>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ModelScores {
    /// Share of outputs the formality scorer puts in the requested register, among those it can tell (a scorer
    /// says it cannot, for a sentence with no register marker, by NaN).
    pub acc: Option<f64>,
    /// Mean similarity between outputs and inputs.
    pub sim: Option<f64>,
    /// Mean sentence chrF/100 between outputs and inputs, whatever the similarity scorer: no model behind it.
    pub sim_chrf: Option<f64>,
    /// Mean perplexity of the outputs.
    pub pp: Option<f64>,
    /// Only when all three are available.
    pub gm: Option<f64>,
    /// What measured each: `acc:<scorer>|sim:<scorer>|pp:<model>|t:63,71,97,-37`.
    pub signature: String,
}

pub fn model_scores(
    outputs: &[String],
    inputs: &[String],
    want_formal: bool,
    providers: &Providers,
    t: GmThresholds,
) -> Result<ModelScores, ProviderError> {
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let mut s = ModelScores::default();
    let mut sig = Vec::new();
    if let Some(f) = providers.formality {
        let p = f.formality(outputs)?;
        let decided: Vec<f64> = p.into_iter().filter(|x| !x.is_nan()).collect();
        let hits = decided.iter().filter(|&&x| (x >= 0.5) == want_formal).count();
        s.acc = (!decided.is_empty()).then(|| hits as f64 / decided.len() as f64);
        sig.push(format!("acc:{}", f.name()));
    }
    if !inputs.is_empty() {
        check_len("outputs vs inputs", inputs.len(), outputs.len())?;
        let chrf = crate::chrf::Chrf::default();
        let per: Vec<f64> = outputs.iter().zip(inputs).map(|(o, i)| chrf.sentence_score(o, &[i.as_str()]) / 100.0).collect();
        s.sim_chrf = Some(mean(&per));
    }
    if let Some(sim) = providers.similarity {
        check_len("outputs vs inputs", inputs.len(), outputs.len())?;
        s.sim = Some(mean(&sim.similarity(outputs, inputs)?));
        sig.push(format!("sim:{}", sim.name()));
    }
    if let Some(fl) = providers.fluency {
        s.pp = Some(mean(&fl.perplexity(outputs)?));
        sig.push(format!("pp:{}", fl.name()));
    }
    if let (Some(a), Some(b), Some(c)) = (s.acc, s.sim, s.pp) {
        s.gm = Some(gm(a, b, c, t));
    }
    sig.push(format!("t:{},{},{},{}", t.t1, t.t2, t.t3, t.t4));
    s.signature = sig.join("|");
    Ok(s)
}

/// Sim as chrF/100 between output and input (sacrebleu's sentence chrF): Pang & Gimpel's meaning preservation
/// without a model, for languages no embedding model here covers.
pub struct ChrfSimilarity;

impl SimilarityScorer for ChrfSimilarity {
    fn name(&self) -> String {
        "chrF".into()
    }
    fn similarity(&self, a: &[String], b: &[String]) -> Result<Vec<f64>, ProviderError> {
        check_len("outputs vs inputs", b.len(), a.len())?;
        let chrf = crate::chrf::Chrf::default();
        Ok(a.iter().zip(b).map(|(x, y)| chrf.sentence_score(x, &[y.as_str()]) / 100.0).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn copying_the_input_scores_100_self_bleu_and_no_lexical_difference() {
        let i = v(&[
            "I am going to the shop now.",
            "See you tomorrow at noon then.",
        ]);
        assert!((self_bleu(&i, &i).unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(lexical_difference(&i, &i).unwrap(), 0.0);
        let o = v(&["Completely different words here.", "Nothing alike."]);
        assert!(lexical_difference(&o, &i).unwrap() > 90.0);
        assert!(
            self_bleu(&v(&["x"]), &v(&["a", "b"])).is_err(),
            "unequal lines are an error"
        );
    }

    #[test]
    fn distinct_and_length_ratio() {
        assert_eq!(distinct_n(&v(&["a a a a"]), 1), 0.25);
        assert_eq!(distinct_n(&v(&["a b", "a b"]), 2), 0.5);
        assert_eq!(distinct_n(&v(&[""]), 1), 0.0, "empty corpus");
        assert_eq!(length_ratio(&v(&["a b c d"]), &v(&["a b"])), 2.0);
    }

    #[test]
    fn levenshtein_distribution() {
        let d = char_edit_distances(&v(&["abc", "xyz", "日本"]), &v(&["abc", "abc", "日本語"]))
            .unwrap();
        assert_eq!(d, vec![0, 3, 1]);
        let s = distribution(&d);
        assert_eq!((s.min, s.median, s.max), (0.0, 1.0, 3.0));
        assert_eq!(s.histogram[0], (0, 1));
        assert_eq!(s.histogram[1], (5, 2));
    }

    #[test]
    fn buckets_partition_the_corpus() {
        let src = v(&["a b", "a b c d e f g h i j k l", "x"]);
        let out = v(&["a b", "a b c", "x"]);
        let b = length_bucketed_bleu(&out, std::slice::from_ref(&out), &src, &[10]).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].segments + b[1].segments, 3);
        assert_eq!(b[1].min_len, 11);
        assert_eq!(b[1].max_len, None, "the last bucket is open-ended");
    }

    #[test]
    fn gm_follows_pang_and_gimpel() {
        let t = GmThresholds::default();
        assert_eq!(gm(0.5, 0.9, 50.0, t), 0.0, "accuracy under t1 zeroes GM");
        let g = gm(0.9, 0.8, 40.0, t);
        assert!((g - (27.0f64 * 9.0 * 57.0).cbrt()).abs() < 1e-9);
    }

    struct Fixed(f64);
    impl FormalityScorer for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn formality(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError> {
            Ok(vec![self.0; texts.len()])
        }
    }

    #[test]
    fn providers_are_optional() {
        let out = v(&["Good day."]);
        let f = Fixed(0.9);
        let s = model_scores(
            &out,
            &out,
            true,
            &Providers {
                formality: Some(&f),
                ..Default::default()
            },
            GmThresholds::default(),
        )
        .unwrap();
        assert_eq!(s.acc, Some(1.0));
        assert_eq!(s.gm, None, "GM needs all three providers");
    }
}
