//! Significance against the baseline, from the metric engine (`registro_metrics::significance`, a port of
//! sacrebleu 2.6.0's paired bootstrap and approximate randomization, numpy's resampling included). Corpus metrics
//! go straight through the engine; metrics whose scoring differs per system (M-Acc for each run's register) or
//! that are plain means (formality) reuse the engine's resample indices and CI estimate, with sacrebleu's
//! bootstrap p-value rule applied here.

use anyhow::Result;
use registro_metrics::significance::{
    bootstrap_many_seeded, bootstrap_result, estimate_ci, paired_ar, paired_bootstrap as engine_bootstrap,
    Resampled, TestResult,
};
use registro_metrics::{Metric, SegmentStats};
use serde::{Deserialize, Serialize};

/// Which paired test marks a system as different from the baseline (the sample count travels separately, in
/// `CompareOptions`; `registro_metrics::SigTest` is the metric engine's own form with the count inside).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum PairedTest {
    /// Paired bootstrap resampling (sacrebleu `--paired-bs`).
    #[default]
    #[cfg_attr(feature = "clap", value(alias = "bs"))]
    Bootstrap,
    /// Paired approximate randomization (sacrebleu `--paired-ar`); CIs still come from the bootstrap.
    #[cfg_attr(feature = "clap", value(alias = "ar"))]
    Randomization,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct PairedResult {
    /// Bootstrap mean and its 95% interval.
    pub mean: f64,
    pub ci: (f64, f64),
    /// Against the baseline; `None` for the baseline itself.
    pub p: Option<f64>,
}

/// One corpus metric for every system (`stats[i]`), tested against `stats[base]` by the engine.
pub fn corpus_test(
    metric: &dyn Metric,
    stats: &[&SegmentStats],
    base: usize,
    test: PairedTest,
    samples: usize,
    seed: u64,
) -> Result<Vec<PairedResult>> {
    let others: Vec<&SegmentStats> = stats.iter().enumerate().filter(|(i, _)| *i != base).map(|(_, s)| *s).collect();
    let res = match test {
        PairedTest::Bootstrap => engine_bootstrap(metric, stats[base], &others, samples, seed)?,
        PairedTest::Randomization => paired_ar(metric, stats[base], &others, samples.max(1), samples, seed)?,
    };
    // The engine answers baseline first, then the others in order.
    let mut out = Vec::with_capacity(stats.len());
    let mut rest = res[1..].iter();
    for i in 0..stats.len() {
        let r = if i == base { &res[0] } else { rest.next().expect("one result per system") };
        out.push(from_engine(r));
    }
    Ok(out)
}

fn from_engine(r: &TestResult) -> PairedResult {
    let mean = r.mean.unwrap_or(r.score);
    let half = r.ci.unwrap_or(0.0);
    PairedResult { mean, ci: (mean - half, mean + half), p: r.p_value }
}

/// [`corpus_test`] under the bootstrap when every system's resampled scores (`boot[i]`, over [`Resamples`] with
/// the same size and seed) are already known: the engine's CI and p-value rule on them, so results equal
/// `corpus_test(…, PairedTest::Bootstrap, …)` to the last bit.
pub fn corpus_from_scores(metric: &dyn Metric, stats: &[&SegmentStats], base: usize, boot: &[Vec<f64>]) -> Vec<PairedResult> {
    let bl_score = metric.score(&stats[base].sum());
    (0..stats.len())
        .map(|i| {
            let baseline = (i != base).then(|| (bl_score, boot[base].as_slice()));
            let score = if i == base { bl_score } else { metric.score(&stats[i].sum()) };
            from_engine(&bootstrap_result(metric, score, &boot[i], baseline))
        })
        .collect()
}

/// The engine's resample indices (drawn a block at a time when resampling), shared by the per-system paths below.
pub struct Resamples {
    pub samples: usize,
    seed: u64,
}

impl Resamples {
    pub fn new(samples: usize, seed: u64) -> Self {
        Resamples { samples, seed }
    }

    /// Resampled scores of many statistics in one pass (see `registro_metrics::significance::bootstrap_many`),
    /// one result per job.
    pub fn many(&self, jobs: &[Resampled<'_>]) -> Vec<Vec<f64>> {
        bootstrap_many_seeded(jobs, self.samples, self.seed)
    }

    /// Resampled means of a per-segment value (formality scores, …).
    #[cfg(test)]
    pub fn means(&self, values: &[f64]) -> Vec<f64> {
        self.many(&[Resampled::Mean(values)]).pop().expect("one job")
    }
}

/// sacrebleu's bootstrap test on already resampled scores: CI from the engine's estimate, p-value = share of
/// resamples whose |difference| exceeds its mean by more than the observed |difference|.
pub fn paired_bootstrap(sys_real: f64, sys_boot: &[f64], base: Option<(f64, &[f64])>) -> PairedResult {
    let (mean, half) = estimate_ci(sys_boot);
    let p = base.map(|(base_real, base_boot)| {
        let real = (sys_real - base_real).abs();
        let d: Vec<f64> = sys_boot.iter().zip(base_boot).map(|(s, b)| (s - b).abs()).collect();
        let m = d.iter().sum::<f64>() / d.len().max(1) as f64;
        let c = d.iter().filter(|x| *x - m > real).count();
        (c as f64 + 1.0) / (d.len() as f64 + 1.0)
    });
    PairedResult { mean, ci: (mean - half, mean + half), p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_systems_follow_sacrebleus_rule() {
        // sacrebleu (after multeval) counts only resamples with a difference strictly above the real one, so a
        // system against itself gets the smallest p, 1/(n+1): "a zero difference should not be attributed to
        // chance". The Dashboard must show the same p as sacrebleu would.
        let r = Resamples::new(200, 12345);
        let vals: Vec<f64> = (0..50).map(|i| (i % 7) as f64).collect();
        let b = r.means(&vals);
        let res = paired_bootstrap(3.0, &b, Some((3.0, &b)));
        assert!((res.p.unwrap() - 1.0 / 201.0).abs() < 1e-12);
        assert!(res.ci.0 < res.mean && res.mean < res.ci.1);
    }

    #[test]
    fn batched_bootstrap_equals_the_engines_test() {
        // Three systems' chrF statistics (float32 resampling) from real-looking sentences.
        let chrf = registro_metrics::Chrf::default();
        let refs: Vec<String> = (0..40).map(|i| format!("Können Sie mir bitte mit Punkt {i} helfen?")).collect();
        let prep = registro_metrics::prepare_refs(&chrf, &[refs.clone()]).unwrap();
        let hyps = |f: &dyn Fn(usize, &str) -> String| refs.iter().enumerate().map(|(i, r)| f(i, r)).collect::<Vec<_>>();
        let stats = [
            registro_metrics::corpus_stats(&chrf, &hyps(&|_, r| r.to_string()), &prep).unwrap(),
            registro_metrics::corpus_stats(&chrf, &hyps(&|i, r| if i % 3 == 0 { r.replace("bitte", "") } else { r.to_string() }), &prep).unwrap(),
            registro_metrics::corpus_stats(&chrf, &hyps(&|i, r| if i % 2 == 0 { r.replace("Sie", "du") } else { r.to_string() }), &prep).unwrap(),
        ];
        let stats: Vec<&SegmentStats> = stats.iter().collect();
        for base in 0..3 {
            let engine = corpus_test(&chrf, &stats, base, PairedTest::Bootstrap, 300, 12345).unwrap();
            let r = Resamples::new(300, 12345);
            let boot = r.many(&stats.iter().map(|s| Resampled::Metric(&chrf, s)).collect::<Vec<_>>());
            assert_eq!(corpus_from_scores(&chrf, &stats, base, &boot), engine);
        }
    }

    #[test]
    fn clearly_better_system_is_significant() {
        let r = Resamples::new(500, 1);
        let base: Vec<f64> = (0..100).map(|i| (i % 5) as f64).collect();
        let sys: Vec<f64> = base.iter().map(|v| v + 1.0).collect();
        let (bb, sb) = (r.means(&base), r.means(&sys));
        let res = paired_bootstrap(3.0, &sb, Some((2.0, &bb)));
        assert!(res.p.unwrap() < 0.01, "{:?}", res.p);
    }
}
