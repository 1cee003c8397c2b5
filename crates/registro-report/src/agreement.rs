//! Agreement statistics for human evaluation, and correlation of automatic metrics with human scores.
//!
//! - ICC (Shrout & Fleiss 1979, all six forms) for the ordinal formality scale.
//! - Weighted Cohen's κ, and the simulated-annotator κ XFORMAL uses (after Pavlick & Tetreault 2016) when
//!   every item has several raters but raters differ between items: one rating drawn at random is "annotator A",
//!   the rounded mean of the others is "annotator B"; κ averaged over repetitions.
//! - Kendall's τ-b (rankings; tie-aware) and Spearman's ρ (average ranks for ties), plus Pearson's r.
//!
//! Functions return `None` where the statistic is undefined (too few items, zero variance) rather than NaN.

use serde::{Deserialize, Serialize};

use crate::ReportError;

// Correlations live with the metrics (the rewrite scorer and the dashboard share them).
pub use registro_metrics::correlation::{pearson, ranks, spearman};

/// Kendall's τ-b: (C − D) / sqrt((P − Tx)(P − Ty)), with P all pairs and Tx/Ty the pairs tied in x/y.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let n = x.len();
    let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].total_cmp(&x[j]) as i64;
            let dy = y[i].total_cmp(&y[j]) as i64;
            if dx == 0 {
                tx += 1;
            }
            if dy == 0 {
                ty += 1;
            }
            if dx != 0 && dy != 0 {
                if dx == dy {
                    c += 1;
                } else {
                    d += 1;
                }
            }
        }
    }
    let p = (n * (n - 1) / 2) as i64;
    let denom = (((p - tx) * (p - ty)) as f64).sqrt();
    if denom == 0.0 {
        return None;
    }
    Some((c - d) as f64 / denom)
}

/// The six intraclass correlations of Shrout & Fleiss (1979) for `n` targets each rated by the same `k` raters.
/// `ICC(2,1)` (two-way random, absolute agreement, single rater) is the one to report for crowd-style ratings.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Icc {
    pub n: usize,
    pub k: usize,
    pub icc1_1: f64,
    pub icc2_1: f64,
    pub icc3_1: f64,
    pub icc1_k: f64,
    pub icc2_k: f64,
    pub icc3_k: f64,
}

/// `ratings[target][rater]`; every row must have the same number (≥ 2) of finite ratings.
pub fn icc(ratings: &[Vec<f64>]) -> Result<Icc, ReportError> {
    let n = ratings.len();
    if n < 2 {
        return Err(ReportError::Invalid(format!("ICC needs at least 2 rated items, got {n}")));
    }
    let k = ratings[0].len();
    if k < 2 {
        return Err(ReportError::Invalid(format!("ICC needs at least 2 raters per item, got {k}")));
    }
    for (i, row) in ratings.iter().enumerate() {
        if row.len() != k {
            return Err(ReportError::Invalid(format!(
                "ICC needs every item rated by all {k} raters; item {i} has {} ratings",
                row.len()
            )));
        }
        if row.iter().any(|v| !v.is_finite()) {
            return Err(ReportError::Invalid(format!("ICC rating of item {i} is not a finite number")));
        }
    }
    let (nf, kf) = (n as f64, k as f64);
    let grand = ratings.iter().flatten().sum::<f64>() / (nf * kf);
    let row_means: Vec<f64> = ratings.iter().map(|r| r.iter().sum::<f64>() / kf).collect();
    let col_means: Vec<f64> = (0..k).map(|j| ratings.iter().map(|r| r[j]).sum::<f64>() / nf).collect();
    let ss_total: f64 = ratings.iter().flatten().map(|v| (v - grand).powi(2)).sum();
    let ss_rows: f64 = kf * row_means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let ss_cols: f64 = nf * col_means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let ss_err = ss_total - ss_rows - ss_cols;
    let ss_within = ss_total - ss_rows;
    let bms = ss_rows / (nf - 1.0);
    let jms = ss_cols / (kf - 1.0);
    let ems = ss_err / ((nf - 1.0) * (kf - 1.0));
    let wms = ss_within / (nf * (kf - 1.0));
    let div = |a: f64, b: f64| if b == 0.0 { f64::NAN } else { a / b };
    Ok(Icc {
        n,
        k,
        icc1_1: div(bms - wms, bms + (kf - 1.0) * wms),
        icc2_1: div(bms - ems, bms + (kf - 1.0) * ems + kf * (jms - ems) / nf),
        icc3_1: div(bms - ems, bms + (kf - 1.0) * ems),
        icc1_k: div(bms - wms, bms),
        icc2_k: div(bms - ems, bms + (jms - ems) / nf),
        icc3_k: div(bms - ems, bms),
    })
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum KappaWeights {
    /// Plain Cohen's κ: every disagreement costs the same.
    Unweighted,
    /// Cost grows with distance on the scale.
    Linear,
    /// Cost grows with squared distance.
    Quadratic,
}

/// Cohen's κ between two raters over an integer scale `lo..=hi`, with disagreement weights.
pub fn weighted_kappa(a: &[i32], b: &[i32], lo: i32, hi: i32, weights: KappaWeights) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() || hi <= lo {
        return None;
    }
    let m = (hi - lo + 1) as usize;
    let idx = |v: i32| (v.clamp(lo, hi) - lo) as usize;
    let mut obs = vec![0.0; m * m];
    let mut ra = vec![0.0; m];
    let mut rb = vec![0.0; m];
    let n = a.len() as f64;
    for (&x, &y) in a.iter().zip(b) {
        obs[idx(x) * m + idx(y)] += 1.0 / n;
        ra[idx(x)] += 1.0 / n;
        rb[idx(y)] += 1.0 / n;
    }
    let span = (m - 1) as f64;
    let w = |i: usize, j: usize| {
        let d = (i as f64 - j as f64).abs() / span;
        match weights {
            KappaWeights::Unweighted => {
                if i == j {
                    0.0
                } else {
                    1.0
                }
            }
            KappaWeights::Linear => d,
            KappaWeights::Quadratic => d * d,
        }
    };
    let (mut wo, mut we) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..m {
            wo += w(i, j) * obs[i * m + j];
            we += w(i, j) * ra[i] * rb[j];
        }
    }
    if we == 0.0 {
        return None;
    }
    Some(1.0 - wo / we)
}

/// XFORMAL's simulated-annotator κ: `items[i]` holds all ratings of item `i` (items with fewer than two are
/// skipped). Each repetition draws one rating per item as annotator A and takes the rounded mean of the rest as
/// annotator B; the mean κ over `reps` repetitions is returned. Deterministic for a given `seed`.
pub fn simulated_annotator_kappa(
    items: &[Vec<i32>],
    lo: i32,
    hi: i32,
    weights: KappaWeights,
    reps: usize,
    seed: u64,
) -> Option<f64> {
    let usable: Vec<&Vec<i32>> = items.iter().filter(|r| r.len() >= 2).collect();
    if usable.is_empty() || reps == 0 {
        return None;
    }
    let mut rng = SplitMix64(seed);
    let (mut sum, mut count) = (0.0, 0usize);
    let mut a = Vec::with_capacity(usable.len());
    let mut b = Vec::with_capacity(usable.len());
    for _ in 0..reps {
        a.clear();
        b.clear();
        for r in &usable {
            let pick = (rng.next() % r.len() as u64) as usize;
            let rest: f64 = r.iter().enumerate().filter(|(i, _)| *i != pick).map(|(_, v)| *v as f64).sum();
            a.push(r[pick]);
            b.push(round_half_away((rest / (r.len() - 1) as f64).clamp(lo as f64, hi as f64)));
        }
        if let Some(k) = weighted_kappa(&a, &b, lo, hi, weights) {
            sum += k;
            count += 1;
        }
    }
    (count > 0).then(|| sum / count as f64)
}

fn round_half_away(v: f64) -> i32 {
    v.round() as i32
}

/// Agreement on relative rankings: `items[i][rater]` is that rater's score/rank per system for item `i`
/// (lower = better or higher = better, consistently). Mean Kendall τ-b over all rater pairs and items.
pub fn ranking_agreement(items: &[Vec<Vec<f64>>]) -> Option<f64> {
    let (mut sum, mut count) = (0.0, 0usize);
    for raters in items {
        for i in 0..raters.len() {
            for j in i + 1..raters.len() {
                if let Some(t) = kendall_tau_b(&raters[i], &raters[j]) {
                    sum += t;
                    count += 1;
                }
            }
        }
    }
    (count > 0).then(|| sum / count as f64)
}

/// Small, seedable generator so agreement figures are reproducible without a `rand` dependency.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fisher–Yates shuffle (used for blind, randomised rating order).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges, and the ICCs they report (two decimals).
    #[test]
    fn icc_matches_shrout_fleiss_table() {
        let data = vec![
            vec![9.0, 2.0, 5.0, 8.0],
            vec![6.0, 1.0, 3.0, 2.0],
            vec![8.0, 4.0, 6.0, 8.0],
            vec![7.0, 1.0, 2.0, 6.0],
            vec![10.0, 5.0, 6.0, 9.0],
            vec![6.0, 2.0, 4.0, 7.0],
        ];
        let r = icc(&data).unwrap();
        assert!(close(r.icc1_1, 0.17, 0.005), "ICC(1,1) = {}", r.icc1_1);
        assert!(close(r.icc2_1, 0.29, 0.005), "ICC(2,1) = {}", r.icc2_1);
        assert!(close(r.icc3_1, 0.71, 0.005), "ICC(3,1) = {}", r.icc3_1);
        assert!(close(r.icc1_k, 0.44, 0.005), "ICC(1,4) = {}", r.icc1_k);
        assert!(close(r.icc2_k, 0.62, 0.005), "ICC(2,4) = {}", r.icc2_k);
        assert!(close(r.icc3_k, 0.91, 0.005), "ICC(3,4) = {}", r.icc3_k);
    }

    #[test]
    fn icc_rejects_ragged_input_with_item_number() {
        let err = icc(&[vec![1.0, 2.0], vec![1.0]]).unwrap_err().to_string();
        assert!(err.contains("item 1"), "{err}");
    }

    #[test]
    fn identical_raters_agree_perfectly() {
        let a = [1, 2, 3, 3, 2];
        for w in [KappaWeights::Unweighted, KappaWeights::Linear, KappaWeights::Quadratic] {
            assert!(close(weighted_kappa(&a, &a, 1, 3, w).unwrap(), 1.0, 1e-12));
        }
    }

    /// Hand computation, scale 1..3, A = [1,2,3,1,2], B = [1,2,2,1,3] (n = 5):
    /// observed agreement 3/5; marginals A = (.4,.4,.2), B = (.4,.4,.2) ⇒ expected .16+.16+.04 = .36;
    /// unweighted κ = (.6 − .36)/(1 − .36) = .375.
    /// Linear weights |i−j|/2: observed cost = (.5·.2 + .5·.2) = .2; expected cost = Σ w·pA·pB
    ///   = 2·[.5·(.4·.4) + 1·(.4·.2) + .5·(.4·.2)] = 2·(.08+.08+.04) = .4 ⇒ κ_lin = 1 − .2/.4 = .5.
    /// Quadratic weights (|i−j|/2)²: observed .25·.4 = .1; expected 2·[.25·.16 + 1·.08 + .25·.08] = .28
    ///   ⇒ κ_quad = 1 − .1/.28 = .642857…
    #[test]
    fn weighted_kappa_matches_hand_computation() {
        let a = [1, 2, 3, 1, 2];
        let b = [1, 2, 2, 1, 3];
        assert!(close(weighted_kappa(&a, &b, 1, 3, KappaWeights::Unweighted).unwrap(), 0.375, 1e-12));
        assert!(close(weighted_kappa(&a, &b, 1, 3, KappaWeights::Linear).unwrap(), 0.5, 1e-12));
        assert!(close(weighted_kappa(&a, &b, 1, 3, KappaWeights::Quadratic).unwrap(), 1.0 - 0.1 / 0.28, 1e-12));
    }

    /// Two ratings per item: A is a random one of the pair, B the other. Only the two disagreeing items can
    /// swap, giving 4 equally likely assignments (linear weights, scale 1..3):
    ///   none / both swapped: A=[1,2,3,1,2], B=[1,2,2,1,3] (or mirrored) ⇒ κ = .5 (see above);
    ///   one swapped: A=[1,2,2,1,2], B=[1,2,3,1,3]: observed cost (.5+.5)/5 = .2; marginals A=(.4,.6,0),
    ///   B=(.4,.2,.4) ⇒ expected cost .5·.4·.2 + 1·.4·.4 + .5·.6·.4 + .5·.6·.4 = .44 ⇒ κ = 1 − .2/.44 = 6/11.
    /// Expected simulated κ = (.5 + .5 + 6/11 + 6/11)/4 = 0.522727…
    #[test]
    fn simulated_annotator_matches_enumerated_expectation() {
        let items: Vec<Vec<i32>> = vec![vec![1, 1], vec![2, 2], vec![3, 2], vec![1, 1], vec![2, 3]];
        let sim = simulated_annotator_kappa(&items, 1, 3, KappaWeights::Linear, 4000, 7).unwrap();
        let expected = (0.5 + 0.5 + 6.0 / 11.0 + 6.0 / 11.0) / 4.0;
        assert!(close(sim, expected, 0.005), "{sim} vs {expected}");
    }

    #[test]
    fn simulated_annotator_is_deterministic_and_high_for_consistent_raters() {
        let items: Vec<Vec<i32>> = (0..40).map(|i| vec![i % 5 + 1, i % 5 + 1, (i % 5 + 1).min(4)]).collect();
        let a = simulated_annotator_kappa(&items, 1, 5, KappaWeights::Linear, 100, 1).unwrap();
        let b = simulated_annotator_kappa(&items, 1, 5, KappaWeights::Linear, 100, 1).unwrap();
        assert_eq!(a, b);
        assert!(a > 0.8, "{a}");
    }

    /// x = [1,2,3,4,5], y = [2,1,4,3,5]: of 10 pairs, 2 discordant ((1,2),(3,4)), 8 concordant ⇒ τ = 6/10.
    #[test]
    fn kendall_tau_hand_computed() {
        let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
        assert!(close(t, 0.6, 1e-12));
        assert!(close(kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap(), -1.0, 1e-12));
    }

    /// Ties: x = [1,1,2,3], y = [1,2,2,3]. Pairs (6): (0,1) tie x; (0,2) C; (0,3) C; (1,2) tie y; (1,3) C;
    /// (2,3) C ⇒ C = 4, D = 0, Tx = 1, Ty = 1 ⇒ τ-b = 4 / sqrt(5·5) = 0.8.
    #[test]
    fn kendall_tau_b_handles_ties() {
        let t = kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]).unwrap();
        assert!(close(t, 0.8, 1e-12));
    }

    /// x = [10,20,30,40,50], y = [1,3,2,5,4]: d = [0,−1,1,−1,1], Σd² = 4 ⇒ ρ = 1 − 6·4/(5·24) = 0.8.
    #[test]
    fn spearman_hand_computed() {
        let r = spearman(&[10.0, 20.0, 30.0, 40.0, 50.0], &[1.0, 3.0, 2.0, 5.0, 4.0]).unwrap();
        assert!(close(r, 0.8, 1e-12));
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
    }

    #[test]
    fn undefined_statistics_are_none_not_nan() {
        assert_eq!(pearson(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[2.0, 3.0]), None);
        assert_eq!(weighted_kappa(&[1, 1], &[1, 1], 1, 3, KappaWeights::Linear), None);
    }

    #[test]
    fn ranking_agreement_averages_pairs() {
        // Item 1: two raters agree fully (τ = 1); item 2: reversed (τ = −1) ⇒ mean 0.
        let items = vec![
            vec![vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 3.0]],
            vec![vec![1.0, 2.0, 3.0], vec![3.0, 2.0, 1.0]],
        ];
        assert!(close(ranking_agreement(&items).unwrap(), 0.0, 1e-12));
    }
}
