//! Attention of one new token per row (a decode step) on the CPU, read straight from the KV cache.
//!
//! Through candle a decode step's attention is two batched matmuls of `(g, hd) × (hd, t)` per row and KV head, a
//! softmax and four reshapes, each a pass over the thread pool with its own copies; with 16 rows it took 31% of a
//! batched decode step of Qwen2.5-1.5B. And a shared prompt prefix would have to be copied in front of every
//! row's keys at every step. Here one work unit is one row's KV head: its scores and weighted values are two small
//! matrix products per run of columns (the shared prefix's, then the row's own), read where the cache holds them.
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
    /// Scores, softmax and weighted values as two small matrix products per run of columns (the shared prefix,
    /// then the row's own), through the `gemm` crate candle's own matmuls use. A dot product per (head, column)
    /// was fine for a 100-token prefix but, at the 600+ columns of a few-shot translation prompt, took 22% of a
    /// translation's time against 14% for a layer's largest weight.
    fn attend(&self, y: &mut [f32]) {
        let hd = self.hd;
        let g = y.len() / hd;
        let runs = [(self.keys[0], self.values[0]), (self.keys[1], self.values[1])];
        let t = (self.keys[0].len() + self.keys[1].len()) / hd;
        let mut p = vec![0f32; g * t];
        let mut at = 0;
        for (keys, _) in runs {
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
        self.weighted_values_portable(p, t, y)
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

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, D};

    /// The kernel against candle's matmul → softmax → matmul on the same operands, with padding masked.
    #[test]
    fn matches_the_candle_path_with_and_without_a_mask() -> Result<()> {
        let dev = Device::Cpu;
        let (b, nh, nkv, hd, cap, t) = (3, 6, 2, 40, 9, 7);
        let q = Tensor::randn(0f32, 1.0, (b, nh, 1, hd), &dev)?;
        // A cache buffer wider than the filled columns, as `KvCache::append` hands it out.
        let kbuf = Tensor::randn(0f32, 1.0, (b, nkv, cap, hd), &dev)?;
        let vbuf = Tensor::randn(0f32, 1.0, (b, nkv, cap, hd), &dev)?;
        let (k, v) = (kbuf.narrow(2, 0, t)?, vbuf.narrow(2, 0, t)?);
        let mut m = vec![0f32; b * t];
        m[0] = f32::NEG_INFINITY; // row 0: a padding column
        m[t + 2] = f32::NEG_INFINITY;
        m[t + 3] = f32::NEG_INFINITY;
        let mask = Tensor::from_vec(m, (b, 1, t), &dev)?;
        let scale = 1.0 / (hd as f64).sqrt();
        for (mask, round) in [(None, false), (Some(&mask), false), (Some(&mask), true)] {
            let got = decode_step(&q, None, &k, &v, mask, scale as f32, round)?.expect("a CPU cache layout");
            let g = nh / nkv;
            let qg = q.reshape((b, nkv, g, hd))?;
            let mut scores = (qg.matmul(&k.t()?)? * scale)?;
            if let Some(m) = mask {
                scores = scores.broadcast_add(&m.unsqueeze(1)?)?;
            }
            let mut p = candle_nn::ops::softmax_last_dim(&scores)?;
            if round {
                p = p.to_dtype(DType::F16)?.to_dtype(DType::F32)?;
            }
            let want = p.matmul(&v.contiguous()?)?.reshape((b, 1, nh * hd))?;
            let diff = (got - want)?.abs()?.flatten_all()?.max(D::Minus1)?.to_scalar::<f32>()?;
            // A weight a float-order away from an f16 rounding boundary may round the other way: one f16 step
            // (2⁻¹¹ relative) of a weight times a value of a few units.
            let tolerance = if round { 4e-3 } else { 1e-5 };
            assert!(diff < tolerance, "mask {} round {round}: max difference {diff}", mask.is_some());
        }
        // A shared prefix of 5 columns in front of every row's own: the same as those columns copied into each row.
        let (sk, sv) = (Tensor::randn(0f32, 1.0, (1, nkv, 5, hd), &dev)?, Tensor::randn(0f32, 1.0, (1, nkv, 5, hd), &dev)?);
        let got = decode_step(&q, Some((&sk, &sv)), &k, &v, None, scale as f32, false)?.expect("a CPU cache layout");
        let wide = |s: &Tensor, own: &Tensor| Tensor::cat(&[&s.broadcast_as((b, nkv, 5, hd))?, own], 2);
        let (kw, vw) = (wide(&sk, &k)?, wide(&sv, &v)?);
        let want = decode_step(&q, None, &kw.contiguous()?, &vw.contiguous()?, None, scale as f32, false)?.expect("contiguous");
        let diff = (got - want)?.abs()?.flatten_all()?.max(D::Minus1)?.to_scalar::<f32>()?;
        assert!(diff < 1e-6, "shared prefix: max difference {diff}");
        Ok(())
    }
}
