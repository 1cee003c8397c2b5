//! chrF / chrF++ exactly as sacrebleu 2.6.0 (`metrics/chrf.py`): character n-grams over the line with all
//! whitespace removed, optional word n-grams after sacrebleu's punctuation splitting, best reference by sentence
//! F-score, and sacreBLEU's "effective order" averaging (or eps smoothing). Statistics: `[hyp, ref, match]` per order.

use crate::metric::{Metric, RefPrep};
use crate::npfloat::NpFloat;
use crate::text::{is_py_space, py_split};

#[derive(Clone, Debug)]
pub struct Chrf {
    pub char_order: usize,
    pub word_order: usize,
    pub beta: u32,
    pub lowercase: bool,
    pub whitespace: bool,
    pub eps_smoothing: bool,
}

impl Default for Chrf {
    fn default() -> Self {
        Self {
            char_order: 6,
            word_order: 0,
            beta: 2,
            lowercase: false,
            whitespace: false,
            eps_smoothing: false,
        }
    }
}

/// N-gram counts of one order as a sorted `(key, count)` list: matching two of them is a merge, no hashing.
/// Character n-grams of up to 6 characters are packed into a `u128` (21 bits per character); longer ones and
/// word n-grams are kept as strings.
#[derive(Clone, Debug)]
enum Grams {
    Packed(Vec<(u128, u32)>),
    Text(Vec<(String, u32)>),
}

fn count_sorted<T: Ord>(mut keys: Vec<T>) -> Vec<(T, u32)> {
    keys.sort_unstable();
    let mut out: Vec<(T, u32)> = Vec::with_capacity(keys.len());
    for k in keys {
        match out.last_mut() {
            Some((last, c)) if *last == k => *c += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// Σ min(hyp count, ref count) over common keys of two sorted count lists.
fn matches<T: Ord>(h: &[(T, u32)], r: &[(T, u32)]) -> u64 {
    let (mut i, mut j, mut m) = (0, 0, 0u64);
    while i < h.len() && j < r.len() {
        match h[i].0.cmp(&r[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                m += h[i].1.min(r[j].1) as u64;
                i += 1;
                j += 1;
            }
        }
    }
    m
}

impl Grams {
    fn total(&self) -> u64 {
        match self {
            Grams::Packed(v) => v.iter().map(|x| x.1 as u64).sum(),
            Grams::Text(v) => v.iter().map(|x| x.1 as u64).sum(),
        }
    }
    fn is_empty(&self) -> bool {
        match self {
            Grams::Packed(v) => v.is_empty(),
            Grams::Text(v) => v.is_empty(),
        }
    }
    fn matches(&self, r: &Grams) -> u64 {
        match (self, r) {
            (Grams::Packed(h), Grams::Packed(r)) => matches(h, r),
            (Grams::Text(h), Grams::Text(r)) => matches(h, r),
            _ => 0,
        }
    }
}

/// All orders of one line: character orders first, then word orders; with totals.
struct LineGrams {
    grams: Vec<Grams>,
    totals: Vec<u64>,
}

const PUNCTS: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

impl Chrf {
    pub fn plus_plus() -> Self {
        Self {
            word_order: 2,
            ..Self::default()
        }
    }

    fn order(&self) -> usize {
        self.char_order + self.word_order
    }

    fn preprocess(&self, s: &str) -> String {
        if self.lowercase {
            s.to_lowercase()
        } else {
            s.to_string()
        }
    }

    /// sacrebleu's `_remove_punctuation`: peel one ASCII punctuation mark off the end, or else the start, of a word.
    fn words(sent: &str) -> Vec<String> {
        let mut out = Vec::new();
        for w in py_split(sent) {
            let chars: Vec<char> = w.chars().collect();
            if chars.len() == 1 {
                out.push(w.to_string());
            } else if PUNCTS.contains(chars[chars.len() - 1]) {
                out.push(chars[..chars.len() - 1].iter().collect());
                out.push(chars[chars.len() - 1].to_string());
            } else if PUNCTS.contains(chars[0]) {
                out.push(chars[0].to_string());
                out.push(chars[1..].iter().collect());
            } else {
                out.push(w.to_string());
            }
        }
        out
    }

    /// Character n-grams (whitespace removed unless `whitespace`) and word n-grams of a pre-processed line.
    fn line_grams(&self, line: &str) -> LineGrams {
        let chars: Vec<char> = if self.whitespace {
            line.chars().collect()
        } else {
            line.chars().filter(|c| !is_py_space(*c)).collect()
        };
        let mut grams = Vec::with_capacity(self.order());
        for n in 1..=self.char_order {
            let windows = chars.len().saturating_sub(n - 1);
            if n <= 6 {
                let keys: Vec<u128> = (0..windows)
                    .map(|i| {
                        chars[i..i + n]
                            .iter()
                            .fold(0u128, |acc, &c| (acc << 21) | c as u128)
                    })
                    .collect();
                grams.push(Grams::Packed(count_sorted(keys)));
            } else {
                grams.push(Grams::Text(count_sorted(
                    (0..windows)
                        .map(|i| chars[i..i + n].iter().collect::<String>())
                        .collect(),
                )));
            }
        }
        if self.word_order > 0 {
            let words = Self::words(line);
            for n in 1..=self.word_order {
                let keys: Vec<String> = if words.len() >= n {
                    words.windows(n).map(|w| w.join(" ")).collect()
                } else {
                    Vec::new()
                };
                grams.push(Grams::Text(count_sorted(keys)));
            }
        }
        let totals = grams.iter().map(Grams::total).collect();
        LineGrams { grams, totals }
    }

    /// sacrebleu's `_compute_f_score` in float64.
    pub fn f_score(&self, stats: &[f64]) -> f64 {
        self.f_score_in(stats)
    }

    /// `_compute_f_score` in the arithmetic of `T`: float64, or numpy float32 as inside sacrebleu's bootstrap.
    fn f_score_in<T: NpFloat>(&self, stats: &[T]) -> f64 {
        let eps = T::of(1e-16);
        let factor = T::from_usize((self.beta * self.beta) as usize);
        let mut score = T::ZERO;
        let (mut avg_prec, mut avg_rec, mut eff) = (T::ZERO, T::ZERO, 0usize);
        for i in 0..self.order() {
            let (n_hyp, n_ref, n_match) = (stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]);
            let prec = if n_hyp > T::ZERO { n_match / n_hyp } else { eps };
            let rec = if n_ref > T::ZERO { n_match / n_ref } else { eps };
            let denom = factor * prec + rec;
            score += if denom > T::ZERO {
                (T::ONE + factor) * prec * rec / denom
            } else {
                eps
            };
            if n_hyp > T::ZERO && n_ref > T::ZERO {
                avg_prec += prec;
                avg_rec += rec;
                eff += 1;
            }
        }
        let hundred = T::of(100.0);
        if self.eps_smoothing {
            return (hundred * score / T::from_usize(self.order())).to_f64();
        }
        if eff == 0 {
            avg_prec = T::ZERO;
            avg_rec = T::ZERO;
        } else {
            avg_prec /= T::from_usize(eff);
            avg_rec /= T::from_usize(eff);
        }
        if avg_prec + avg_rec != T::ZERO {
            (hundred * ((T::ONE + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec))).to_f64()
        } else {
            0.0
        }
    }

    pub fn sentence_score(&self, hyp: &str, refs: &[&str]) -> f64 {
        let prep = self.prepare_refs(refs);
        self.f_score(&self.segment_stats(hyp, &prep))
    }
}

/// Minimum Bayes risk with chrF (sacrebleu defaults) as the utility: each text's mean chrF against the others,
/// the candidates standing in for the unknown reference. `None` with fewer than three texts, where agreeing with
/// the one other says nothing about which is better.
pub fn consensus(texts: &[&str]) -> Vec<Option<f64>> {
    if texts.len() < 3 {
        return vec![None; texts.len()];
    }
    let chrf = Chrf::default();
    (0..texts.len())
        .map(|i| {
            let others: Vec<f64> = (0..texts.len()).filter(|&j| j != i).map(|j| chrf.sentence_score(texts[i], &[texts[j]])).collect();
            Some(others.iter().sum::<f64>() / others.len() as f64)
        })
        .collect()
}

impl Metric for Chrf {
    /// A percentage.
    fn range(&self) -> (f64, f64) {
        (0.0, 100.0)
    }

    fn name(&self) -> String {
        format!("chrF{}{}", self.beta, "+".repeat(self.word_order))
    }

    fn signature_fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("case", if self.lowercase { "lc" } else { "mixed" }.into()),
            ("eff", if self.eps_smoothing { "no" } else { "yes" }.into()),
            ("nc", self.char_order.to_string()),
            ("nw", self.word_order.to_string()),
            ("space", if self.whitespace { "yes" } else { "no" }.into()),
        ]
    }

    fn prepare_refs(&self, refs: &[&str]) -> RefPrep {
        let v: Vec<LineGrams> = refs
            .iter()
            .map(|r| self.line_grams(&self.preprocess(r)))
            .collect();
        Box::new(v)
    }

    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64> {
        let refs = refs
            .downcast_ref::<Vec<LineGrams>>()
            .expect("chrF references prepared by chrF");
        let h = self.line_grams(&self.preprocess(hyp));
        let mut best: Vec<f64> = Vec::new();
        let mut best_f = -1.0;
        for r in refs {
            let mut stats = Vec::with_capacity(3 * self.order());
            for o in 0..self.order() {
                // sacrebleu does not count hypothesis n-grams of an order the reference lacks entirely.
                stats.push(if r.grams[o].is_empty() {
                    0.0
                } else {
                    h.totals[o] as f64
                });
                stats.push(r.totals[o] as f64);
                stats.push(h.grams[o].matches(&r.grams[o]) as f64);
            }
            let f = self.f_score(&stats);
            if f > best_f {
                best_f = f;
                best = stats;
            }
        }
        best
    }

    fn score(&self, stats: &[f64]) -> f64 {
        self.f_score(stats)
    }

    fn score_f32(&self, stats: &[f32]) -> f64 {
        self.f_score_in(stats)
    }

    fn resampled_f32(&self) -> bool {
        true
    }
}
