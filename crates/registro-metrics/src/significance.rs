//! Paired significance tests between a baseline and N systems on sufficient statistics, ported from sacrebleu
//! 2.6.0 (`significance.py`): paired bootstrap resampling (Koehn 2004; p-value as in Moses'
//! `bootstrap-hypothesis-difference-significance.pl`) and approximate randomization (Riezler & Maxwell 2005).
//! With [`nprand`](crate::nprand) drawing numpy's exact indices and float32 statistics emulated, the means,
//! 95% CIs and p-values equal sacrebleu's `--paired-bs` / `--paired-ar` output for any seed.

use serde::Serialize;

use crate::metric::{par_map, Metric, SegmentStats};
use crate::npfloat::NpFloat;
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

/// numpy's pairwise summation (`pairwise_sum_DOUBLE` / `pairwise_sum_FLOAT`: a float32 array is summed in
/// float32), so that means match to the last bit.
fn np_sum<T: NpFloat>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut res = T::ZERO;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [T::ZERO; 8];
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

fn np_mean<T: NpFloat>(a: &[T]) -> T {
    np_sum(a) / T::from_usize(a.len())
}

/// Mean and 95% CI half-width of resampled scores (sacrebleu's `estimate_ci`).
pub fn estimate_ci(scores: &[f64]) -> (f64, f64) {
    estimate_ci_in::<f64>(scores)
}

/// [`estimate_ci`] with the scores in a numpy array of `T`.
fn estimate_ci_in<T: NpFloat>(scores: &[f64]) -> (f64, f64) {
    let mut s: Vec<T> = scores.iter().map(|&x| T::of(x)).collect();
    s.sort_by(T::total_cmp);
    let n = s.len();
    let lower = n / 40;
    let upper = n - lower - 1;
    (np_mean(&s).to_f64(), (T::of(0.5) * (s[upper] - s[lower])).to_f64())
}

fn ci_for(metric: &dyn Metric, scores: &[f64]) -> (f64, f64) {
    if metric.resampled_f32() {
        estimate_ci_in::<f32>(scores)
    } else {
        estimate_ci_in::<f64>(scores)
    }
}

/// Bootstrap p-value: how often the centred resampled |difference| exceeds the observed one.
fn bootstrap_p(metric: &dyn Metric, sys: &[f64], bl: &[f64], diff: f64) -> f64 {
    let c = if metric.resampled_f32() {
        exceeding::<f32>(sys, bl, diff)
    } else {
        exceeding::<f64>(sys, bl, diff)
    };
    (c + 1) as f64 / (sys.len() + 1) as f64
}

/// How many centred resampled |differences| exceed the observed `diff`, with the scores in numpy arrays of `T`.
fn exceeding<T: NpFloat>(sys: &[f64], bl: &[f64], diff: f64) -> usize {
    let d: Vec<T> = sys.iter().zip(bl).map(|(&a, &b)| (T::of(a) - T::of(b)).abs()).collect();
    let m = np_mean(&d);
    let diff = T::of(diff);
    d.iter().filter(|&&x| x - m > diff).count()
}

/// Bootstrap sample indices, `samples × n`, as numpy's `default_rng(seed).choice(n, (samples, n))`.
pub fn bootstrap_indices(n: usize, samples: usize, seed: u64) -> Vec<u32> {
    Pcg64::from_seed(seed).choice(n, n * samples)
}

/// At most this many resample indices (or randomization trial flags) are held at once: 128 MiB of u32. A test set
/// of 1M segments would otherwise need `samples × n` of them (4 GB for 1000 resamples); drawn a block of samples
/// at a time from the same generator, they are the same indices in the same order.
const INDEX_BUDGET: usize = 1 << 25;

/// How many samples (or trials) of `n` segments fit in `budget` indices, rounded down to a multiple of `align`
/// (at least `align`, at most `total`).
fn block_of(n: usize, total: usize, align: usize, budget: usize) -> usize {
    let fit = (budget / n.max(1)).max(1);
    (fit / align * align).max(align).min(total).max(1)
}

/// [`bootstrap_many`] over `samples` resamples drawn from `rng`'s stream a block at a time, so memory is bounded
/// by the statistics, not by `samples × n`; results equal one draw of all the indices to the last bit.
fn bootstrap_many_from(rng: &mut Pcg64, jobs: &[Resampled<'_>], samples: usize, budget: usize) -> Vec<Vec<f64>> {
    let Some(plan) = ResamplePlan::new(jobs) else {
        return jobs.iter().map(|_| vec![f64::NAN; samples]).collect();
    };
    let n = plan.n;
    let block = block_of(n, samples, 1, budget);
    let mut out: Vec<Vec<f64>> = jobs.iter().map(|_| Vec::with_capacity(samples)).collect();
    let mut done = 0;
    while done < samples {
        let k = block.min(samples - done);
        let idx = rng.choice(n, n * k);
        for (all, part) in out.iter_mut().zip(plan.scores(&idx, k)) {
            all.extend(part);
        }
        done += k;
    }
    out
}

/// [`bootstrap_many`] over the indices of [`bootstrap_indices`]`(n, samples, seed)`, drawn a block at a time.
pub fn bootstrap_many_seeded(jobs: &[Resampled<'_>], samples: usize, seed: u64) -> Vec<Vec<f64>> {
    bootstrap_many_from(&mut Pcg64::from_seed(seed), jobs, samples, INDEX_BUDGET)
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

/// What [`bootstrap_many`] resamples: a metric's per-segment statistics (scored like [`bootstrap_scores`]) or a
/// plain per-segment value whose resampled mean is wanted.
#[derive(Clone, Copy)]
pub enum Resampled<'a> {
    Metric(&'a dyn Metric, &'a SegmentStats),
    Mean(&'a [f64]),
}

impl Resampled<'_> {
    fn width(&self) -> usize {
        match self {
            Resampled::Metric(_, s) => s.width,
            Resampled::Mean(_) => 1,
        }
    }
    fn len(&self) -> usize {
        match self {
            Resampled::Metric(_, s) => s.len(),
            Resampled::Mean(v) => v.len(),
        }
    }
}

/// Float columns summed together per pass: 16 f64 accumulators stay in registers, and a block of `n` rows
/// (n × 128 bytes) stays in cache while every resample walks it.
const BLOCK: usize = 16;

/// Integer columns summed together per pass: 32 u16 values, one 64-byte cache line per drawn segment.
const UBLOCK: usize = 32;

/// Columns whose values exceed this are summed in u32 lanes directly (16 per cache line); smaller ones in u16
/// lanes, emptied into u32 totals before they could overflow (at least every 16 segments).
const NARROW_MAX: u32 = u16::MAX as u32 / 16;

/// Where one column of a job is summed.
#[derive(Clone, Copy)]
enum Col {
    /// Exact integer sums (index into the distinct integer columns).
    Int(usize),
    /// Float sums in index order (index into the float columns).
    Float(usize),
}

/// Whether every value of `s` is a non-negative integer whose resampled sums (at most `n` × the largest value)
/// fit in a u32: then a u32 sum is exactly the f64 sum, in any order, and twice as many fit in a register.
fn exact_in_u32(s: &SegmentStats, n: usize) -> bool {
    let mut max = 0.0f64;
    for &v in &s.data {
        if !(v >= 0.0 && v.fract() == 0.0) {
            return false;
        }
        max = max.max(v);
    }
    max * n as f64 <= u32::MAX as f64
}

/// Distinct integer columns, column after column (`n` values each). Systems scored against the same reference
/// share some columns (reference lengths, reference n-gram counts): those are summed once.
struct IntColumns {
    n: usize,
    data: Vec<u32>,
    by_hash: crate::fxhash::FxMap<u64, Vec<usize>>,
}

impl IntColumns {
    fn new(n: usize) -> Self {
        IntColumns { n, data: Vec::new(), by_hash: Default::default() }
    }

    fn len(&self) -> usize {
        self.data.len() / self.n
    }

    fn column(&self, k: usize) -> &[u32] {
        &self.data[k * self.n..(k + 1) * self.n]
    }

    /// The id of column `c` of `s` (checked by [`exact_in_u32`]), added unless an equal column is there.
    fn add(&mut self, s: &SegmentStats, c: usize) -> usize {
        use std::hash::Hasher;
        let col: Vec<u32> = (0..self.n).map(|i| s.data[i * s.width + c] as u32).collect();
        let mut h = crate::fxhash::FxHasher::default();
        for &v in &col {
            h.write_u32(v);
        }
        let hash = h.finish();
        if let Some(ids) = self.by_hash.get(&hash) {
            if let Some(&k) = ids.iter().find(|&&k| self.column(k) == col.as_slice()) {
                return k;
            }
        }
        let k = self.len();
        self.data.extend_from_slice(&col);
        self.by_hash.entry(hash).or_default().push(k);
        k
    }

    /// The columns laid out for summing, built once per test: every resample then walks the same blocks.
    fn into_blocks(self) -> IntBlocks {
        let (n, total) = (self.n, self.len());
        // Narrow columns in blocks of UBLOCK u16, the rest in blocks of UBLOCK / 2 u32; similar maxima share a
        // block, so each block empties its u16 lanes as rarely as its largest value allows.
        let max: Vec<u32> = (0..total).map(|k| self.column(k).iter().copied().max().unwrap_or(0)).collect();
        let mut order: Vec<usize> = (0..total).collect();
        order.sort_by_key(|&k| max[k]);
        let narrow = order.iter().take_while(|&&k| max[k] <= NARROW_MAX).count();
        let mut blocks = Vec::new();
        for cols in order[..narrow].chunks(UBLOCK) {
            // Row-major, four u16 columns to a u64, zero-padded.
            let mut data = vec![0u64; n * (UBLOCK / 4)];
            for (c, &k) in cols.iter().enumerate() {
                for (i, v) in self.column(k).iter().enumerate() {
                    data[i * (UBLOCK / 4) + c / 4] |= (*v as u64) << (16 * (c % 4));
                }
            }
            // Segments summed in u16 lanes before they are emptied: no lane can pass u16::MAX.
            let every = (u16::MAX as u32 / cols.iter().map(|&k| max[k]).max().unwrap_or(0).max(1)) as usize;
            blocks.push(IntBlock { cols: cols.to_vec(), data: BlockData::Narrow { data, every } });
        }
        for cols in order[narrow..].chunks(UBLOCK / 2) {
            let mut data = vec![0u32; n * (UBLOCK / 2)];
            for (c, &k) in cols.iter().enumerate() {
                for (i, v) in self.column(k).iter().enumerate() {
                    data[i * (UBLOCK / 2) + c] = *v;
                }
            }
            blocks.push(IntBlock { cols: cols.to_vec(), data: BlockData::Wide(data) });
        }
        IntBlocks { total, blocks }
    }
}

/// Distinct integer columns laid out row-major in cache-line blocks ([`IntColumns::into_blocks`]).
struct IntBlocks {
    total: usize,
    blocks: Vec<IntBlock>,
}

struct IntBlock {
    /// The column ids in this block, in lane order.
    cols: Vec<usize>,
    data: BlockData,
}

enum BlockData {
    /// u16 lanes, four to a u64, emptied into u32 totals every `every` rows.
    Narrow { data: Vec<u64>, every: usize },
    Wide(Vec<u32>),
}

impl IntBlocks {
    /// `sums[s * total + k]`: column `k` summed over the segments `rows(s)` of each of `samples` samples.
    fn resample<'i>(&self, samples: usize, rows: impl Fn(usize) -> &'i [u32] + Sync) -> Vec<u32> {
        let total = self.total;
        if total == 0 {
            return Vec::new();
        }
        par_chunks(samples, |range| {
            let mut out = vec![0u32; range.len() * total];
            for b in &self.blocks {
                for (r, s) in range.clone().enumerate() {
                    let acc = match &b.data {
                        BlockData::Narrow { data, every } => sum_rows_u16(data, rows(s), *every),
                        BlockData::Wide(data) => sum_rows_u32(data, rows(s)),
                    };
                    for (c, &k) in b.cols.iter().enumerate() {
                        out[r * total + k] = acc[c];
                    }
                }
            }
            out
        })
    }
}

/// The sum of the rows `idx` of a block of u16 columns packed four to a u64 (column `c` in bits 16·(c % 4) of
/// word c / 4), emptied into u32 totals every `every` rows. A u64 add is four u16 adds as long as no lane
/// overflows into the next, which `every` guarantees; the compiler turns the eight words into vector adds.
#[inline(always)]
fn sum_rows_u16(blk: &[u64], idx: &[u32], every: usize) -> [u32; UBLOCK] {
    const W: usize = UBLOCK / 4;
    let mut total = [0u32; UBLOCK];
    for chunk in idx.chunks(every) {
        let mut acc = [0u64; W];
        add_rows(&mut acc, blk, chunk);
        for (c, t) in total.iter_mut().enumerate() {
            *t = t.wrapping_add(((acc[c / 4] >> (16 * (c % 4))) & 0xffff) as u32);
        }
    }
    total
}

/// The sum of the rows `idx` of a block of u32 columns (the first half of the result).
#[inline(always)]
fn sum_rows_u32(blk: &[u32], idx: &[u32]) -> [u32; UBLOCK] {
    const W: usize = UBLOCK / 2;
    let mut acc = [0u32; W];
    // No overflow: `exact_in_u32` bounds every sum.
    add_rows(&mut acc, blk, idx);
    let mut out = [0u32; UBLOCK];
    out[..W].copy_from_slice(&acc);
    out
}

/// Adds the rows `idx` of a row-major block `W` words wide to `acc`, word by word. The additions wrap instead of
/// checking: the callers bound every sum, and unchecked adds of a known width become vector adds.
#[inline(always)]
fn add_rows<T: Word, const W: usize>(acc: &mut [T; W], blk: &[T], idx: &[u32]) {
    for &i in idx {
        let at = i as usize * W;
        let row: &[T; W] = blk[at..at + W].try_into().expect("row");
        for c in 0..W {
            acc[c] = acc[c].wrapping_add(row[c]);
        }
    }
}

/// The words of the integer blocks: u32 columns, or four u16 lanes in a u64.
trait Word: Copy {
    fn wrapping_add(self, other: Self) -> Self;
}

impl Word for u32 {
    fn wrapping_add(self, other: Self) -> Self {
        u32::wrapping_add(self, other)
    }
}

impl Word for u64 {
    fn wrapping_add(self, other: Self) -> Self {
        u64::wrapping_add(self, other)
    }
}

/// Float columns (`init`: each column's start value) laid out row-major in blocks of [`BLOCK`], built once per
/// test and summed per resample in index order as numpy would.
struct FloatBlocks {
    n: usize,
    total: usize,
    nblocks: usize,
    blocks: Vec<f64>,
    init: Vec<f64>,
}

impl FloatBlocks {
    fn new(columns: Vec<(Vec<f64>, f64)>, n: usize) -> Self {
        let total = columns.len();
        let nblocks = total.div_ceil(BLOCK);
        let mut blocks = vec![0.0f64; nblocks * n * BLOCK];
        let mut init = vec![0.0f64; nblocks * BLOCK];
        for (col, (values, start)) in columns.into_iter().enumerate() {
            init[col] = start;
            for (i, v) in values.into_iter().enumerate() {
                blocks[(col / BLOCK) * n * BLOCK + i * BLOCK + col % BLOCK] = v;
            }
        }
        FloatBlocks { n, total, nblocks, blocks, init }
    }

    /// `sums[s * total + k]` over the `samples` resamples of `idx` (`samples × n`).
    fn resample(&self, idx: &[u32], samples: usize) -> Vec<f64> {
        let (n, total, nblocks) = (self.n, self.total, self.nblocks);
        if total == 0 {
            return Vec::new();
        }
        let stride = nblocks * BLOCK;
        let padded = par_chunks(samples, |range| {
            let mut out = vec![0.0f64; range.len() * stride];
            for b in 0..nblocks {
                let blk = &self.blocks[b * n * BLOCK..(b + 1) * n * BLOCK];
                let start: [f64; BLOCK] = self.init[b * BLOCK..(b + 1) * BLOCK].try_into().expect("block");
                for (r, s) in range.clone().enumerate() {
                    let mut acc = start;
                    for &i in &idx[s * n..(s + 1) * n] {
                        let at = i as usize * BLOCK;
                        acc = add_block(acc, blk[at..at + BLOCK].try_into().expect("row"));
                    }
                    out[r * stride + b * BLOCK..r * stride + (b + 1) * BLOCK].copy_from_slice(&acc);
                }
            }
            out
        });
        // Drop the padding columns.
        padded.chunks_exact(stride).flat_map(|row| row[..total].iter().copied()).collect()
    }
}

/// Resampled scores of many statistics at once over the same indices (`samples × n`, as from
/// [`bootstrap_indices`]): one result per job, equal to the last bit to [`bootstrap_scores`] for a metric and to
/// `Σ values[idx] / n` (summed in index order) for a mean.
///
/// One index draw serves every job (sacrebleu's paired tests resample all systems with the same indices).
/// Integer statistics (BLEU and chrF counts, M-Acc labels…) are summed exactly in u32 lanes, each distinct column
/// once (systems sharing a reference share its columns); other statistics and means are summed in f64 in index
/// order from sacrebleu's start value. Columns are walked in cache-line blocks, so one pass over a resample's
/// indices sums 16 columns with vector adds.
pub fn bootstrap_many(jobs: &[Resampled<'_>], idx: &[u32], samples: usize) -> Vec<Vec<f64>> {
    let n = jobs.first().map_or(0, |j| j.len());
    assert!(idx.len() >= n * samples, "too few resample indices");
    match ResamplePlan::new(jobs) {
        Some(plan) => plan.scores(idx, samples),
        None => jobs.iter().map(|_| vec![f64::NAN; samples]).collect(),
    }
}

/// Every job's columns laid out for resampling, once per test; [`ResamplePlan::scores`] then takes any number of
/// resamples, a block of indices at a time.
struct ResamplePlan<'j, 'a> {
    jobs: &'j [Resampled<'a>],
    n: usize,
    cols: Vec<Vec<Col>>,
    ints: IntBlocks,
    floats: FloatBlocks,
}

impl<'j, 'a> ResamplePlan<'j, 'a> {
    /// `None` when there is nothing to resample (no job, no segment, no statistic).
    fn new(jobs: &'j [Resampled<'a>]) -> Option<Self> {
        let n = jobs.first()?.len();
        assert!(jobs.iter().all(|j| j.len() == n), "resampled jobs differ in length");
        if n == 0 || jobs.iter().all(|j| j.width() == 0) {
            return None;
        }
        let mut ints = IntColumns::new(n);
        let mut floats: Vec<(Vec<f64>, f64)> = Vec::new();
        let mut float_col = |values: Vec<f64>, start: f64| {
            floats.push((values, start));
            Col::Float(floats.len() - 1)
        };
        let cols: Vec<Vec<Col>> = jobs
            .iter()
            .map(|j| match j {
                Resampled::Metric(_, s) if exact_in_u32(s, n) => (0..s.width).map(|c| Col::Int(ints.add(s, c))).collect(),
                // `bootstrap_scores` starts its sums from 0.0.
                Resampled::Metric(_, s) => (0..s.width).map(|c| float_col((0..n).map(|i| s.data[i * s.width + c]).collect(), 0.0)).collect(),
                // `Sum for f64` starts from −0.0.
                Resampled::Mean(v) => vec![float_col(v.to_vec(), -0.0)],
            })
            .collect();
        Some(ResamplePlan { jobs, n, cols, ints: ints.into_blocks(), floats: FloatBlocks::new(floats, n) })
    }

    /// Each job's scores over the `samples` resamples of `idx` (`samples × n`).
    fn scores(&self, idx: &[u32], samples: usize) -> Vec<Vec<f64>> {
        let n = self.n;
        let (ni, nf) = (self.ints.total, self.floats.total);
        let int_sums = self.ints.resample(samples, |s| &idx[s * n..(s + 1) * n]);
        let float_sums = self.floats.resample(idx, samples);
        let sum = |k: usize, c: Col| match c {
            Col::Int(u) => int_sums[k * ni + u] as f64,
            Col::Float(f) => float_sums[k * nf + f],
        };
        // Scoring the sums (logs and exponentials for BLEU, F-scores for chrF) is per job: on every core too.
        par_map(self.jobs.len(), |ji| match &self.jobs[ji] {
            Resampled::Metric(metric, s) => {
                let mut acc32 = vec![0.0f32; s.width];
                (0..samples)
                    .map(|k| {
                        for (a, c) in acc32.iter_mut().zip(&self.cols[ji]) {
                            *a = sum(k, *c) as f32;
                        }
                        metric.score_f32(&acc32)
                    })
                    .collect()
            }
            Resampled::Mean(_) => (0..samples).map(|k| sum(k, self.cols[ji][0]) / n as f64).collect(),
        })
    }
}

/// `a + b` element-wise, written so the compiler keeps the accumulators in vector registers.
#[inline(always)]
fn add_block(a: [f64; BLOCK], b: &[f64; BLOCK]) -> [f64; BLOCK] {
    std::array::from_fn(|c| a[c] + b[c])
}

/// Splits `0..n` into one contiguous range per core and concatenates the results in order.
fn par_chunks<T: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(16).min(n.max(1));
    if threads <= 1 {
        return f(0..n);
    }
    let chunk = n.div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..threads).map(|t| s.spawn(move || f(t * chunk..((t + 1) * chunk).min(n)))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("resampling worker panicked")).collect()
    })
}

/// The engine's paired bootstrap result for a system whose resampled scores are already known: CI from
/// [`estimate_ci`] (in float32 where the metric resamples in float32), p-value by sacrebleu's rule.
pub fn bootstrap_result(
    metric: &dyn Metric,
    score: f64,
    scores: &[f64],
    baseline: Option<(f64, &[f64])>,
) -> TestResult {
    let (m, ci) = ci_for(metric, scores);
    let p_value = baseline.map(|(bl_score, bl_scores)| bootstrap_p(metric, scores, bl_scores, (bl_score - score).abs()));
    TestResult { score, p_value, mean: Some(m), ci: Some(ci) }
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
    // Baseline and every system resampled in one pass.
    let jobs: Vec<Resampled> = std::iter::once(baseline)
        .chain(systems.iter().copied())
        .map(|s| Resampled::Metric(metric, s))
        .collect();
    let scores = bootstrap_many_seeded(&jobs, samples, seed);
    let bl_score = metric.score(&baseline.sum());
    let mut out = vec![bootstrap_result(metric, bl_score, &scores[0], None)];
    for (sys, sys_scores) in systems.iter().zip(&scores[1..]) {
        let score = metric.score(&sys.sum());
        out.push(bootstrap_result(metric, score, sys_scores, Some((bl_score, &scores[0]))));
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
    paired_ar_in_blocks(metric, baseline, systems, trials, confidence_samples, seed, INDEX_BUDGET)
}

/// [`paired_ar`] holding at most `budget` trial flags or resample indices at once.
fn paired_ar_in_blocks(
    metric: &dyn Metric,
    baseline: &SegmentStats,
    systems: &[&SegmentStats],
    trials: usize,
    confidence_samples: usize,
    seed: u64,
    budget: usize,
) -> Result<Vec<TestResult>, MetricError> {
    check(baseline, systems)?;
    let n = baseline.len();
    let bl_total = baseline.sum();
    let bl_score = metric.score(&bl_total);
    let mut out = vec![TestResult {
        score: bl_score,
        p_value: None,
        mean: None,
        ci: None,
    }];
    if confidence_samples > 0 {
        let scores = bootstrap_many_from(&mut Pcg64::from_seed(seed), &[Resampled::Metric(metric, baseline)], confidence_samples, budget);
        let (m, ci) = ci_for(metric, &scores[0]);
        out[0].mean = Some(m);
        out[0].ci = Some(ci);
    }
    // Every system's test restarts the generator from the seed, as sacrebleu does: all of them draw the same
    // trials and then the same bootstrap indices, drawn once here. Trials are drawn a block at a time (a multiple
    // of 32, so each block ends on a whole 32-bit draw and the flags are those of one draw of all trials).
    let mut rng = Pcg64::from_seed(seed);
    let integer = (exact_in_u32(baseline, n) && systems.iter().all(|s| exact_in_u32(s, n)))
        .then(|| ArCounter::new(metric, baseline, systems));
    let mut exceed = vec![0usize; systems.len()];
    let block = block_of(n, trials, 32, budget);
    let mut done = 0;
    while done < trials {
        let t = block.min(trials - done);
        let sel = rng.bools(t * n);
        let counts = if let Some(counter) = &integer {
            counter.count(&sel, t)
        } else {
            systems.iter().map(|sys| ar_exceed_count(metric, baseline, sys, &sel, t)).collect()
        };
        for (e, c) in exceed.iter_mut().zip(counts) {
            *e += c;
        }
        done += t;
    }
    let boot = (confidence_samples > 0).then(|| {
        let jobs: Vec<Resampled> = systems.iter().map(|s| Resampled::Metric(metric, *s)).collect();
        bootstrap_many_from(&mut rng, &jobs, confidence_samples, budget)
    });
    for (k, sys) in systems.iter().enumerate() {
        let score = metric.score(&sys.sum());
        let p = (exceed[k] + 1) as f64 / (trials + 1) as f64;
        let mut r = TestResult { score, p_value: Some(p), mean: None, ci: None };
        if let Some(boot) = &boot {
            let (m, ci) = ci_for(metric, &boot[k]);
            r.mean = Some(m);
            r.ci = Some(ci);
        }
        out.push(r);
    }
    Ok(out)
}

/// How many of the `trials` shuffles (segment `i` of trial `t` swapped where `sel[t * n + i]`) give a score
/// difference above the observed one (sacrebleu's loop, one system).
fn ar_exceed_count(metric: &dyn Metric, baseline: &SegmentStats, sys: &SegmentStats, sel: &[bool], trials: usize) -> usize {
    let (n, w) = (baseline.len(), baseline.width);
    let bl_total = baseline.sum();
    let sys_total = sys.sum();
    let diff = (metric.score(&bl_total) - metric.score(&sys_total)).abs();
    // shuf_a = Σ_sel baseline + Σ_¬sel system; shuf_b is the complement.
    par_map(trials, |t| {
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
    .sum()
}

/// [`ar_exceed_count`] for every system at once when all statistics are integers: each trial's swapped segments
/// are summed once per distinct column (the baseline's columns serve every system), exactly, so
/// `system total + Σ_sel baseline − Σ_sel system` is the value sacrebleu's loop reaches one segment at a time.
#[cfg(test)]
fn ar_exceed_counts(metric: &dyn Metric, baseline: &SegmentStats, systems: &[&SegmentStats], sel: &[bool], trials: usize) -> Vec<usize> {
    ArCounter::new(metric, baseline, systems).count(sel, trials)
}

/// The integer path of approximate randomization, with the columns laid out once for every block of trials.
struct ArCounter<'m> {
    metric: &'m dyn Metric,
    n: usize,
    w: usize,
    blocks: IntBlocks,
    bl_cols: Vec<usize>,
    sys_cols: Vec<Vec<usize>>,
    bl_total: Vec<f64>,
    sys_totals: Vec<Vec<f64>>,
}

impl<'m> ArCounter<'m> {
    fn new(metric: &'m dyn Metric, baseline: &SegmentStats, systems: &[&SegmentStats]) -> Self {
        let (n, w) = (baseline.len(), baseline.width);
        let mut ints = IntColumns::new(n);
        let bl_cols: Vec<usize> = (0..w).map(|c| ints.add(baseline, c)).collect();
        let sys_cols: Vec<Vec<usize>> = systems.iter().map(|s| (0..w).map(|c| ints.add(s, c)).collect()).collect();
        ArCounter {
            metric,
            n,
            w,
            blocks: ints.into_blocks(),
            bl_cols,
            sys_cols,
            bl_total: baseline.sum(),
            sys_totals: systems.iter().map(|s| s.sum()).collect(),
        }
    }

    /// Per system, how many of the `trials` shuffles in `sel` (segment `i` of trial `t` swapped where
    /// `sel[t * n + i]`) exceed the observed difference.
    fn count(&self, sel: &[bool], trials: usize) -> Vec<usize> {
        let (n, w, metric) = (self.n, self.w, self.metric);
        // The segments each trial swaps.
        let mut picked: Vec<u32> = Vec::with_capacity(sel.len() / 2 + 1);
        let mut starts = Vec::with_capacity(trials + 1);
        for t in 0..trials {
            starts.push(picked.len());
            picked.extend((0..n).filter(|&i| sel[t * n + i]).map(|i| i as u32));
        }
        starts.push(picked.len());
        let total = self.blocks.total;
        let sums = self.blocks.resample(trials, |t| &picked[starts[t]..starts[t + 1]]);
        let bl_total = &self.bl_total;
        let bl_score = metric.score(bl_total);
        par_map(self.sys_cols.len(), |k| {
            let sys_total = &self.sys_totals[k];
            let diff = (bl_score - metric.score(sys_total)).abs();
            let (mut a, mut b) = (vec![0.0; w], vec![0.0; w]);
            (0..trials)
                .filter(|&t| {
                    let row = &sums[t * total..(t + 1) * total];
                    for c in 0..w {
                        a[c] = sys_total[c] + row[self.bl_cols[c]] as f64 - row[self.sys_cols[k][c]] as f64;
                        b[c] = bl_total[c] + sys_total[c] - a[c];
                    }
                    (metric.score(&a) - metric.score(&b)).abs() > diff
                })
                .count()
        })
    }
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

    /// A metric whose statistics are fractional, so any change in summation order would show in the last bits.
    struct Ratio;
    impl Metric for Ratio {
        fn name(&self) -> String {
            "ratio".into()
        }
        fn signature_fields(&self) -> Vec<(&'static str, String)> {
            Vec::new()
        }
        fn prepare_refs(&self, _: &[&str]) -> crate::metric::RefPrep {
            Box::new(())
        }
        fn segment_stats(&self, _: &str, _: &crate::metric::RefPrep) -> Vec<f64> {
            Vec::new()
        }
        fn score(&self, s: &[f64]) -> f64 {
            s.iter().enumerate().map(|(i, v)| v * (i + 1) as f64).sum::<f64>() / s[0].max(1.0)
        }
    }

    #[test]
    fn batched_resampling_equals_one_job_at_a_time() {
        let n = 97;
        let stats = |w: usize, salt: f64| SegmentStats {
            width: w,
            data: (0..n * w).map(|k| ((k as f64 * 0.37 + salt).sin() * 10.0).abs() + 0.1).collect(),
        };
        // Widths that straddle the 16-column blocks.
        let (a, b, c) = (stats(9, 0.3), stats(18, 1.7), stats(2, 2.9));
        let means: Vec<f64> = (0..n).map(|i| (i as f64 * 0.123).cos()).collect();
        let idx = bootstrap_indices(n, 300, 7);
        let jobs = [
            Resampled::Metric(&Ratio, &a),
            Resampled::Mean(&means),
            Resampled::Metric(&Ratio, &b),
            Resampled::Metric(&Ratio, &c),
        ];
        let got = bootstrap_many(&jobs, &idx, 300);
        assert_eq!(got[0], bootstrap_scores(&Ratio, &a, &idx, 300));
        assert_eq!(got[2], bootstrap_scores(&Ratio, &b, &idx, 300));
        assert_eq!(got[3], bootstrap_scores(&Ratio, &c, &idx, 300));
        let one_by_one: Vec<f64> = (0..300)
            .map(|s| idx[s * n..(s + 1) * n].iter().map(|&i| means[i as usize]).sum::<f64>() / n as f64)
            .collect();
        assert_eq!(got[1], one_by_one);
    }

    /// Integer statistics are summed in u32 lanes and equal columns once: the scores must still be those of the
    /// f64 sums `bootstrap_scores` takes, for shared columns, widths across blocks, and values too large for u32
    /// sums (which take the float path).
    #[test]
    fn integer_statistics_resample_like_float_sums() {
        let n = 301;
        let counts = |w: usize, salt: u64, scale: f64| SegmentStats {
            width: w,
            data: (0..n * w).map(|k| (((k as u64 * 2654435761 + salt) % 97) as f64 * scale).floor()).collect(),
        };
        let a = counts(10, 1, 1.0);
        let mut b = counts(18, 2, 1.0);
        // b shares a's first column (a reference length), and one column of b repeats another.
        for i in 0..n {
            b.data[i * 18] = a.data[i * 10];
            b.data[i * 18 + 17] = b.data[i * 18 + 3];
        }
        let c = counts(3, 3, 1.0);
        // Values above NARROW_MAX go to u32 lanes.
        let wide = counts(5, 5, 100.0);
        // Sums of up to 301 × 2^25 overflow a u32: this job is summed in f64.
        let huge = counts(2, 4, (1u64 << 25) as f64);
        let idx = bootstrap_indices(n, 250, 11);
        let jobs = [Resampled::Metric(&Ratio, &a), Resampled::Metric(&Ratio, &b), Resampled::Metric(&Ratio, &c), Resampled::Metric(&Ratio, &wide), Resampled::Metric(&Ratio, &huge)];
        let got = bootstrap_many(&jobs, &idx, 250);
        for (g, s) in got.iter().zip([&a, &b, &c, &wide, &huge]) {
            assert_eq!(g, &bootstrap_scores(&Ratio, s, &idx, 250));
        }
        assert!(exact_in_u32(&a, n) && !exact_in_u32(&huge, n));
    }

    /// Approximate randomization of every system at once (integer statistics) counts the same exceeding trials
    /// as sacrebleu's loop over one system at a time.
    #[test]
    fn batched_randomization_equals_the_loop_per_system() {
        let n = 157;
        let counts = |salt: u64| SegmentStats {
            width: 6,
            data: (0..n * 6).map(|k| ((k as u64 * 2654435761 + salt * 40503) % 23) as f64).collect(),
        };
        let (base, y) = (counts(1), counts(3));
        // x is the baseline one count up (even segments) or down (odd ones): shuffles often exceed the small net
        // difference.
        let mut x = base.clone();
        for (k, v) in x.data.iter_mut().enumerate() {
            *v = if (k / 6) % 2 == 0 { *v + 1.0 } else { (*v - 1.0).max(0.0) };
        }
        let sel = Pcg64::from_seed(5).bools(400 * n);
        let batched = ar_exceed_counts(&Ratio, &base, &[&x, &y, &base], &sel, 400);
        let looped: Vec<usize> = [&x, &y, &base].iter().map(|s| ar_exceed_count(&Ratio, &base, s, &sel, 400)).collect();
        assert_eq!(batched, looped);
        assert!(looped[0] > 0 && looped[0] < 400, "a test that can go either way: {looped:?}");
    }

    /// Indices and trial flags drawn a block at a time (what keeps a 1M-segment test in bounded memory) give the
    /// results of one draw of all of them, for the bootstrap and for randomization on both summing paths.
    #[test]
    fn tests_in_blocks_equal_one_draw_of_every_index() {
        let n = 157;
        let ints = |salt: u64| SegmentStats { width: 6, data: (0..n * 6).map(|k| ((k as u64 * 2654435761 + salt * 40503) % 23) as f64).collect() };
        let (base, x) = (ints(1), ints(3));
        let frac = SegmentStats { width: 6, data: x.data.iter().map(|v| v + 0.25).collect() };
        let jobs = [Resampled::Metric(&Ratio, &base), Resampled::Metric(&Ratio, &x), Resampled::Metric(&Ratio, &frac)];
        let whole = bootstrap_many(&jobs, &bootstrap_indices(n, 300, 9), 300);
        for budget in [n, 7 * n + 3, 64 * n] {
            assert_eq!(bootstrap_many_from(&mut Pcg64::from_seed(9), &jobs, 300, budget), whole, "budget {budget}");
        }
        for systems in [vec![&x], vec![&frac]] {
            let all = paired_ar_in_blocks(&Ratio, &base, &systems, 200, 150, 4, usize::MAX).unwrap();
            // 32 trials per block: seven blocks, the last one short.
            assert_eq!(paired_ar_in_blocks(&Ratio, &base, &systems, 200, 150, 4, 32 * n).unwrap(), all);
            assert_eq!(paired_ar_in_blocks(&Ratio, &base, &systems, 200, 150, 4, n).unwrap(), all);
        }
    }

    #[test]
    fn ci_uses_the_2_5_and_97_5_percentiles() {
        let scores: Vec<f64> = (0..1000).map(|i| i as f64).collect();
        let (m, ci) = estimate_ci(&scores);
        assert_eq!(m, 499.5);
        assert_eq!(ci, 0.5 * (974.0 - 25.0));
    }
}
