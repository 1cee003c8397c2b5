//! What every corpus metric shares, in sacrebleu's spirit: a segment reduces to a vector of sufficient statistics,
//! the corpus score is a function of their sum, and resampling (bootstrap, approximate randomization) only ever
//! re-sums statistics. A signature string makes each score reproducible.

use std::any::Any;

use serde::Serialize;

use crate::MetricError;

/// Whatever a metric pre-computes from the references of one segment (n-gram counts, tokenized words).
pub type RefPrep = Box<dyn Any + Send + Sync>;

/// The sacrebleu version whose numbers and signatures Registro reproduces.
pub const SACREBLEU_VERSION: &str = "2.6.0";

pub trait Metric: Send + Sync {
    /// Display name as sacrebleu prints it: `BLEU`, `chrF2`, `chrF2++`, `TER`.
    fn name(&self) -> String;
    /// Key/value pairs specific to this metric, in sacrebleu's signature order (after the generic ones).
    fn signature_fields(&self) -> Vec<(&'static str, String)>;
    fn prepare_refs(&self, refs: &[&str]) -> RefPrep;
    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64>;
    /// Corpus score from summed statistics.
    fn score(&self, stats: &[f64]) -> f64;
    /// The score as sacrebleu computes it inside its resampling tests, where statistics are numpy float32 and
    /// (under numpy ≥ 2) the arithmetic stays in float32. Only matters for bit-identical confidence intervals.
    fn score_f32(&self, stats: &[f32]) -> f64 {
        self.score(&stats.iter().map(|&x| x as f64).collect::<Vec<_>>())
    }
    /// Whether [`Metric::score_f32`] yields float32 values (chrF, TER), which numpy then keeps in float32 arrays
    /// for the confidence interval and p-value arithmetic.
    fn resampled_f32(&self) -> bool {
        false
    }
    fn higher_is_better(&self) -> bool {
        true
    }
    /// The values a score can take (low, high; infinite where open): a confidence interval shown for the score is
    /// clipped to it, so an accuracy never reads above 100.
    fn range(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// A bootstrap interval `mean ± half` clipped to `range` (see [`Metric::range`]): sacrebleu's interval is centred
/// on the resamples' mean, so near a bound it reaches past what the metric can score.
pub fn clip_interval(mean: f64, half: f64, range: (f64, f64)) -> (f64, f64) {
    ((mean - half).clamp(range.0, range.1), (mean + half).clamp(range.0, range.1))
}

/// Number of references as the signature shows it (`var` when segments differ).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NRefs {
    Fixed(usize),
    Variable,
}

impl std::fmt::Display for NRefs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NRefs::Fixed(n) => write!(f, "{n}"),
            NRefs::Variable => write!(f, "var"),
        }
    }
}

/// Resampling settings that sacrebleu adds to a signature.
#[derive(Clone, Debug, Default)]
pub struct SigResampling {
    pub bs: Option<usize>,
    pub ar: Option<usize>,
    pub seed: Option<String>,
}

/// sacrebleu's long signature: `nrefs|bs|ar|seed|<metric fields>|version`.
pub fn signature(metric: &dyn Metric, nrefs: &NRefs, rs: &SigResampling) -> String {
    let mut parts = vec![format!("nrefs:{nrefs}")];
    if let Some(bs) = rs.bs {
        parts.push(format!("bs:{bs}"));
    }
    if let Some(ar) = rs.ar {
        parts.push(format!("ar:{ar}"));
    }
    if let Some(seed) = &rs.seed {
        parts.push(format!("seed:{seed}"));
    }
    for (k, v) in metric.signature_fields() {
        parts.push(format!("{k}:{v}"));
    }
    parts.push(format!("version:{SACREBLEU_VERSION}"));
    parts.join("|")
}

/// References of a test set, prepared once for a metric and reused for every system.
pub struct PreparedRefs {
    pub segments: Vec<RefPrep>,
    pub nrefs: NRefs,
}

/// `refs` is a list of reference streams (one per reference file), each one line per segment. Empty strings are
/// real (empty) references, as in sacrebleu.
pub fn prepare_refs(
    metric: &dyn Metric,
    refs: &[Vec<String>],
) -> Result<PreparedRefs, MetricError> {
    let Some(first) = refs.first() else {
        return Err(MetricError::Input("no reference stream given".into()));
    };
    for (i, r) in refs.iter().enumerate() {
        if r.len() != first.len() {
            return Err(MetricError::LengthMismatch {
                what: format!("reference stream {} vs reference stream 1", i + 1),
                expected: first.len(),
                got: r.len(),
            });
        }
    }
    let n = first.len();
    let segments = par_map(n, |i| {
        let lines: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
        metric.prepare_refs(&lines)
    });
    Ok(PreparedRefs {
        segments,
        nrefs: NRefs::Fixed(refs.len()),
    })
}

/// Per-segment sufficient statistics of one system, row-major.
#[derive(Clone, Debug, Serialize)]
pub struct SegmentStats {
    pub width: usize,
    pub data: Vec<f64>,
}

impl SegmentStats {
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.width..(i + 1) * self.width]
    }
    pub fn sum(&self) -> Vec<f64> {
        let mut total = vec![0.0; self.width];
        for i in 0..self.len() {
            for (t, v) in total.iter_mut().zip(self.row(i)) {
                *t += v;
            }
        }
        total
    }
}

pub fn corpus_stats(
    metric: &dyn Metric,
    hyps: &[String],
    refs: &PreparedRefs,
) -> Result<SegmentStats, MetricError> {
    if hyps.len() != refs.segments.len() {
        return Err(MetricError::LengthMismatch {
            what: "hypothesis lines vs reference lines".into(),
            expected: refs.segments.len(),
            got: hyps.len(),
        });
    }
    if hyps.is_empty() {
        // sacrebleu fails on an empty corpus too; a score of an empty file would only mislead.
        return Err(MetricError::Input(
            "no segments to score (empty hypothesis file?)".into(),
        ));
    }
    let rows = par_map(hyps.len(), |i| {
        metric.segment_stats(&hyps[i], &refs.segments[i])
    });
    let width = rows.first().map_or(0, |r| r.len());
    let mut data = Vec::with_capacity(width * rows.len());
    for r in rows {
        data.extend(r);
    }
    Ok(SegmentStats { width, data })
}

/// Maps `0..n` on all cores, keeping order. Segments are independent, so this is the cheap win for TER's shift
/// search and n-gram counting.
pub fn par_map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    if threads <= 1 || n < 64 {
        return (0..n).map(&f).collect();
    }
    let chunk = n.div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t * chunk..((t + 1) * chunk).min(n))
                        .map(f)
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("metric worker panicked"))
            .collect()
    })
}
