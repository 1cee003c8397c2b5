//! BLEU exactly as sacrebleu 2.6.0 (`metrics/bleu.py`): closest reference length (ties → shorter), n-gram counts
//! clipped by the maximum count over references, exp/floor/add-k/none smoothing and effective order.
//! Statistics per segment: `[hyp_len, ref_len, correct_1..N, total_1..N]`.

use crate::fxhash::{map_with_capacity, FxMap};

use serde::Serialize;

use crate::metric::{Metric, RefPrep};
use crate::npfloat::NpFloat;
use crate::text::{py_rstrip, py_split};
use crate::tokenize::Tokenizer;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Smooth {
    None,
    /// Chen & Cherry method 1; default value 0.1.
    Floor(f64),
    /// Method 2; default value 1.
    AddK(f64),
    /// NIST / mteval-v13a geometric smoothing (sacrebleu's default).
    Exp,
}

impl Smooth {
    /// Parses `exp`, `none`, `floor`, `add-k`, optionally with a value (`floor:0.2`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let (name, val) = match s.split_once([':', '=']) {
            Some((n, v)) => (
                n,
                Some(
                    v.parse::<f64>()
                        .map_err(|_| format!("bad smoothing value in {s:?}"))?,
                ),
            ),
            None => (s, None),
        };
        match name {
            "none" => Ok(Self::None),
            "exp" => Ok(Self::Exp),
            "floor" => Ok(Self::Floor(val.unwrap_or(0.1))),
            "add-k" => Ok(Self::AddK(val.unwrap_or(1.0))),
            other => Err(format!(
                "unknown smoothing {other:?} (expected exp, floor, add-k or none)"
            )),
        }
    }

    fn signature(&self) -> String {
        match self {
            Self::None => "none".into(),
            Self::Exp => "exp".into(),
            Self::Floor(v) => format!("floor[{v:.2}]"),
            Self::AddK(v) => format!("add-k[{v:.2}]"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bleu {
    pub tokenizer: Tokenizer,
    pub lowercase: bool,
    pub smooth: Smooth,
    pub max_order: usize,
    pub effective_order: bool,
}

impl Default for Bleu {
    fn default() -> Self {
        Self {
            tokenizer: Tokenizer::V13a,
            lowercase: false,
            smooth: Smooth::Exp,
            max_order: 4,
            effective_order: false,
        }
    }
}

/// The detailed result sacrebleu prints after the score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BleuScore {
    pub score: f64,
    pub counts: Vec<u64>,
    pub totals: Vec<u64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

impl BleuScore {
    pub fn ratio(&self) -> f64 {
        if self.ref_len > 0 {
            self.sys_len as f64 / self.ref_len as f64
        } else {
            0.0
        }
    }
    /// `64.2/40.1/27.3/19.2 (BP = 0.991 ratio = 0.991 hyp_len = 14622 ref_len = 14758)`
    pub fn verbose(&self) -> String {
        let prec: Vec<String> = self.precisions.iter().map(|p| format!("{p:.1}")).collect();
        format!(
            "{} (BP = {:.3} ratio = {:.3} hyp_len = {} ref_len = {})",
            prec.join("/"),
            self.bp,
            self.ratio(),
            self.sys_len,
            self.ref_len
        )
    }
}

struct BleuRefs {
    ngrams: FxMap<String, u32>,
    lens: Vec<usize>,
}

/// `log` floored like sacrebleu's `my_log`.
fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

impl Bleu {
    pub fn sentence() -> Self {
        Self {
            effective_order: true,
            ..Self::default()
        }
    }

    fn preprocess(&self, s: &str) -> String {
        if self.lowercase {
            self.tokenizer.tokenize(py_rstrip(&s.to_lowercase()))
        } else {
            self.tokenizer.tokenize(py_rstrip(s))
        }
    }

    /// Calls `f(ngram, n)` for every n-gram (1..=max_order) of the tokens, the n-gram as a space-joined slice.
    fn for_ngrams<'a>(
        &self,
        joined: &'a str,
        starts: &[(usize, usize)],
        mut f: impl FnMut(&'a str, usize),
    ) {
        let len = starts.len();
        for n in 1..=self.max_order {
            if n > len {
                break;
            }
            for i in 0..=len - n {
                f(&joined[starts[i].0..starts[i + n - 1].1], n);
            }
        }
    }

    /// Tokens of a pre-processed line joined by single spaces, with byte spans of each token.
    fn split_tokens(line: &str) -> (String, Vec<(usize, usize)>) {
        let mut joined = String::with_capacity(line.len());
        let mut spans = Vec::new();
        for t in py_split(line) {
            if !joined.is_empty() {
                joined.push(' ');
            }
            let s = joined.len();
            joined.push_str(t);
            spans.push((s, joined.len()));
        }
        (joined, spans)
    }

    /// sacrebleu's `compute_bleu` on already-summed statistics.
    pub fn compute(&self, stats: &[f64]) -> BleuScore {
        let n_ord = self.max_order;
        let (score, precisions, bp) = self.score_parts(stats);
        BleuScore {
            score,
            counts: stats[2..2 + n_ord].iter().map(|&c| c as u64).collect(),
            totals: stats[2 + n_ord..2 + 2 * n_ord].iter().map(|&c| c as u64).collect(),
            precisions,
            bp,
            sys_len: stats[0] as u64,
            ref_len: stats[1] as u64,
        }
    }

    /// Score, smoothed precisions and brevity penalty. The n-gram arithmetic runs in `T`, as numpy's does on an
    /// array of `T`; the lengths, the brevity penalty and the geometric mean are Python floats either way.
    fn score_parts<T: NpFloat>(&self, stats: &[T]) -> (f64, Vec<f64>, f64) {
        let n_ord = self.max_order;
        let (sys_len, ref_len) = (stats[0].to_f64(), stats[1].to_f64());
        let mut correct: Vec<T> = stats[2..2 + n_ord].to_vec();
        let mut total: Vec<T> = stats[2 + n_ord..2 + 2 * n_ord].to_vec();
        let mut bp = 1.0;
        if sys_len < ref_len {
            bp = if sys_len > 0.0 {
                (1.0 - ref_len / sys_len).exp()
            } else {
                0.0
            };
        }
        let mut precisions = vec![0.0; n_ord];
        if correct.iter().all(|&c| c == T::ZERO) {
            return (0.0, precisions, bp);
        }
        let hundred = T::of(100.0);
        let mut smooth_mteval = 1.0;
        let mut eff_order = n_ord;
        for n in 1..=n_ord {
            if let Smooth::AddK(k) = self.smooth {
                if n > 1 {
                    correct[n - 1] += T::of(k);
                    total[n - 1] += T::of(k);
                }
            }
            if total[n - 1] == T::ZERO {
                break;
            }
            if self.effective_order {
                eff_order = n;
            }
            if correct[n - 1] == T::ZERO {
                match self.smooth {
                    Smooth::Exp => {
                        smooth_mteval *= 2.0;
                        precisions[n - 1] = (hundred / (T::of(smooth_mteval) * total[n - 1])).to_f64();
                    }
                    Smooth::Floor(v) => precisions[n - 1] = (T::of(100.0 * v) / total[n - 1]).to_f64(),
                    _ => {}
                }
            } else {
                precisions[n - 1] = (hundred * correct[n - 1] / total[n - 1]).to_f64();
            }
        }
        let s: f64 = precisions[..eff_order].iter().map(|&p| my_log(p)).sum();
        (bp * (s / eff_order as f64).exp(), precisions, bp)
    }

    /// Sentence-level score against one or more references.
    pub fn sentence_score(&self, hyp: &str, refs: &[&str]) -> BleuScore {
        let prep = self.prepare_refs(refs);
        self.compute(&self.segment_stats(hyp, &prep))
    }
}

impl Metric for Bleu {
    /// A percentage.
    fn range(&self) -> (f64, f64) {
        (0.0, 100.0)
    }

    fn name(&self) -> String {
        "BLEU".into()
    }

    fn signature_fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("case", if self.lowercase { "lc" } else { "mixed" }.into()),
            (
                "eff",
                if self.effective_order { "yes" } else { "no" }.into(),
            ),
            ("tok", self.tokenizer.signature()),
            ("smooth", self.smooth.signature()),
        ]
    }

    fn prepare_refs(&self, refs: &[&str]) -> RefPrep {
        let mut ngrams: FxMap<String, u32> = map_with_capacity(64);
        let mut lens = Vec::with_capacity(refs.len());
        for r in refs {
            let (joined, spans) = Self::split_tokens(&self.preprocess(r));
            lens.push(spans.len());
            let mut this: FxMap<&str, u32> = map_with_capacity(4 * spans.len());
            self.for_ngrams(&joined, &spans, |g, _| *this.entry(g).or_insert(0) += 1);
            for (g, c) in this {
                match ngrams.get_mut(g) {
                    Some(m) => *m = (*m).max(c),
                    None => {
                        ngrams.insert(g.to_string(), c);
                    }
                }
            }
        }
        Box::new(BleuRefs { ngrams, lens })
    }

    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64> {
        let refs = refs
            .downcast_ref::<BleuRefs>()
            .expect("BLEU references prepared by BLEU");
        let (joined, spans) = Self::split_tokens(&self.preprocess(hyp));
        let hyp_len = spans.len();
        // Closest reference length, ties resolved to the shorter one.
        let mut closest: Option<(usize, usize)> = None;
        for &rl in &refs.lens {
            let diff = hyp_len.abs_diff(rl);
            closest = match closest {
                None => Some((diff, rl)),
                Some((d, l)) if diff < d || (diff == d && rl < l) => Some((diff, rl)),
                c => c,
            };
        }
        let ref_len = closest.map_or(0, |c| c.1);
        let mut counts: FxMap<&str, (u32, usize)> = map_with_capacity(4 * spans.len());
        self.for_ngrams(&joined, &spans, |g, n| {
            counts.entry(g).or_insert((0, n)).0 += 1
        });
        let k = self.max_order;
        let mut out = vec![0.0; 2 + 2 * k];
        out[0] = hyp_len as f64;
        out[1] = ref_len as f64;
        for (g, (c, n)) in counts {
            out[2 + k + n - 1] += c as f64;
            if let Some(&rc) = refs.ngrams.get(g) {
                out[2 + n - 1] += c.min(rc) as f64;
            }
        }
        out
    }

    fn score(&self, stats: &[f64]) -> f64 {
        self.compute(stats).score
    }

    fn score_f32(&self, stats: &[f32]) -> f64 {
        self.score_parts(stats).0
    }
}
