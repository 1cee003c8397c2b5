//! Attention of one new token per row (a decode step) on the CPU, read straight from the KV cache.
//!
//! Through candle a decode step's attention is two batched matmuls of `(g, hd) × (hd, t)` per row and KV head, a
//! softmax and four reshapes, each a pass over the thread pool with its own copies; with 16 rows it took 31% of a
//! batched decode step of Qwen2.5-1.5B. And a shared prompt prefix would have to be copied in front of every
//! row's keys at every step. Here one work unit is one row's KV head: its scores and weighted values are computed
//! over both runs of columns (the shared prefix's, then the row's own), read where the cache holds them, by small
//! kernels that keep their sums in registers (`scores_by_column`, `weighted_values_blocked`): against `gemm` per run
//! and a loop through memory, they took a decode step's attention at 12 rows over 750 columns from 1.11 to 0.70–0.82
//! ms a layer on an AMD EPYC.
//!
//! The arithmetic is the candle path's: scores `q·k × scale + mask`, softmax with the maximum subtracted, the
//! weights rounded to f16 when the cache is (`f16_attention`), then the weighted sum of values. Only the order of
//! float additions differs.
use anyhow::Result;
use candle_core::{Storage, Tensor};

/// The decode-step attention `(b, 1, nh·hd)` of queries `q` `(b, nh, 1, hd)` over the `shared` prefix's keys and
/// values `(1, nkv, p, hd)` (every row's first columns) and the rows' own `k`, `v` `(b, nkv, t, hd)`, with an
/// additive `mask` `(b, 1, p + t)`; `None` when the tensors are not on the CPU or not laid out as the cache lays
/// them (then the caller takes candle's path).
pub(super) fn decode_step(
    q: &Tensor,
    shared: Option<(&Tensor, &Tensor)>,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    scale: f32,
    round_p: bool,
) -> Result<Option<Tensor>> {
    let (b, nh, s, hd) = q.dims4()?;
    let (kb, nkv, t, khd) = k.dims4()?;
    if s != 1 || kb != b || khd != hd || v.dims4()? != (b, nkv, t, hd) || nkv == 0 || nh % nkv != 0 || !q.device().is_cpu() {
        return Ok(None);
    }
    let p = match shared {
        Some((sk, sv)) => {
            let (_, _, p, _) = sk.dims4()?;
            if sk.dims4()? != (1, nkv, p, hd) || sv.dims4()? != (1, nkv, p, hd) {
                return Ok(None);
            }
            p
        }
        None => 0,
    };
    let q = q.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
    let mask = match mask {
        Some(m) => Some(m.flatten_all()?.to_vec1::<f32>()?),
        None => None,
    };
    if mask.as_ref().is_some_and(|m| m.len() != b * (p + t)) {
        return Ok(None);
    }
    let (ks, kl) = k.storage_and_layout();
    let (vs, vl) = v.storage_and_layout();
    let (Some(own_k), Some(own_v)) = (Heads::new(&ks, kl, b, nkv, t, hd), Heads::new(&vs, vl, b, nkv, t, hd)) else {
        return Ok(None);
    };
    let shared = shared.map(|(sk, sv)| (sk.storage_and_layout(), sv.storage_and_layout()));
    let prefix = match &shared {
        Some(((ks, kl), (vs, vl))) => match (Heads::new(ks, kl, 1, nkv, p, hd), Heads::new(vs, vl, 1, nkv, p, hd)) {
            (Some(k), Some(v)) => Some((k, v)),
            _ => return Ok(None),
        },
        None => None,
    };
    let g = nh / nkv;
    let mut out = vec![0f32; b * nh * hd];
    let dst = out.as_mut_ptr() as usize;
    let unit = |u: usize| {
        let (r, h) = (u / nkv, u % nkv);
        let (pre_k, pre_v) = prefix.as_ref().map_or((&[][..], &[][..]), |(k, v)| (k.head(0, h), v.head(0, h)));
        let (own_k, own_v) = (own_k.head(r, h), own_v.head(r, h));
        let queries = &q[(r * nh + h * g) * hd..][..g * hd];
        let row_mask = mask.as_deref().map(|m| &m[r * (p + t)..(r + 1) * (p + t)]);
        // SAFETY: unit (r, h) alone writes query heads h·g..(h+1)·g of row r, a disjoint `g·hd` slice of `out`.
        let y = unsafe { std::slice::from_raw_parts_mut((dst as *mut f32).add((r * nh + h * g) * hd), g * hd) };
        Head { queries, keys: [pre_k, own_k], values: [pre_v, own_v], mask: row_mask, hd, scale, round_p }.attend(y);
    };
    crate::pool::for_each_chunk(b * nkv, |units| units.for_each(unit));
    Ok(Some(Tensor::from_vec(out, (b, 1, nh * hd), &candle_core::Device::Cpu)?))
}

/// Milliseconds one layer's decode-step attention takes for `rows` rows with `n_head` query and `n_kv_head` key/value
/// heads of `hd`, over a shared prefix of `prefix` columns and `own` columns per row (random operands, f16-rounded
/// weights, best of three runs of 20); `None` off the CPU kernels' path. For `registro bench engine`.
pub(crate) fn time_decode_step(n_head: usize, n_kv_head: usize, hd: usize, rows: usize, prefix: usize, own: usize) -> Result<Option<f64>> {
    let dev = candle_core::Device::Cpu;
    let q = Tensor::randn(0f32, 1.0, (rows, n_head, 1, hd), &dev)?;
    let (k, v) = (Tensor::randn(0f32, 1.0, (rows, n_kv_head, own, hd), &dev)?, Tensor::randn(0f32, 1.0, (rows, n_kv_head, own, hd), &dev)?);
    let (sk, sv) = (Tensor::randn(0f32, 1.0, (1, n_kv_head, prefix, hd), &dev)?, Tensor::randn(0f32, 1.0, (1, n_kv_head, prefix, hd), &dev)?);
    let mask = Tensor::zeros((rows, 1, prefix + own), candle_core::DType::F32, &dev)?;
    let scale = 1.0 / (hd as f32).sqrt();
    let step = || decode_step(&q, Some((&sk, &sv)), &k, &v, Some(&mask), scale, true);
    if step()?.is_none() {
        return Ok(None);
    }
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        for _ in 0..20 {
            step()?;
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e3 / 20.0);
    }
    Ok(Some(best))
}

/// A `(rows, kv_heads, columns, hd)` CPU tensor whose heads are each `columns` consecutive `hd`-wide rows (the
/// KV cache's layout; the row and head strides may be anything), read in place.
struct Heads<'a> {
    data: &'a [f32],
    offset: usize,
    row_stride: usize,
    head_stride: usize,
    len: usize,
}

impl<'a> Heads<'a> {
    fn new(storage: &'a Storage, layout: &candle_core::Layout, rows: usize, heads: usize, columns: usize, hd: usize) -> Option<Self> {
        let st = layout.stride();
        if st.len() != 4 || st[3] != 1 || (st[2] != hd && columns > 1) {
            return None;
        }
        let Storage::Cpu(cpu) = storage else { return None };
        let data = cpu.as_slice::<f32>().ok()?;
        let h = Heads { data, offset: layout.start_offset(), row_stride: st[0], head_stride: st[1], len: columns * hd };
        let end = h.offset + (rows - 1) * h.row_stride + (heads - 1) * h.head_stride + h.len;
        (end <= data.len()).then_some(h)
    }

    fn head(&self, row: usize, head: usize) -> &'a [f32] {
        &self.data[self.offset + row * self.row_stride + head * self.head_stride..][..self.len]
    }
}

/// One row's KV head (the shared prefix's columns, then the row's own) and the `g` query heads that read it.
struct Head<'a> {
    queries: &'a [f32],
    keys: [&'a [f32]; 2],
    values: [&'a [f32]; 2],
    mask: Option<&'a [f32]>,
    hd: usize,
    scale: f32,
    round_p: bool,
}

impl Head<'_> {
    /// Scores, softmax and weighted values over both runs of columns (the shared prefix, then the row's own). A
    /// scalar dot product per (head, column) was fine for a 100-token prefix but, at the 600+ columns of a
    /// few-shot translation prompt, took 22% of a translation's time against 14% for a layer's largest weight.
    fn attend(&self, y: &mut [f32]) {
        let hd = self.hd;
        let g = y.len() / hd;
        let t = (self.keys[0].len() + self.keys[1].len()) / hd;
        let mut p = vec![0f32; g * t];
        self.scores(&mut p, t);
        for w in p.chunks_exact_mut(t) {
            if let Some(m) = self.mask {
                for (x, &add) in w.iter_mut().zip(m) {
                    *x += add;
                }
            }
            let max = w.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
            let mut sum = 0f32;
            // libm's exp, as candle's softmax: the weights are rounded to f16 next, and a polynomial's last-bit
            // differences flipped enough of those roundings to change greedy output on a random model.
            for x in w.iter_mut() {
                *x = (*x - max).exp();
                sum += *x;
            }
            let inv = 1.0 / sum;
            for x in w.iter_mut() {
                *x *= inv;
            }
            if self.round_p {
                super::round_f16_slice(w);
            }
        }
        self.weighted_values(&p, t, y);
    }

    /// `p[gi·t + c] = scale · (q_gi · k_c)` over both runs of columns. On x86-64 CPUs with FMA, every score is
    /// the `hd` products summed in lane order by fused multiply-adds from 0, then scaled, whichever run its column
    /// lies in, so a prompt decoded over a shared prefix scores what it scores whole. (The `gemm` crate sums in that
    /// order for wide products but not for narrow ones: a row's own run of 5 or 17 columns came out differently
    /// from the same columns inside a 757-column run.) Elsewhere, `gemm` per run.
    fn scores(&self, p: &mut [f32], t: usize) {
        let hd = self.hd;
        let g = p.len() / t.max(1);
        #[cfg(target_arch = "x86_64")]
        if g <= 8 && std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            let n0 = self.keys[0].len() / hd;
            // The queries by lane of `hd`: one 8-wide vector of query heads per lane (heads past `g` are 0).
            let mut by_lane = vec![0f32; hd * 8];
            for gi in 0..g {
                for d in 0..hd {
                    by_lane[d * 8 + gi] = self.queries[gi * hd + d];
                }
            }
            // SAFETY: the features were just detected; `p` is g×t and the two runs hold t columns of hd in all.
            unsafe {
                scores_by_column(&by_lane, g, self.keys[0], hd, self.scale, p, 0, t);
                scores_by_column(&by_lane, g, self.keys[1], hd, self.scale, p, n0, t);
            }
            return;
        }
        let mut at = 0;
        for keys in self.keys {
            let n = keys.len() / hd;
            if n > 0 {
                // SAFETY: `p` is g×t (row stride t) and columns at..at+n lie inside it; `queries` is g×hd (row
                // stride hd); `keys` holds n rows of hd, read as the hd×n matrix Kᵀ (row stride 1, column stride hd).
                unsafe {
                    gemm::gemm(
                        g, n, hd,
                        p.as_mut_ptr().add(at), 1, t as isize, false,
                        self.queries.as_ptr(), 1, hd as isize,
                        keys.as_ptr(), hd as isize, 1,
                        0.0, self.scale, false, false, false, gemm::Parallelism::None,
                    );
                }
            }
            at += n;
        }
    }

    /// `y = P·V` over both runs of columns, summed column by column in order: the same additions in the same
    /// order whether a column lies in the shared prefix or in the row's own run, so a prompt decoded over a shared
    /// prefix computes what it computes whole (two matrix products, one per run, rounded differently and turned a
    /// random model's near tie the other way).
    fn weighted_values(&self, p: &[f32], t: usize, y: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the feature `weighted_values_avx512` is compiled for was just detected.
            return unsafe { self.weighted_values_avx512(p, t, y) };
        }
        self.weighted_values_portable(p, t, y)
    }

    /// The portable loop compiled with AVX-512 enabled, so the compiler vectorises it with 16-lane registers.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F (the caller checks `is_x86_feature_detected!` first); the body itself is
    /// safe code.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn weighted_values_avx512(&self, p: &[f32], t: usize, y: &mut [f32]) {
        let g = y.len() / self.hd;
        if !self.hd.is_multiple_of(32) {
            return self.weighted_values_portable(p, t, y);
        }
        // SAFETY (each arm): avx512f is enabled for this function; `g` matches the arm.
        match g {
            1 => self.weighted_values_blocked::<1>(p, t, y),
            2 => self.weighted_values_blocked::<2>(p, t, y),
            3 => self.weighted_values_blocked::<3>(p, t, y),
            4 => self.weighted_values_blocked::<4>(p, t, y),
            5 => self.weighted_values_blocked::<5>(p, t, y),
            6 => self.weighted_values_blocked::<6>(p, t, y),
            7 => self.weighted_values_blocked::<7>(p, t, y),
            8 => self.weighted_values_blocked::<8>(p, t, y),
            _ => self.weighted_values_portable(p, t, y),
        }
    }

    /// The portable loop's sums with its `G` query heads' accumulators for 32 of the `hd` lanes held in registers
    /// across all columns: the portable loop reloads and stores every accumulator for every column, which bound it
    /// by the L1 cache's loads and stores rather than by arithmetic. Each output lane still adds `w · v` (rounded,
    /// then added: no fused multiply-add) column by column in order, so the results are the portable loop's bit for
    /// bit. A column whose weight is 0 for a head adds ±0 to that head, which changes no sum (it starts at +0), as
    /// skipping it does, as long as values are finite.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F; `y.len()` must be `G · hd` with `hd` a multiple of 32, `p` `G × t`, and the
    /// value runs `t` columns of `hd` in all.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn weighted_values_blocked<const G: usize>(&self, p: &[f32], t: usize, y: &mut [f32]) {
        use std::arch::x86_64::*;
        let hd = self.hd;
        debug_assert!(y.len() == G * hd && p.len() == G * t && hd.is_multiple_of(32));
        let prefix_columns = self.values[0].len() / hd;
        debug_assert_eq!(prefix_columns + self.values[1].len() / hd, t);
        for d0 in (0..hd).step_by(32) {
            let mut acc = [[_mm512_setzero_ps(); 2]; G];
            for c in 0..t {
                let value = if c < prefix_columns {
                    self.values[0].as_ptr().add(c * hd + d0)
                } else {
                    self.values[1].as_ptr().add((c - prefix_columns) * hd + d0)
                };
                let (x0, x1) = (_mm512_loadu_ps(value), _mm512_loadu_ps(value.add(16)));
                for (gi, a) in acc.iter_mut().enumerate() {
                    let w = _mm512_set1_ps(*p.get_unchecked(gi * t + c));
                    a[0] = _mm512_add_ps(a[0], _mm512_mul_ps(w, x0));
                    a[1] = _mm512_add_ps(a[1], _mm512_mul_ps(w, x1));
                }
            }
            for (gi, a) in acc.iter().enumerate() {
                let out = y.as_mut_ptr().add(gi * hd + d0);
                _mm512_storeu_ps(out, a[0]);
                _mm512_storeu_ps(out.add(16), a[1]);
            }
        }
    }

    #[inline(always)]
    fn weighted_values_portable(&self, p: &[f32], t: usize, y: &mut [f32]) {
        let hd = self.hd;
        let g = y.len() / hd;
        y.fill(0.0);
        let columns = self.values[0].chunks_exact(hd).chain(self.values[1].chunks_exact(hd));
        for (c, value) in columns.enumerate() {
            for gi in 0..g {
                let w = p[gi * t + c];
                if w != 0.0 {
                    for (o, &x) in y[gi * hd..(gi + 1) * hd].iter_mut().zip(value) {
                        *o += w * x;
                    }
                }
            }
        }
    }
}

/// Scores of `g ≤ 8` queries, given by lane (`by_lane`: `hd` vectors of 8 query heads), against keys stored as
/// rows of `hd` (`keys`, columns `at..` of `out`, row stride `t`): eight columns are summed at once, each by fused
/// multiply-adds from 0 in lane order, then scaled.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `by_lane.len()` is `8·hd`, `g ≤ 8`, and `out` holds `g` rows of `t` with
/// columns `at..at + keys.len() / hd` inside them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn scores_by_column(by_lane: &[f32], g: usize, keys: &[f32], hd: usize, scale: f32, out: &mut [f32], at: usize, t: usize) {
    use std::arch::x86_64::*;
    let n = keys.len() / hd;
    debug_assert!(g <= 8 && by_lane.len() == 8 * hd && at + n <= t && out.len() >= g * t);
    #[inline(always)]
    unsafe fn columns<const C: usize>(by_lane: &[f32], keys: &[f32], hd: usize, c: usize, scale: __m256, g: usize, out: &mut [f32], at: usize, t: usize) {
        let mut acc = [_mm256_setzero_ps(); C];
        for d in 0..hd {
            let q = _mm256_loadu_ps(by_lane.as_ptr().add(d * 8));
            for (j, a) in acc.iter_mut().enumerate() {
                *a = _mm256_fmadd_ps(q, _mm256_set1_ps(*keys.get_unchecked((c + j) * hd + d)), *a);
            }
        }
        let mut lanes = [0f32; 8];
        for (j, a) in acc.iter().enumerate() {
            _mm256_storeu_ps(lanes.as_mut_ptr(), _mm256_mul_ps(*a, scale));
            for (gi, &x) in lanes[..g].iter().enumerate() {
                *out.get_unchecked_mut(gi * t + at + c + j) = x;
            }
        }
    }
    let scale = _mm256_set1_ps(scale);
    let mut c = 0;
    while c + 8 <= n {
        columns::<8>(by_lane, keys, hd, c, scale, g, out, at, t);
        c += 8;
    }
    while c < n {
        columns::<1>(by_lane, keys, hd, c, scale, g, out, at, t);
        c += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, D};

    /// The kernel against candle's matmul → softmax → matmul on the same operands, with padding masked, and a
    /// shared prefix in front of the rows' own columns against the same columns copied into each row, bit for bit.
    /// Shapes of the tiny test models and of Qwen2.5-0.5B / 1.5B heads (7 and 6 query heads per KV head of 64 and
    /// 128), with runs long enough for every block of the kernels and their ragged ends.
    #[test]
    fn matches_the_candle_path_with_and_without_a_mask() -> Result<()> {
        for (b, nh, nkv, hd, t, p) in [(3, 6, 2, 40, 7, 5), (2, 14, 2, 64, 29, 37), (2, 12, 2, 128, 21, 53), (1, 4, 1, 16, 3, 0)] {
            check_against_candle(b, nh, nkv, hd, t, p)?;
        }
        Ok(())
    }

    fn check_against_candle(b: usize, nh: usize, nkv: usize, hd: usize, t: usize, p: usize) -> Result<()> {
        let dev = Device::Cpu;
        let cap = t + 2;
        let shape = format!("b {b} nh {nh} nkv {nkv} hd {hd} own {t} prefix {p}");
        let q = Tensor::randn(0f32, 1.0, (b, nh, 1, hd), &dev)?;
        // A cache buffer wider than the filled columns, as `KvCache::append` hands it out.
        let kbuf = Tensor::randn(0f32, 1.0, (b, nkv, cap, hd), &dev)?;
        let vbuf = Tensor::randn(0f32, 1.0, (b, nkv, cap, hd), &dev)?;
        let (k, v) = (kbuf.narrow(2, 0, t)?, vbuf.narrow(2, 0, t)?);
        let (sk, sv) = (Tensor::randn(0f32, 1.0, (1, nkv, p, hd), &dev)?, Tensor::randn(0f32, 1.0, (1, nkv, p, hd), &dev)?);
        let wide = |s: &Tensor, own: &Tensor| -> Result<Tensor> { Ok(Tensor::cat(&[&s.broadcast_as((b, nkv, p, hd))?, own], 2)?.contiguous()?) };
        let (kw, vw) = (wide(&sk, &k)?, wide(&sv, &v)?);
        let w = p + t;
        let mut m = vec![0f32; b * w];
        m[p] = f32::NEG_INFINITY; // row 0: a padding column (the first of its own)
        if b > 1 && t > 3 {
            m[w + p + 2] = f32::NEG_INFINITY;
            m[w + p + 3] = f32::NEG_INFINITY;
        }
        let mask = Tensor::from_vec(m, (b, 1, w), &dev)?;
        let scale = 1.0 / (hd as f64).sqrt();
        let bits = |t: &Tensor| -> Result<Vec<u32>> { Ok(t.flatten_all()?.to_vec1::<f32>()?.into_iter().map(f32::to_bits).collect()) };
        let shared = (p > 0).then_some((&sk, &sv));
        for (mask, round) in [(None, false), (Some(&mask), false), (Some(&mask), true)] {
            let whole = decode_step(&q, None, &kw, &vw, mask, scale as f32, round)?.expect("a CPU cache layout");
            let g = nh / nkv;
            let qg = q.reshape((b, nkv, g, hd))?;
            let mut scores = (qg.matmul(&kw.t()?)? * scale)?;
            if let Some(m) = mask {
                scores = scores.broadcast_add(&m.unsqueeze(1)?)?;
            }
            let mut pr = candle_nn::ops::softmax_last_dim(&scores)?;
            if round {
                pr = pr.to_dtype(DType::F16)?.to_dtype(DType::F32)?;
            }
            let want = pr.matmul(&vw)?.reshape((b, 1, nh * hd))?;
            let diff = (&whole - want)?.abs()?.flatten_all()?.max(D::Minus1)?.to_scalar::<f32>()?;
            // A weight a float-order away from an f16 rounding boundary may round the other way: one f16 step
            // (2⁻¹¹ relative) of a weight times a value of a few units.
            let tolerance = if round { 4e-3 } else { 1e-5 };
            assert!(diff < tolerance, "{shape}, mask {} round {round}: max difference {diff}", mask.is_some());
            let over_shared = decode_step(&q, shared, &k, &v, mask, scale as f32, round)?.expect("a CPU cache layout");
            let whole = bits(&whole)?;
            assert!(bits(&over_shared)? == whole, "{shape}, round {round}: the shared prefix's values are not the whole prompt's");
        }
        Ok(())
    }

    /// The register-blocked weighted sum is the portable loop's, bit for bit: every query-head count a model
    /// uses, weights of exactly 0 (masked columns) among them, columns split between the shared prefix and a row's
    /// own run at every point.
    #[test]
    fn blocked_weighted_values_are_the_portable_loop_bit_for_bit() {
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let hd = 64;
        let t = 37;
        let values: Vec<f32> = (0..t * hd).map(|i| ((i as f32) * 0.7311).sin() * 3.0).collect();
        for g in 1..=9 {
            let mut p: Vec<f32> = (0..g * t).map(|i| ((i as f32) * 1.37).cos().abs() / t as f32).collect();
            p.iter_mut().step_by(5).for_each(|w| *w = 0.0);
            for split in [0, 1, 20, t] {
                let head = Head {
                    queries: &[],
                    keys: [&[], &[]],
                    values: [&values[..split * hd], &values[split * hd..]],
                    mask: None,
                    hd,
                    scale: 1.0,
                    round_p: false,
                };
                let (mut want, mut got) = (vec![0f32; g * hd], vec![7f32; g * hd]);
                head.weighted_values_portable(&p, t, &mut want);
                head.weighted_values(&p, t, &mut got);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "g {g}, prefix columns {split}");
            }
        }
    }
}
