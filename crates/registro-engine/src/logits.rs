//! Logit processors (hooks that change the next-token distribution) and sampling.
use std::collections::HashMap;

/// Called once per sequence and step, before the next token is chosen. `generated` holds the tokens this
/// sequence produced so far (not the prompt); `row` tells batched / beam rows apart.
pub trait LogitsProcessor {
    fn process(&mut self, row: usize, generated: &[u32], logits: &mut [f32]);
}

/// Bans every token that would complete an `n`-token sequence already present in `generated` (0 = off).
pub fn ban_repeated_ngrams(generated: &[u32], n: usize, logits: &mut [f32]) {
    ban(&repeat_completions(generated, n), logits);
}

/// The tokens that would complete an `n`-token sequence already present in `generated` (none when `n` is 0).
pub fn repeat_completions(generated: &[u32], n: usize) -> Vec<u32> {
    if n == 0 || generated.len() < n {
        return Vec::new();
    }
    let tail = &generated[generated.len() + 1 - n..];
    generated.windows(n).filter(|w| w[..n - 1] == *tail).map(|w| w[n - 1]).collect()
}

/// Sets the logits of `tokens` to −∞ (ids outside the vocabulary are ignored).
pub fn ban(tokens: &[u32], logits: &mut [f32]) {
    for &t in tokens {
        if let Some(l) = logits.get_mut(t as usize) {
            *l = f32::NEG_INFINITY;
        }
    }
}

/// Leaves the logits alone.
pub struct NoProcessor;

impl LogitsProcessor for NoProcessor {
    fn process(&mut self, _: usize, _: &[u32], _: &mut [f32]) {}
}

/// Adds a bias to the last token of each listed token sequence whenever the tokens generated so far end with
/// the rest of that sequence; a bias of `f32::NEG_INFINITY` bans the sequence outright. Sequences are matched
/// on generated tokens only, so a marker in the prompt does not trigger a ban. [`SequenceBias::add_when`] narrows
/// an entry further ([`When`]).
#[derive(Clone, Debug, Default)]
pub struct SequenceBias {
    /// Keyed by the sequence's last token: (preceding tokens, bias, condition).
    by_last: HashMap<u32, Vec<(Vec<u32>, f32, When)>>,
}

/// When a [`SequenceBias`] entry applies, beyond the generated tokens ending with its head. The default is always.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct When {
    /// Only as the output's first tokens (the generated tokens are exactly the head): a word spelled without its
    /// leading space starts the output, never the middle of another word.
    pub at_start: bool,
    /// Only while none of these sequences has been generated: a required term, once written, is no longer pushed.
    pub until: Vec<Vec<u32>>,
}

impl When {
    fn holds(&self, head: &[u32], generated: &[u32]) -> bool {
        if self.at_start && generated.len() != head.len() {
            return false;
        }
        !self.until.iter().any(|s| !s.is_empty() && generated.windows(s.len()).any(|w| w == s.as_slice()))
    }
}

impl SequenceBias {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, seq: &[u32], bias: f32) -> &mut Self {
        self.add_when(seq, bias, When::default())
    }

    /// Like [`SequenceBias::add`], applied only when `when` holds.
    pub fn add_when(&mut self, seq: &[u32], bias: f32, when: When) -> &mut Self {
        if let Some((&last, head)) = seq.split_last() {
            self.by_last.entry(last).or_default().push((head.to_vec(), bias, when));
        }
        self
    }

    pub fn ban(&mut self, seq: &[u32]) -> &mut Self {
        self.add(seq, f32::NEG_INFINITY)
    }

    pub fn is_empty(&self) -> bool {
        self.by_last.is_empty()
    }
}

impl LogitsProcessor for SequenceBias {
    fn process(&mut self, _row: usize, generated: &[u32], logits: &mut [f32]) {
        for (&last, entries) in &self.by_last {
            let Some(l) = logits.get_mut(last as usize) else { continue };
            for (head, bias, when) in entries {
                if generated.ends_with(head) && when.holds(head, generated) {
                    *l += *bias;
                }
            }
        }
    }
}

/// Applies processors in order.
pub struct Chain<'a>(pub Vec<&'a mut dyn LogitsProcessor>);

impl LogitsProcessor for Chain<'_> {
    fn process(&mut self, row: usize, generated: &[u32], logits: &mut [f32]) {
        for p in self.0.iter_mut() {
            p.process(row, generated, logits);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    Greedy,
    /// `top_k == 0` and `top_p >= 1.0` disable those filters.
    Sample { temperature: f32, top_p: f32, top_k: usize, seed: u64 },
}

impl Default for Sampling {
    fn default() -> Self {
        Self::Greedy
    }
}

/// SplitMix64: tiny, seedable and identical on every platform, which is all sampling needs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}

pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0usize;
    for (i, &v) in logits.iter().enumerate() {
        if v > logits[best] {
            best = i;
        }
    }
    best as u32
}

/// Log-softmax of `logits` at `token`.
pub fn log_prob(logits: &[f32], token: u32) -> f32 {
    logits[token as usize] - log_sum_exp(logits)
}

pub fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let lse = log_sum_exp(logits);
    logits.iter().map(|&v| v - lse).collect()
}

/// `ln Σ exp(v)`, computed after subtracting the maximum. It runs once per decoded token of every row over the
/// whole vocabulary (152k entries for Qwen): a libm `exp` per entry cost 0.5 ms a token, a tenth of a batched
/// decode step's share per row, so the exponentials are a polynomial the compiler vectorizes (error < 2 ulp, far
/// below what a log-probability is used for) summed in 16 lanes.
pub fn log_sum_exp(logits: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the features `lse_avx512` is compiled for were just detected.
        return unsafe { lse_avx512(logits) };
    }
    lse_portable(logits)
}

/// The portable loop compiled with AVX-512 enabled, so the compiler vectorises it with 16-lane registers.
///
/// # Safety
/// The CPU must support AVX-512 F, AVX2 and FMA (the caller detects AVX-512 F and FMA; no CPU has AVX-512 F without
/// AVX2); the body itself is safe code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn lse_avx512(logits: &[f32]) -> f32 {
    lse_portable(logits)
}

#[inline(always)]
fn lse_portable(logits: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut m = [f32::NEG_INFINITY; LANES];
    let chunks = logits.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks.clone() {
        for l in 0..LANES {
            m[l] = m[l].max(c[l]);
        }
    }
    let max = tail.iter().fold(m.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)), |a, &b| a.max(b));
    if max == f32::NEG_INFINITY {
        return max; // nothing allowed: the log of an empty sum
    }
    if !max.is_finite() {
        // An infinite or NaN logit: the plain formula says what that means.
        let sum: f64 = logits.iter().map(|&v| ((v - max) as f64).exp()).sum();
        return max + sum.ln() as f32;
    }
    let mut acc = [0f32; LANES];
    for c in chunks {
        for l in 0..LANES {
            acc[l] += exp_neg(c[l] - max);
        }
    }
    let sum = acc.iter().map(|&v| v as f64).sum::<f64>() + tail.iter().map(|&v| exp_neg(v - max) as f64).sum::<f64>();
    max + sum.ln() as f32
}

/// `exp(x)` for `x ≤ 0` (Cephes' `expf`: x = n·ln 2 + r, a degree-6 polynomial in r, 2ⁿ put in the exponent
/// bits); values below −87 (and −∞) give about 1e-38 where the exact value underflows to 0.
#[inline(always)]
fn exp_neg(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0; // 1.5 × 2^23: adding it rounds to an integer
    let x = x.clamp(-87.0, 0.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = ((((1.987_569_2e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 1.666_666_5e-1) * r
        + 5.000_000_1e-1;
    let e = p * r * r + r + 1.0;
    e * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

pub fn sample(logits: &[f32], sampling: &Sampling, rng: &mut Rng) -> u32 {
    match *sampling {
        Sampling::Greedy => argmax(logits),
        Sampling::Sample { temperature, .. } if temperature <= 0.0 => argmax(logits),
        Sampling::Sample { temperature, top_p, top_k, .. } => {
            let mut idx: Vec<u32> = (0..logits.len() as u32).filter(|&i| logits[i as usize].is_finite()).collect();
            if idx.is_empty() {
                return argmax(logits);
            }
            idx.sort_unstable_by(|&a, &b| logits[b as usize].total_cmp(&logits[a as usize]));
            if top_k > 0 && idx.len() > top_k {
                idx.truncate(top_k);
            }
            let max = logits[idx[0] as usize];
            let mut probs: Vec<f64> =
                idx.iter().map(|&i| (((logits[i as usize] - max) / temperature) as f64).exp()).collect();
            let total: f64 = probs.iter().sum();
            probs.iter_mut().for_each(|p| *p /= total);
            if top_p < 1.0 {
                let mut acc = 0.0;
                let mut keep = probs.len();
                for (n, p) in probs.iter().enumerate() {
                    acc += p;
                    if acc >= top_p as f64 {
                        keep = n + 1;
                        break;
                    }
                }
                probs.truncate(keep);
                idx.truncate(keep);
                let t: f64 = probs.iter().sum();
                probs.iter_mut().for_each(|p| *p /= t);
            }
            let r = rng.next_f32() as f64;
            let mut acc = 0.0;
            for (n, p) in probs.iter().enumerate() {
                acc += p;
                if r < acc {
                    return idx[n];
                }
            }
            *idx.last().unwrap()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorized log-sum-exp against the f64 formula it replaced, over a vocabulary-sized row with -inf
    /// (banned) entries, a tail that is not a multiple of the lanes, and extreme spreads.
    #[test]
    fn log_sum_exp_matches_the_exact_formula() {
        let exact = |l: &[f32]| {
            let max = l.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            max as f64 + l.iter().map(|&v| ((v - max) as f64).exp()).sum::<f64>().ln()
        };
        let mut rng = Rng::new(7);
        let mut row: Vec<f32> = (0..151_937).map(|_| rng.next_f32() * 40.0 - 20.0).collect();
        for i in (0..row.len()).step_by(97) {
            row[i] = f32::NEG_INFINITY;
        }
        for (name, l) in [
            ("vocabulary", row.clone()),
            ("one huge", vec![0.0, 1000.0, -5.0]),
            ("equal", vec![3.0; 33]),
            ("tiny tail", vec![-200.0, 0.0]),
        ] {
            let (got, want) = (log_sum_exp(&l) as f64, exact(&l));
            assert!((got - want).abs() < 1e-4 * want.abs().max(1.0), "{name}: {got} vs {want}");
        }
        let lp = log_prob(&row, 5);
        assert!((lp as f64 - (row[5] as f64 - exact(&row))).abs() < 1e-4);
        assert_eq!(log_sum_exp(&[f32::NEG_INFINITY; 4]), f32::NEG_INFINITY, "nothing allowed");
    }

    #[test]
    fn ban_applies_only_after_prefix_of_sequence() {
        let mut b = SequenceBias::new();
        b.ban(&[3, 4]).add(&[2], 5.0);
        let mut l = vec![0.0; 6];
        b.process(0, &[1], &mut l);
        assert_eq!(l[4], 0.0);
        assert_eq!(l[2], 5.0);
        let mut l = vec![0.0; 6];
        b.process(0, &[1, 3], &mut l);
        assert_eq!(l[4], f32::NEG_INFINITY);
    }

    #[test]
    fn conditional_entries_apply_at_the_start_or_until_a_sequence_was_generated() {
        let mut b = SequenceBias::new();
        b.add_when(&[2], 1.0, When { at_start: true, until: vec![] });
        b.add_when(&[3], 2.0, When { at_start: false, until: vec![vec![3, 4]] });
        b.add_when(&[3, 4], 5.0, When { at_start: true, until: vec![] });
        let run = |generated: &[u32]| {
            let mut l = vec![0.0; 6];
            b.clone().process(0, generated, &mut l);
            (l[2], l[3], l[4])
        };
        assert_eq!(run(&[]), (1.0, 2.0, 0.0), "at the start");
        assert_eq!(run(&[1]), (0.0, 2.0, 0.0), "no longer at the start");
        assert_eq!(run(&[3]), (0.0, 2.0, 5.0), "the head is the whole output so far");
        assert_eq!(run(&[1, 3]), (0.0, 2.0, 0.0), "the head, but not at the start");
        assert_eq!(run(&[3, 4, 1]), (0.0, 0.0, 0.0), "[3, 4] was generated: its boost stops");
    }

    #[test]
    fn sampling_is_reproducible_and_respects_top_k() {
        let logits = vec![1.0, 3.0, 2.0, 0.5];
        let s = Sampling::Sample { temperature: 1.0, top_p: 1.0, top_k: 2, seed: 7 };
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u32> = (0..50).map(|_| sample(&logits, &s, &mut a)).collect();
        let ys: Vec<u32> = (0..50).map(|_| sample(&logits, &s, &mut b)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&t| t == 1 || t == 2));
        assert!(xs.contains(&2) && xs.contains(&1));
    }

    #[test]
    fn repeated_ngram_is_banned_and_others_are_not() {
        // "a b c a b" → completing "a b c" again is banned; other continuations are untouched.
        let mut l = vec![0.0; 5];
        ban_repeated_ngrams(&[0, 1, 2, 0, 1], 3, &mut l);
        assert_eq!(l, vec![0.0, 0.0, f32::NEG_INFINITY, 0.0, 0.0]);
        let mut l = vec![0.0; 5];
        ban_repeated_ngrams(&[0, 1, 2, 0, 1], 0, &mut l);
        assert!(l.iter().all(|&x| x == 0.0), "0 turns the guard off");
        let mut l = vec![0.0; 5];
        ban_repeated_ngrams(&[0, 1], 3, &mut l);
        assert!(l.iter().all(|&x| x == 0.0), "too short to repeat anything");
    }
}
