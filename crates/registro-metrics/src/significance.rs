//! Paired significance tests between a baseline and N systems on sufficient statistics, ported from sacrebleu
//! 2.6.0 (`significance.py`): paired bootstrap resampling (Koehn 2004; p-value as in Moses'
//! `bootstrap-hypothesis-difference-significance.pl`) and approximate randomization (Riezler & Maxwell 2005).
//! With [`nprand`](crate::nprand) drawing numpy's exact indices and float32 statistics emulated, the means,
//! 95% CIs and p-values equal sacrebleu's `--paired-bs` / `--paired-ar` output for any seed.

use serde::Serialize;

use crate::metric::{par_map, Metric, SegmentStats};
use crate::nprand::Pcg64;
use crate::MetricError;

/// sacrebleu's default seed (`SACREBLEU_SEED`).
pub const DEFAULT_SEED: u64 = 12345;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestResult {
    pub score: f64,
    /// Absent for the baseline.
    pub p_value: Option<f64>,
    /// Bootstrap mean and half-width of the 95% confidence interval.
    pub mean: Option<f64>,
    pub ci: Option<f64>,
}

/// numpy's pairwise summation for float64 (`pairwise_sum_DOUBLE`), so that means match to the last bit.
fn np_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        np_sum(&a[..n2]) + np_sum(&a[n2..])
    }
}

/// The same for float32 arrays (numpy accumulates float32 sums in float32).
fn np_sum_f32(a: &[f32]) -> f32 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0f32;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f32; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        np_sum_f32(&a[..n2]) + np_sum_f32(&a[n2..])
    }
}

fn np_mean(a: &[f64]) -> f64 {
    np_sum(a) / a.len() as f64
}

fn np_mean_f32(a: &[f32]) -> f32 {
    np_sum_f32(a) / a.len() as f32
}

/// Mean and 95% CI half-width of resampled scores (sacrebleu's `estimate_ci`).
pub fn estimate_ci(scores: &[f64]) -> (f64, f64) {
    let mut s = scores.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let lower = n / 40;
    let upper = n - lower - 1;
    (np_mean(&s), 0.5 * (s[upper] - s[lower]))
}

/// `estimate_ci` on a float32 array.
fn estimate_ci_f32(scores: &[f64]) -> (f64, f64) {
    let mut s: Vec<f32> = scores.iter().map(|&x| x as f32).collect();
    s.sort_by(f32::total_cmp);
    let n = s.len();
    let lower = n / 40;
    let upper = n - lower - 1;
    (
        np_mean_f32(&s) as f64,
        (0.5f32 * (s[upper] - s[lower])) as f64,
    )
}

fn ci_for(metric: &dyn Metric, scores: &[f64]) -> (f64, f64) {
    if metric.resampled_f32() {
        estimate_ci_f32(scores)
    } else {
        estimate_ci(scores)
    }
}

/// Bootstrap p-value: how often the centred resampled |difference| exceeds the observed one.
fn bootstrap_p(metric: &dyn Metric, sys: &[f64], bl: &[f64], diff: f64) -> f64 {
    let c = if metric.resampled_f32() {
        let d: Vec<f32> = sys
            .iter()
            .zip(bl)
            .map(|(&a, &b)| (a as f32 - b as f32).abs())
            .collect();
        let m = np_mean_f32(&d);
        let diff = diff as f32;
        d.iter().filter(|&&x| x - m > diff).count()
    } else {
        let d: Vec<f64> = sys.iter().zip(bl).map(|(a, b)| (a - b).abs()).collect();
        let m = np_mean(&d);
        d.iter().filter(|&&x| x - m > diff).count()
    };
    (c + 1) as f64 / (sys.len() + 1) as f64
}

/// Bootstrap sample indices, `samples × n`, as numpy's `default_rng(seed).choice(n, (samples, n))`.
pub fn bootstrap_indices(n: usize, samples: usize, seed: u64) -> Vec<u32> {
    Pcg64::from_seed(seed).choice(n, n * samples)
}

/// Scores of each bootstrap sample, computed with sacrebleu's float32 statistics.
pub fn bootstrap_scores(
    metric: &dyn Metric,
    stats: &SegmentStats,
    idx: &[u32],
    samples: usize,
) -> Vec<f64> {
    let n = stats.len();
    let w = stats.width;
    par_map(samples, |s| {
        let mut acc = vec![0.0f64; w];
        for &i in &idx[s * n..(s + 1) * n] {
            for (a, v) in acc.iter_mut().zip(stats.row(i as usize)) {
                *a += v;
            }
        }
        let acc32: Vec<f32> = acc.iter().map(|&x| x as f32).collect();
        metric.score_f32(&acc32)
    })
}

fn check(baseline: &SegmentStats, systems: &[&SegmentStats]) -> Result<(), MetricError> {
    if baseline.is_empty() {
        return Err(MetricError::Input(
            "significance test on an empty test set".into(),
        ));
    }
    for (k, s) in systems.iter().enumerate() {
        if s.len() != baseline.len() || s.width != baseline.width {
            return Err(MetricError::LengthMismatch {
                what: format!("system {} vs baseline segments", k + 1),
                expected: baseline.len(),
                got: s.len(),
            });
        }
    }
    Ok(())
}

/// Paired bootstrap resampling. Returns the baseline's result first, then one per system.
pub fn paired_bootstrap(
    metric: &dyn Metric,
    baseline: &SegmentStats,
    systems: &[&SegmentStats],
    samples: usize,
    seed: u64,
) -> Result<Vec<TestResult>, MetricError> {
    check(baseline, systems)?;
    let idx = bootstrap_indices(baseline.len(), samples, seed);
    let bl_score = metric.score(&baseline.sum());
    let bl_scores = bootstrap_scores(metric, baseline, &idx, samples);
    let (m, ci) = ci_for(metric, &bl_scores);
    let mut out = vec![TestResult {
        score: bl_score,
        p_value: None,
        mean: Some(m),
        ci: Some(ci),
    }];
    for sys in systems {
        let score = metric.score(&sys.sum());
        let sys_scores = bootstrap_scores(metric, sys, &idx, samples);
        let (m, ci) = ci_for(metric, &sys_scores);
        let p = bootstrap_p(metric, &sys_scores, &bl_scores, (bl_score - score).abs());
        out.push(TestResult {
            score,
            p_value: Some(p),
            mean: Some(m),
            ci: Some(ci),
        });
    }
    Ok(out)
}

/// Paired two-sided approximate randomization. `confidence_samples > 0` adds bootstrap means and CIs.
pub fn paired_ar(
    metric: &dyn Metric,
    baseline: &SegmentStats,
    systems: &[&SegmentStats],
    trials: usize,
    confidence_samples: usize,
    seed: u64,
) -> Result<Vec<TestResult>, MetricError> {
    check(baseline, systems)?;
    let n = baseline.len();
    let w = baseline.width;
    let bl_total = baseline.sum();
    let bl_score = metric.score(&bl_total);
    let mut out = vec![TestResult {
        score: bl_score,
        p_value: None,
        mean: None,
        ci: None,
    }];
    if confidence_samples > 0 {
        let idx = bootstrap_indices(n, confidence_samples, seed);
        let (m, ci) = ci_for(
            metric,
            &bootstrap_scores(metric, baseline, &idx, confidence_samples),
        );
        out[0].mean = Some(m);
        out[0].ci = Some(ci);
    }
    for sys in systems {
        // Every system test restarts the generator from the seed, as sacrebleu does.
        let mut rng = Pcg64::from_seed(seed);
        let sel = rng.bools(trials * n);
        let bs_idx = (confidence_samples > 0).then(|| rng.choice(n, n * confidence_samples));
        let sys_total = sys.sum();
        let score = metric.score(&sys_total);
        let diff = (bl_score - score).abs();
        // shuf_a = Σ_sel baseline + Σ_¬sel system; shuf_b is the complement.
        let exceed: usize = par_map(trials, |t| {
            let mut a = sys_total.clone();
            for i in 0..n {
                if sel[t * n + i] {
                    for ((x, b), s) in a.iter_mut().zip(baseline.row(i)).zip(sys.row(i)) {
                        *x += b - s;
                    }
                }
            }
            let b: Vec<f64> = (0..w).map(|k| bl_total[k] + sys_total[k] - a[k]).collect();
            usize::from((metric.score(&a) - metric.score(&b)).abs() > diff)
        })
        .into_iter()
        .sum();
        let p = (exceed + 1) as f64 / (trials + 1) as f64;
        let mut r = TestResult {
            score,
            p_value: Some(p),
            mean: None,
            ci: None,
        };
        if let Some(idx) = bs_idx {
            let (m, ci) = ci_for(
                metric,
                &bootstrap_scores(metric, sys, &idx, confidence_samples),
            );
            r.mean = Some(m);
            r.ci = Some(ci);
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_pairwise_sum_shape() {
        let v: Vec<f64> = (0..1000).map(|i| 0.1 * i as f64).collect();
        let naive: f64 = v.iter().sum();
        assert!((np_sum(&v) - naive).abs() < 1e-9);
        assert_eq!(np_sum(&[1.0, 2.0]), 3.0);
    }

    #[test]
    fn ci_uses_the_2_5_and_97_5_percentiles() {
        let scores: Vec<f64> = (0..1000).map(|i| i as f64).collect();
        let (m, ci) = estimate_ci(&scores);
        assert_eq!(m, 499.5);
        assert_eq!(ci, 0.5 * (974.0 - 25.0));
    }
}
