//! TER exactly as sacrebleu 2.6.0 (`metrics/ter.py`, `metrics/lib_ter.py`, `tokenizers/tokenizer_ter.py`): tercom
//! normalisation, greedy shift search with tercom's ranking and limits, and the beam edit distance around the
//! (length-ratio) diagonal. Statistics per segment: `[edits, average reference length]`.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use crate::metric::{Metric, RefPrep};
use crate::npfloat::NpFloat;
use crate::text::{py_normalize_spaces, py_split};

const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
const BEAM_WIDTH: usize = 25;
const MAX_SHIFT_CANDIDATES: usize = 1000;
const INF: i64 = 10_000_000_000_000_000;

#[derive(Clone, Debug, Default)]
pub struct Ter {
    pub normalized: bool,
    pub no_punct: bool,
    pub case_sensitive: bool,
}

impl Ter {
    /// The tercom tokenizer (western part; sacrebleu's `asian_support` is not ported).
    pub fn tokenize(&self, sent: &str) -> String {
        if sent.is_empty() {
            return String::new();
        }
        let mut s = if self.case_sensitive {
            sent.to_string()
        } else {
            sent.to_lowercase()
        };
        if self.normalized {
            s = normalize_general_and_western(&s);
        }
        if self.no_punct {
            s.retain(|c| !matches!(c, '.' | ',' | '?' | ':' | ';' | '!' | '"' | '(' | ')'));
        }
        py_normalize_spaces(&s)
    }
}

fn normalize_general_and_western(sent: &str) -> String {
    static RES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            (r"([{-~\[-` -&(-+:-@/])", " $1 "),
            (r"'s ", " 's "),
            (r"'s$", " 's"),
            (r"([^0-9])([\.,])", "$1 $2 "),
            (r"([\.,])([^0-9])", " $1 $2"),
            (r"([0-9])(-)", "$1 $2 "),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("tercom regex"), r))
        .collect()
    });
    let mut s = sent
        .replace("\n-", "")
        .replace('\n', " ")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    s = s.replace("&lt;", "<").replace("&gt;", ">");
    s = format!(" {s} ");
    for (re, rep) in res {
        s = re.replace_all(&s, *rep).into_owned();
    }
    s
}

/// Interns words so that the edit distance compares integers.
#[derive(Default)]
struct Vocab(HashMap<String, u32>);

impl Vocab {
    fn ids(&mut self, s: &str) -> Vec<u32> {
        py_split(s)
            .map(|w| {
                let n = self.0.len() as u32;
                *self.0.entry(w.to_string()).or_insert(n)
            })
            .collect()
    }
}

struct TerRefs {
    words: Vec<Vec<String>>,
}

impl Metric for Ter {
    fn name(&self) -> String {
        "TER".into()
    }

    fn signature_fields(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "case",
                if self.case_sensitive { "mixed" } else { "lc" }.into(),
            ),
            ("tok", "tercom".into()),
            ("norm", if self.normalized { "yes" } else { "no" }.into()),
            ("punct", if self.no_punct { "no" } else { "yes" }.into()),
            ("asian", "no".into()),
        ]
    }

    fn prepare_refs(&self, refs: &[&str]) -> RefPrep {
        let words = refs
            .iter()
            .map(|r| {
                py_split(&self.tokenize(crate::text::py_rstrip(r)))
                    .map(str::to_string)
                    .collect()
            })
            .collect();
        Box::new(TerRefs { words })
    }

    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64> {
        let refs = refs
            .downcast_ref::<TerRefs>()
            .expect("TER references prepared by TER");
        let hyp = self.tokenize(crate::text::py_rstrip(hyp));
        let mut vocab = Vocab::default();
        let h = vocab.ids(&hyp);
        let mut best = i64::MAX;
        let mut ref_lengths = 0usize;
        for r in &refs.words {
            let r: Vec<u32> = r.iter().map(|w| vocab.ids(w)[0]).collect();
            let (edits, len) = translation_edit_rate(&h, &r);
            ref_lengths += len;
            best = best.min(edits as i64);
        }
        vec![best as f64, ref_lengths as f64 / refs.words.len() as f64]
    }

    fn score(&self, stats: &[f64]) -> f64 {
        ter_in(stats)
    }

    fn score_f32(&self, stats: &[f32]) -> f64 {
        ter_in(stats)
    }

    fn resampled_f32(&self) -> bool {
        true
    }

    fn higher_is_better(&self) -> bool {
        false
    }
    fn range(&self) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }
}

/// Edits per reference word (×100) in the arithmetic of `T`: float64, or numpy float32 inside the resampling tests.
fn ter_in<T: NpFloat>(stats: &[T]) -> f64 {
    let (edits, len) = (stats[0], stats[1]);
    let s = if len > T::ZERO {
        edits / len
    } else if edits > T::ZERO {
        T::ONE
    } else {
        T::ZERO
    };
    (T::of(100.0) * s).to_f64()
}

impl Ter {
    pub fn sentence_score(&self, hyp: &str, refs: &[&str]) -> f64 {
        let prep = self.prepare_refs(refs);
        self.score(&self.segment_stats(hyp, &prep))
    }
}

/// Number of edits (shifts + beam edit distance) turning `hyp` into `refw`, and the reference length.
pub fn translation_edit_rate(hyp: &[u32], refw: &[u32]) -> (usize, usize) {
    if refw.is_empty() {
        return (hyp.len(), 0);
    }
    let ed = BeamEditDistance::new(refw, hyp.len());
    let mut shifts = 0;
    let mut input: Vec<u32> = hyp.to_vec();
    let mut checked = 0;
    loop {
        let (delta, shifted, c) = shift(&input, refw, &ed, checked);
        checked = c;
        if checked >= MAX_SHIFT_CANDIDATES || delta <= 0 {
            break;
        }
        shifts += 1;
        input = shifted;
    }
    let (dist, _) = ed.full(&input);
    (shifts + dist as usize, refw.len())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Nop,
    Sub,
    Ins,
    Del,
    Undef,
}

/// Beam edit distance from a hypothesis (rows) to the fixed reference (columns). sacrebleu caches rows by
/// hypothesis prefix; here a candidate shift reuses the rows of the unshifted hypothesis for the shared prefix,
/// which gives the same numbers because all candidates have the same length.
///
/// sacrebleu computes only the cells within the beam around the (length-ratio) diagonal but allocates every row at
/// full reference width, so memory is O(hypothesis × reference) words: a 30k-word segment pair needs gigabytes.
/// Rows here hold only their beam (`Band`), every cell outside it reading as sacrebleu's untouched (∞, undefined),
/// so the numbers are the same and memory is O(hypothesis × beam).
struct BeamEditDistance<'a> {
    refw: &'a [u32],
    ratio: f64,
    beam: i64,
}

/// Cells `lo..lo + cells.len()` of one matrix row.
#[derive(Clone, Debug)]
struct Band<T> {
    lo: usize,
    cells: Vec<T>,
}

impl<T: Copy> Band<T> {
    fn get(&self, j: usize, outside: T) -> T {
        j.checked_sub(self.lo)
            .and_then(|k| self.cells.get(k))
            .copied()
            .unwrap_or(outside)
    }
}

type Row = Band<(i64, Op)>;
const OUTSIDE: (i64, Op) = (INF, Op::Undef);

impl<'a> BeamEditDistance<'a> {
    fn new(refw: &'a [u32], n_hyp: usize) -> Self {
        let ratio = if n_hyp > 0 {
            refw.len() as f64 / n_hyp as f64
        } else {
            1.0
        };
        let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 {
            (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
        } else {
            BEAM_WIDTH as i64
        };
        Self { refw, ratio, beam }
    }

    fn initial_row(&self) -> Row {
        Band {
            lo: 0,
            cells: (0..=self.refw.len()).map(|j| (j as i64, Op::Ins)).collect(),
        }
    }

    /// Fills rows `start+1..=n` of `dist` (which must hold rows `0..=start`).
    fn fill(&self, h: &[u32], dist: &mut Vec<Row>, start: usize) {
        dist.truncate(start + 1);
        for i in start + 1..=h.len() {
            let row = self.fill_row(h, i, &dist[i - 1]);
            dist.push(row);
        }
    }

    /// Distance only, continuing from the row of a shared prefix of length `start`; costs without operations
    /// and two rows only (candidate shifts need no trace). Same recurrence and beam as [`Self::fill_row`].
    fn distance_from(
        &self,
        h: &[u32],
        start_row: &Row,
        start: usize,
        bufs: &mut (Band<i64>, Band<i64>),
    ) -> i64 {
        let n = h.len();
        let nr = self.refw.len();
        if start == n {
            return start_row.get(nr, OUTSIDE).0;
        }
        let (prev, row) = bufs;
        prev.lo = start_row.lo;
        prev.cells.clear();
        prev.cells.extend(start_row.cells.iter().map(|x| x.0));
        for i in start + 1..=n {
            let (min_j, max_j) = self.beam_range(i, n);
            row.lo = min_j;
            row.cells.clear();
            row.cells.resize(max_j.saturating_sub(min_j), INF);
            let w = h[i - 1];
            for j in min_j..max_j {
                row.cells[j - min_j] = if j == 0 {
                    prev.get(0, INF) + 1
                } else {
                    let sub = prev.get(j - 1, INF) + i64::from(w != self.refw[j - 1]);
                    let left = if j > min_j {
                        row.cells[j - 1 - min_j]
                    } else {
                        INF
                    };
                    sub.min(prev.get(j, INF) + 1).min(left + 1).min(INF)
                };
            }
            std::mem::swap(prev, row);
        }
        prev.get(nr, INF)
    }

    fn beam_range(&self, i: usize, n: usize) -> (usize, usize) {
        let nr = self.refw.len();
        let pd = ((i as f64) * self.ratio).floor() as i64;
        let min_j = (pd - self.beam).max(0) as usize;
        let max_j = if i == n {
            nr + 1
        } else {
            ((pd + self.beam).min(nr as i64 + 1)).max(0) as usize
        };
        (min_j, max_j)
    }

    fn fill_row(&self, h: &[u32], i: usize, prev: &Row) -> Row {
        let (min_j, max_j) = self.beam_range(i, h.len());
        let mut row = Band {
            lo: min_j,
            cells: vec![OUTSIDE; max_j.saturating_sub(min_j)],
        };
        for j in min_j..max_j {
            let k = j - min_j;
            if j == 0 {
                row.cells[k] = (prev.get(0, OUTSIDE).0 + 1, Op::Del);
            } else {
                let (cs, os) = if h[i - 1] == self.refw[j - 1] {
                    (0, Op::Nop)
                } else {
                    (1, Op::Sub)
                };
                let left = if k > 0 { row.cells[k - 1].0 } else { INF };
                let ops = [
                    (prev.get(j - 1, OUTSIDE).0 + cs, os),
                    (prev.get(j, OUTSIDE).0 + 1, Op::Del),
                    (left + 1, Op::Ins),
                ];
                for (c, o) in ops {
                    if row.cells[k].0 > c {
                        row.cells[k] = (c, o);
                    }
                }
            }
        }
        row
    }

    /// Distance and the trace of operations (hypothesis → reference), like sacrebleu's `__call__`.
    fn full(&self, h: &[u32]) -> (i64, Vec<Row>) {
        let mut dist = vec![self.initial_row()];
        self.fill(h, &mut dist, 0);
        (dist[h.len()].get(self.refw.len(), OUTSIDE).0, dist)
    }

    fn trace(&self, dist: &[Row], n: usize) -> Vec<Op> {
        let mut trace = Vec::new();
        let (mut i, mut j) = (n, self.refw.len());
        while i > 0 || j > 0 {
            let op = dist[i].get(j, OUTSIDE).1;
            trace.push(op);
            match op {
                Op::Sub | Op::Nop => {
                    i -= 1;
                    j -= 1;
                }
                Op::Ins => j -= 1,
                Op::Del => i -= 1,
                // Unreachable for sane input (the last row always spans the full reference).
                Op::Undef => break,
            }
        }
        trace.reverse();
        trace
    }
}

fn slice(v: &[u32], a: usize, b: usize) -> &[u32] {
    let b = b.min(v.len());
    let a = a.min(b);
    &v[a..b]
}

fn perform_shift(words: &[u32], start: usize, length: usize, target: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(words.len());
    if target < start {
        out.extend_from_slice(slice(words, 0, target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, target, start));
        out.extend_from_slice(slice(words, start + length, words.len()));
    } else if target > start + length {
        out.extend_from_slice(slice(words, 0, start));
        out.extend_from_slice(slice(words, start + length, target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, target, words.len()));
    } else {
        out.extend_from_slice(slice(words, 0, start));
        out.extend_from_slice(slice(words, start + length, length + target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, length + target, words.len()));
    }
    out
}

/// (score gain, length, -start_h, -idx): tercom's ranking of shift candidates.
type ShiftRank = (i64, usize, i64, i64);

/// Best shift (score gain, shifted words, candidates checked so far); sacrebleu's `_shift`.
fn shift(
    h: &[u32],
    r: &[u32],
    ed: &BeamEditDistance,
    mut checked: usize,
) -> (i64, Vec<u32>, usize) {
    let (pre_score, dist) = ed.full(h);
    // Flip insertions and deletions: the alignment is computed as if rewriting the reference into the hypothesis.
    let trace: Vec<Op> = ed
        .trace(&dist, h.len())
        .into_iter()
        .map(|o| match o {
            Op::Ins => Op::Del,
            Op::Del => Op::Ins,
            o => o,
        })
        .collect();
    let (mut pos_h, mut pos_r) = (-1i64, -1i64);
    let mut hyp_err: Vec<u8> = Vec::with_capacity(h.len());
    let mut ref_err: Vec<u8> = Vec::with_capacity(r.len());
    let mut align: Vec<Option<i64>> = vec![None; r.len()];
    for op in trace {
        match op {
            Op::Nop | Op::Sub => {
                pos_h += 1;
                pos_r += 1;
                align[pos_r as usize] = Some(pos_h);
                let e = u8::from(op == Op::Sub);
                hyp_err.push(e);
                ref_err.push(e);
            }
            Op::Ins => {
                pos_h += 1;
                hyp_err.push(1);
            }
            Op::Del => {
                pos_r += 1;
                align[pos_r as usize] = Some(pos_h);
                ref_err.push(1);
            }
            Op::Undef => {}
        }
    }
    let sum = |v: &[u8], a: usize, b: usize| -> u32 {
        let b = b.min(v.len());
        let a = a.min(b);
        v[a..b].iter().map(|&x| x as u32).sum()
    };
    // (score gain, length, -start_h, -idx) compared lexicographically, as sacrebleu's candidate tuples.
    let mut best: Option<(ShiftRank, Vec<u32>)> = None;
    let mut scratch = (
        Band {
            lo: 0,
            cells: Vec::new(),
        },
        Band {
            lo: 0,
            cells: Vec::new(),
        },
    );
    let (nh, nr) = (h.len(), r.len());
    'pairs: for start_h in 0..nh {
        // sacrebleu visits every start_r and skips those too far away; visiting only the near ones keeps the same
        // order (so the same candidate limit and ties) without O(hypothesis × reference) steps per shift.
        for start_r in start_h.saturating_sub(MAX_SHIFT_DIST)..nr.min(start_h + MAX_SHIFT_DIST + 1)
        {
            let mut length = 0;
            while h[start_h + length] == r[start_r + length] && length < MAX_SHIFT_SIZE {
                length += 1;
                // candidate (start_h, start_r, length)
                let consumed = nh == start_h + length || nr == start_r + length;
                'cand: {
                    if sum(&hyp_err, start_h, start_h + length) == 0
                        || sum(&ref_err, start_r, start_r + length) == 0
                    {
                        break 'cand;
                    }
                    let a = align[start_r].unwrap_or(-1);
                    if start_h as i64 <= a && a < (start_h + length) as i64 {
                        break 'cand;
                    }
                    let mut prev_idx: i64 = -1;
                    for offset in -1i64..length as i64 {
                        let pos = start_r as i64 + offset;
                        let idx = if pos == -1 {
                            0
                        } else if let Some(Some(a)) = align.get(pos as usize) {
                            a + 1
                        } else {
                            break;
                        };
                        if idx == prev_idx {
                            continue;
                        }
                        prev_idx = idx;
                        let shifted = perform_shift(h, start_h, length, idx as usize);
                        let common = shifted.iter().zip(h).take_while(|(x, y)| x == y).count();
                        let score = pre_score
                            - ed.distance_from(&shifted, &dist[common], common, &mut scratch);
                        let key = (score, length, -(start_h as i64), -idx);
                        checked += 1;
                        if best.as_ref().is_none_or(|(k, _)| key > *k) {
                            best = Some((key, shifted));
                        }
                    }
                    if checked >= MAX_SHIFT_CANDIDATES {
                        break 'pairs;
                    }
                }
                if consumed {
                    break;
                }
            }
        }
    }
    match best {
        None => (0, h.to_vec(), checked),
        Some((k, w)) => (k.0, w, checked),
    }
}
