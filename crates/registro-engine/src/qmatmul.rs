//! Q4_K and Q6_K matrix products on AVX-512 VNNI CPUs, for every batch size (decode and prefill).
//!
//! candle 0.11.1 repacks Q4_K weights for decoding into tiles with f32 scales (6 bits per weight instead of
//! 4.5) and runs Q6_K through a 256-bit dot product per row; decoding is bound by how many weight bytes cross
//! the memory bus per token, so Qwen2.5-1.5B decoded at 0.87× llama.cpp's rate. Here the tiles keep the
//! file's own integer scales (4.6 and 6.6 bits per weight), so a token reads about as many bytes as the GGUF
//! file holds, and the integer arithmetic is llama.cpp's: activations are quantized to Q8_K exactly as
//! `quantize_row_q8_K_ref` does, sub-block sums are scaled in integers, and the only float work is per
//! 256-value super-block — the same reduction order llama.cpp uses, up to float summation order.
//!
//! Layout: the rows of a weight are grouped in tiles of 16, and one tile covers one 256-value super-block of
//! those 16 rows, so one `vpdpbusd` multiplies 4 k-values of 16 rows against a broadcast of 4 activations.
//! The tiles of a row group are contiguous: a thread streams one row group from memory front to back.
//!
//! Work is spread over candle's own thread pool (the one its kernels use), so the two never compete for cores.
use std::sync::OnceLock;

use candle_core::quantized::{GgmlDType, QTensor};

pub(crate) const QK_K: usize = 256;
const TILE: usize = 16;
/// Activation rows processed together against one loaded tile (reuse of the unpacked weights).
const MT: usize = 8;

/// One super-block of activations quantized to 8 bits, as ggml's `block_q8_K`.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct BlockQ8K {
    d: f32,
    qs: [i8; QK_K],
    bsums: [i16; QK_K / 16],
}

impl BlockQ8K {
    const ZERO: Self = Self { d: 0.0, qs: [0; QK_K], bsums: [0; QK_K / 16] };
}

/// ggml's `quantize_row_q8_K_ref`: scale so the value of largest magnitude maps to -127, round half to even.
/// Written as plain loops the compiler vectorizes: it runs on ~400k values per decoded token of a 1.5B model,
/// and a rounding call per value was 2 ms of every token.
pub(crate) fn quantize_q8k(x: &[f32], out: &mut [BlockQ8K]) {
    for (xb, y) in x.chunks_exact(QK_K).zip(out.iter_mut()) {
        let amax = xb.iter().fold(0f32, |m, v| m.max(v.abs()));
        if amax == 0.0 || amax.is_nan() {
            *y = BlockQ8K::ZERO;
            continue;
        }
        // ggml keeps the first value of largest magnitude, with its sign.
        let max = *xb.iter().find(|v| v.abs() == amax).unwrap_or(&amax);
        let iscale = -127.0 / max;
        for (q, &v) in y.qs.iter_mut().zip(xb) {
            // ggml's nearest_int: adding 1.5 × 2^23 leaves the rounded integer in the low mantissa bits.
            let r = ((iscale * v + 12582912.0).to_bits() & 0x007f_ffff) as i32 - 0x0040_0000;
            *q = r.min(127) as i8;
        }
        for (j, s) in y.bsums.iter_mut().enumerate() {
            *s = y.qs[j * 16..j * 16 + 16].iter().map(|&q| q as i16).sum();
        }
        y.d = 1.0 / iscale;
    }
}

pub(crate) const QK8_0: usize = 32;

/// 32 activations quantized to 8 bits for Q8_0 / Q5_0 weights, as ggml's `block_q8_0` (whose scale is f16;
/// `d` holds that f16 value) plus the sum of the quants, which takes the weights' offsets back out.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct BlockQ8_0 {
    d: f32,
    sum: i32,
    qs: [i8; QK8_0],
}

impl BlockQ8_0 {
    const ZERO: Self = Self { d: 0.0, sum: 0, qs: [0; QK8_0] };
}

/// ggml's x86 `quantize_row_q8_0`: d = max|x| / 127 kept as f16, quants rounded half to even from x · 127/max|x|.
pub(crate) fn quantize_q8_0(x: &[f32], out: &mut [BlockQ8_0]) {
    for (xb, y) in x.chunks_exact(QK8_0).zip(out.iter_mut()) {
        let amax = xb.iter().fold(0f32, |m, v| m.max(v.abs()));
        let id = if amax != 0.0 { 127.0 / amax } else { 0.0 };
        for (q, &v) in y.qs.iter_mut().zip(xb) {
            *q = ((v * id + 12582912.0).to_bits() as i32 & 0x007f_ffff).wrapping_sub(0x0040_0000) as i8;
        }
        y.sum = y.qs.iter().map(|&q| q as i32).sum();
        y.d = half::f16::from_f32(amax / 127.0).to_f32();
    }
}

/// 16 rows × 32 values of a Q8_0 weight, stored offset by +128 (unsigned, as `vpdpbusd` wants):
/// [4-value group (8)][row (16)][4 bytes].
#[derive(Clone, Copy)]
#[repr(C)]
struct Q8Tile {
    qs: [u8; QK8_0 * TILE],
    d: [u16; TILE],
}

/// 16 rows × 32 values of a Q5_0 weight, stored unsigned (q = v + 16, 0..31). `lo[p]` (p < 4) holds the low
/// nibbles of 4-value groups p (low) and p + 4 (high), [row (16)][4 bytes]; bit g of byte (row, t) of `hi` is
/// the fifth bit of group g's value t.
#[derive(Clone, Copy)]
#[repr(C)]
struct Q5Tile {
    lo: [u8; 4 * 64],
    hi: [u8; 64],
    d: [u16; TILE],
}

/// 16 rows × 256 values of a Q4_K weight. `qs`: [8-value group (32)][row (16)][4 bytes], byte j holding
/// values 8g+j (low nibble) and 8g+j+4 (high nibble). `mins` is laid out in sub-block pairs
/// [pair (4)][row (16)][2] so one `vpdpwssd` applies two sub-blocks' minimums.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Q4kTile {
    qs: [u8; QK_K / 8 * TILE * 4],
    scales: [u8; 8 * TILE],
    mins: [u8; 8 * TILE],
    d: [u16; TILE],
    dmin: [u16; TILE],
}

/// 16 rows × 256 values of a Q6_K weight, values stored unsigned (v + 32, 0..63). Per 16-value sub-block s:
/// `ql[s]` holds two 64-byte vectors of low nibbles (values 16s+t | 16s+4+t, then 16s+8+t | 16s+12+t for
/// byte t of each row) and `qh[s]` one vector of the four values' top two bits.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Q6kTile {
    ql: [u8; 16 * 128],
    qh: [u8; 16 * 64],
    scales: [i8; 16 * TILE],
    d: [u16; TILE],
}

enum Tiles {
    Q4k(Vec<Q4kTile>),
    Q6k(Vec<Q6kTile>),
    Q8_0(Vec<Q8Tile>),
    Q5_0(Vec<Q5Tile>),
}

impl Tiles {
    /// Values per block along k (the activations' block size).
    fn block(&self) -> usize {
        match self {
            Tiles::Q4k(_) | Tiles::Q6k(_) => QK_K,
            Tiles::Q8_0(_) | Tiles::Q5_0(_) => QK8_0,
        }
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        match self {
            Tiles::Q4k(v) => std::mem::size_of_val(v.as_slice()),
            Tiles::Q6k(v) => std::mem::size_of_val(v.as_slice()),
            Tiles::Q8_0(v) => std::mem::size_of_val(v.as_slice()),
            Tiles::Q5_0(v) => std::mem::size_of_val(v.as_slice()),
        }
    }
}

/// A weight `(n, k)` repacked for the kernels below.
pub(crate) struct PackedWeight {
    tiles: Tiles,
    pub n: usize,
    pub k: usize,
}

/// Whether this CPU runs the kernels (AVX-512 with VNNI); `REGISTRO_NATIVE_QMATMUL=0` turns them off so
/// candle's own kernels can be compared.
pub(crate) fn available() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        if std::env::var("REGISTRO_NATIVE_QMATMUL").is_ok_and(|v| v == "0") {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

// ggml's 6-bit scale/min unpacking for Q4_K super-blocks.
fn scale_min_k4(j: usize, s: &[u8]) -> (u8, u8) {
    if j < 4 {
        (s[j] & 63, s[j + 4] & 63)
    } else {
        ((s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4), (s[j + 4] >> 4) | ((s[j] >> 6) << 4))
    }
}

const Q4K_BYTES: usize = 144;
const Q6K_BYTES: usize = 210;
const Q8_0_BYTES: usize = 34;
const Q5_0_BYTES: usize = 22;

impl PackedWeight {
    /// Repacks a CPU Q4_K, Q6_K, Q8_0 or Q5_0 weight whose shape suits the tiles; None for anything else.
    pub(crate) fn new(q: &QTensor) -> Option<Self> {
        if !available() || !q.device().is_cpu() {
            return None;
        }
        let (n, k) = q.shape().dims2().ok()?;
        let block = match q.dtype() {
            GgmlDType::Q4K | GgmlDType::Q6K => QK_K,
            GgmlDType::Q8_0 | GgmlDType::Q5_0 => QK8_0,
            _ => return None,
        };
        if n % TILE != 0 || k % block != 0 || k == 0 {
            return None;
        }
        let data = q.data().ok()?;
        let kb = k / block;
        let tiles = match q.dtype() {
            GgmlDType::Q4K if data.len() == n * kb * Q4K_BYTES => Tiles::Q4k(pack_q4k(&data, n, kb)),
            GgmlDType::Q6K if data.len() == n * kb * Q6K_BYTES => Tiles::Q6k(pack_q6k(&data, n, kb)),
            GgmlDType::Q8_0 if data.len() == n * kb * Q8_0_BYTES => Tiles::Q8_0(pack_q8_0(&data, n, kb)),
            GgmlDType::Q5_0 if data.len() == n * kb * Q5_0_BYTES => Tiles::Q5_0(pack_q5_0(&data, n, kb)),
            _ => return None,
        };
        Some(Self { tiles, n, k })
    }
}

/// `REGISTRO_HUGE_PAGES=0` keeps the weights on 4 KiB pages (for comparisons).
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
fn huge_pages() -> bool {
    std::env::var("REGISTRO_HUGE_PAGES").map_or(true, |v| v != "0")
}

/// A vector of `len` copies of `zero` whose memory the kernel is asked to back with 2 MiB pages: decoding
/// streams every weight once per token, and with 4 KiB pages that is a TLB miss every 4 KiB. Measured on
/// Qwen2.5-1.5B: 16.9-18.0 tok/s against 15.7-16.7 on small pages, same load time.
fn tile_vec<T: Copy>(zero: T, len: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + len * std::mem::size_of::<T>();
        let aligned = start.next_multiple_of(HUGE);
        if huge_pages() && end > aligned + HUGE {
            // SAFETY: advice on pages of our own untouched allocation; failure only means small pages.
            unsafe { libc::madvise(aligned as *mut libc::c_void, (end - aligned) / HUGE * HUGE, libc::MADV_HUGEPAGE) };
        }
    }
    v.resize(len, zero);
    v
}

/// Fills every tile with `f(index, tile)` on the thread pool (packing a 1.5B model is ~1 GB of shuffling).
fn fill_tiles<T: Send>(out: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    let at = out.as_mut_ptr() as usize;
    crate::pool::for_each_chunk(out.len(), |range| {
        for i in range {
            // SAFETY: the pool hands out disjoint index ranges of `out`, which outlives the call.
            f(i, unsafe { &mut *(at as *mut T).add(i) });
        }
    });
}

fn pack_q4k(data: &[u8], n: usize, kb: usize) -> Vec<Q4kTile> {
    let zero = Q4kTile { qs: [0; 1024 * 2], scales: [0; 128], mins: [0; 128], d: [0; 16], dmin: [0; 16] };
    let mut out = tile_vec(zero, n / TILE * kb);
    fill_tiles(&mut out, |i, tile| {
        let (nt, b) = (i / kb, i % kb);
        for r in 0..TILE {
            let blk = &data[((nt * TILE + r) * kb + b) * Q4K_BYTES..][..Q4K_BYTES];
            tile.d[r] = u16::from_le_bytes([blk[0], blk[1]]);
            tile.dmin[r] = u16::from_le_bytes([blk[2], blk[3]]);
            let (scales, qs) = (&blk[4..16], &blk[16..144]);
            for s in 0..8 {
                let (sc, mn) = scale_min_k4(s, scales);
                tile.scales[s * TILE + r] = sc;
                tile.mins[(s / 2) * 32 + r * 2 + s % 2] = mn;
            }
            // ggml: 32-byte chunk c holds values [64c, 64c+32) in its low nibbles, [64c+32, 64c+64) in its high.
            let mut vals = [0u8; QK_K];
            for c in 0..4 {
                for j in 0..32 {
                    vals[c * 64 + j] = qs[c * 32 + j] & 0x0F;
                    vals[c * 64 + 32 + j] = qs[c * 32 + j] >> 4;
                }
            }
            for g in 0..QK_K / 8 {
                for j in 0..4 {
                    tile.qs[(g * TILE + r) * 4 + j] = vals[g * 8 + j] | (vals[g * 8 + j + 4] << 4);
                }
            }
        }
    });
    out
}

fn pack_q6k(data: &[u8], n: usize, kb: usize) -> Vec<Q6kTile> {
    let zero = Q6kTile { ql: [0; 2048], qh: [0; 1024], scales: [0; 256], d: [0; 16] };
    let mut out = tile_vec(zero, n / TILE * kb);
    fill_tiles(&mut out, |i, tile| {
        let (nt, b) = (i / kb, i % kb);
        for r in 0..TILE {
            let blk = &data[((nt * TILE + r) * kb + b) * Q6K_BYTES..][..Q6K_BYTES];
            let (ql, qh, scales) = (&blk[..128], &blk[128..192], &blk[192..208]);
            tile.d[r] = u16::from_le_bytes([blk[208], blk[209]]);
            for s in 0..16 {
                tile.scales[s * TILE + r] = scales[s] as i8;
            }
            // ggml's dequantize_row_q6_K order: two 128-value halves, each from 64 ql and 32 qh bytes.
            let mut vals = [0u8; QK_K];
            for h in 0..2 {
                let (ql, qh) = (&ql[h * 64..], &qh[h * 32..]);
                for j in 0..32 {
                    vals[h * 128 + j] = (ql[j] & 0x0F) | ((qh[j] & 3) << 4);
                    vals[h * 128 + j + 32] = (ql[j + 32] & 0x0F) | (((qh[j] >> 2) & 3) << 4);
                    vals[h * 128 + j + 64] = (ql[j] >> 4) | (((qh[j] >> 4) & 3) << 4);
                    vals[h * 128 + j + 96] = (ql[j + 32] >> 4) | (((qh[j] >> 6) & 3) << 4);
                }
            }
            for s in 0..16 {
                for t in 0..4 {
                    let v = |g: usize| vals[s * 16 + g * 4 + t];
                    let at = r * 4 + t;
                    tile.ql[s * 128 + at] = (v(0) & 0x0F) | ((v(1) & 0x0F) << 4);
                    tile.ql[s * 128 + 64 + at] = (v(2) & 0x0F) | ((v(3) & 0x0F) << 4);
                    tile.qh[s * 64 + at] = (v(0) >> 4) | ((v(1) >> 4) << 2) | ((v(2) >> 4) << 4) | ((v(3) >> 4) << 6);
                }
            }
        }
    });
    out
}

fn pack_q8_0(data: &[u8], n: usize, kb: usize) -> Vec<Q8Tile> {
    let mut out = tile_vec(Q8Tile { qs: [0; 512], d: [0; 16] }, n / TILE * kb);
    fill_tiles(&mut out, |i, tile| {
        let (nt, b) = (i / kb, i % kb);
        for r in 0..TILE {
            let blk = &data[((nt * TILE + r) * kb + b) * Q8_0_BYTES..][..Q8_0_BYTES];
            tile.d[r] = u16::from_le_bytes([blk[0], blk[1]]);
            for (j, &q) in blk[2..].iter().enumerate() {
                tile.qs[((j / 4) * TILE + r) * 4 + j % 4] = (q as i8 as i16 + 128) as u8;
            }
        }
    });
    out
}

fn pack_q5_0(data: &[u8], n: usize, kb: usize) -> Vec<Q5Tile> {
    let mut out = tile_vec(Q5Tile { lo: [0; 256], hi: [0; 64], d: [0; 16] }, n / TILE * kb);
    fill_tiles(&mut out, |i, tile| {
        let (nt, b) = (i / kb, i % kb);
        for r in 0..TILE {
            let blk = &data[((nt * TILE + r) * kb + b) * Q5_0_BYTES..][..Q5_0_BYTES];
            tile.d[r] = u16::from_le_bytes([blk[0], blk[1]]);
            let qh = u32::from_le_bytes([blk[2], blk[3], blk[4], blk[5]]);
            // ggml: byte j holds values j (low nibble) and j + 16 (high); bit j of qh is value j's fifth bit.
            let mut vals = [0u8; QK8_0];
            for j in 0..16 {
                vals[j] = (blk[6 + j] & 0x0F) | ((((qh >> j) & 1) as u8) << 4);
                vals[j + 16] = (blk[6 + j] >> 4) | ((((qh >> (j + 16)) & 1) as u8) << 4);
            }
            for t in 0..4 {
                let at = r * 4 + t;
                for p in 0..4 {
                    tile.lo[p * 64 + at] = (vals[p * 4 + t] & 0x0F) | ((vals[(p + 4) * 4 + t] & 0x0F) << 4);
                }
                tile.hi[at] = (0..8).map(|g| (vals[g * 4 + t] >> 4) << g).sum();
            }
        }
    });
    out
}

/// Computes `x · wᵀ` for every weight in `ws` (all with the same `k`), `x` being `m` rows of `k` floats; one
/// activation quantization and one pass of the thread pool serve them all (Q/K/V, gate/up). Returns one
/// row-major `(m, n)` buffer per weight.
pub(crate) fn matmul(ws: &[&PackedWeight], x: &[f32], m: usize) -> Vec<Vec<f32>> {
    let k = ws[0].k;
    assert!(ws.iter().all(|w| w.k == k) && x.len() == m * k, "qmatmul: shapes disagree");
    let acts_k = ws.iter().any(|w| w.tiles.block() == QK_K).then(|| quantize_rows(x, m, k, QK_K, BlockQ8K::ZERO, quantize_q8k));
    let acts_32 =
        ws.iter().any(|w| w.tiles.block() == QK8_0).then(|| quantize_rows(x, m, k, QK8_0, BlockQ8_0::ZERO, quantize_q8_0));
    let mut outs: Vec<Vec<f32>> = ws.iter().map(|w| vec![0f32; m * w.n]).collect();
    // Work units: (weight, 16-row group); each unit handles all m rows so its weights are read once.
    let mut starts = Vec::with_capacity(ws.len());
    let mut total = 0;
    for w in ws {
        starts.push(total);
        total += w.n / TILE;
    }
    let dsts: Vec<usize> = outs.iter_mut().map(|o| o.as_mut_ptr() as usize).collect();
    let (acts_k, acts_32) = (acts_k.as_deref().unwrap_or(&[]), acts_32.as_deref().unwrap_or(&[]));
    crate::pool::for_each_chunk(total, |units| {
        for unit in units {
            let wi = starts.iter().rposition(|&s| unit >= s).unwrap_or(0);
            let (w, nt) = (ws[wi], unit - starts[wi]);
            let kb = k / w.tiles.block();
            let mut m0 = 0;
            while m0 < m {
                let mt = (m - m0).min(MT);
                let mut acc = [[0f32; TILE]; MT];
                let rows = m0 * kb..(m0 + mt) * kb;
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `available()` checked the CPU features when the weight was packed.
                unsafe {
                    match w.tiles.block() {
                        QK_K => x86::tile_row(&w.tiles, nt, kb, &acts_k[rows], &[], mt, &mut acc),
                        _ => x86::tile_row(&w.tiles, nt, kb, &[], &acts_32[rows], mt, &mut acc),
                    }
                };
                for (i, row) in acc.iter().take(mt).enumerate() {
                    // SAFETY: unit (wi, nt) owns columns nt*16..nt*16+16 of every row of output wi.
                    unsafe {
                        let dst = (dsts[wi] as *mut f32).add((m0 + i) * w.n + nt * TILE);
                        std::ptr::copy_nonoverlapping(row.as_ptr(), dst, TILE);
                    }
                }
                m0 += mt;
            }
        }
    });
    outs
}

/// Below this many activations a quantization is done on the calling thread: a decode step's 16 rows of 1,536
/// take ~25 µs, about what handing them to the pool and waiting for it costs.
const PARALLEL_QUANTIZE: usize = 1 << 15;

/// Quantizes `m` rows of `k` activations, rows in parallel when there are enough of them.
fn quantize_rows<B: Copy + Send + Sync>(x: &[f32], m: usize, k: usize, block: usize, zero: B, f: fn(&[f32], &mut [B])) -> Vec<B> {
    let per_row = k / block;
    let mut acts = vec![zero; m * per_row];
    if m * k < PARALLEL_QUANTIZE {
        for (row, out) in x.chunks_exact(k).zip(acts.chunks_exact_mut(per_row)) {
            f(row, out);
        }
        return acts;
    }
    let at = acts.as_mut_ptr() as usize;
    crate::pool::for_each_chunk(m, |rows| {
        for r in rows {
            // SAFETY: each row r writes only its own blocks.
            let out = unsafe { std::slice::from_raw_parts_mut((at as *mut B).add(r * per_row), per_row) };
            f(&x[r * k..(r + 1) * k], out);
        }
    });
    acts
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// Dot products of 16 weight rows (row group `nt`) with `mt` ≤ 8 activation rows.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F/BW/VNNI. `tiles` must hold at least `(nt + 1) * kb` tiles (slicing checks
    /// it), and `acts_k`/`acts_32` (whichever the format uses) `mt * kb` blocks, `mt` ≤ `MT`: the kernels index
    /// activation row `i` at `i * kb + b` without bounds checks beyond the slice accesses.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn tile_row(
        tiles: &Tiles,
        nt: usize,
        kb: usize,
        acts_k: &[BlockQ8K],
        acts_32: &[BlockQ8_0],
        mt: usize,
        acc: &mut [[f32; TILE]; MT],
    ) {
        macro_rules! by_rows {
            ($kernel:ident, $tiles:expr, $acts:expr) => {{
                let t = &$tiles[nt * kb..(nt + 1) * kb];
                match mt {
                    1 => $kernel::<1>(t, $acts, kb, acc),
                    2 => $kernel::<2>(t, $acts, kb, acc),
                    3 => $kernel::<3>(t, $acts, kb, acc),
                    4 => $kernel::<4>(t, $acts, kb, acc),
                    5 => $kernel::<5>(t, $acts, kb, acc),
                    6 => $kernel::<6>(t, $acts, kb, acc),
                    7 => $kernel::<7>(t, $acts, kb, acc),
                    _ => $kernel::<8>(t, $acts, kb, acc),
                }
            }};
        }
        match tiles {
            Tiles::Q4k(t) => by_rows!(q4k, t, acts_k),
            Tiles::Q6k(t) => by_rows!(q6k, t, acts_k),
            Tiles::Q8_0(t) => by_rows!(q8_0, t, acts_32),
            Tiles::Q5_0(t) => by_rows!(q5_0, t, acts_32),
        }
    }

    /// Asks for the next tile (the next row group's, past the end of this one) while this one is computed: the
    /// hardware prefetcher alone kept the Q6_K output projection at 13-14 GB/s of the 32 this machine streams
    /// with two threads, one tile ahead 23 (two, four or eight ahead did no better).
    ///
    /// # Safety
    /// The CPU must support SSE (every x86_64 does). Prefetching is only a hint: an address past the end of the
    /// tiles is never dereferenced, which is why the pointer arithmetic uses `wrapping_add`.
    #[inline(always)]
    unsafe fn prefetch_ahead<T>(t: &T) {
        const AHEAD: usize = 1;
        let base = (t as *const T as *const i8).wrapping_add(AHEAD * std::mem::size_of::<T>());
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(off));
            off += 64;
        }
    }

    /// Four consecutive activation bytes broadcast to every 32-bit lane.
    ///
    /// # Safety
    /// AVX-512 F must be available, and `p..p + 4` must lie inside one activation block (callers index at most
    /// `qs[len - 4..]`); the read is unaligned on purpose.
    #[inline(always)]
    unsafe fn bcast4(p: *const i8) -> __m512i {
        _mm512_set1_epi32(std::ptr::read_unaligned(p as *const i32))
    }

    /// Weights in the Q4_K tile layout against Q8_K activations.
    ///
    /// # Safety
    /// AVX-512 F/BW/VNNI must be available (checked once by `available()` before any weight is packed for these
    /// kernels). `tiles` holds `kb` consecutive blocks of one row group and `acts` `R` rows of `kb` blocks each
    /// (`R` ≤ `MT`), so every offset used below stays inside the fixed-size arrays of one tile or block. Aligned
    /// loads (`_mm512_load_si512`) are used only on the `align(64)` tile types, on offsets that are multiples of 64.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn q4k<const R: usize>(tiles: &[Q4kTile], acts: &[BlockQ8K], kb: usize, out: &mut [[f32; TILE]; MT]) {
        let mask = _mm512_set1_epi8(0x0F);
        let mut acc = [_mm512_setzero_ps(); R];
        for (b, t) in tiles.iter().enumerate() {
            prefetch_ahead(t);
            let a: [&BlockQ8K; R] = std::array::from_fn(|i| &acts[i * kb + b]);
            let mut iacc = [_mm512_setzero_si512(); R];
            for s in 0..8 {
                // Two accumulators per row shorten the dpbusd dependency chains where few rows give little
                // independent work (decoding); with more rows, one each keeps everything in registers.
                let mut lo_sum = [_mm512_setzero_si512(); R];
                let mut hi_sum = [_mm512_setzero_si512(); R];
                for g in 0..4 {
                    let w = _mm512_load_si512(t.qs.as_ptr().add((s * 4 + g) * 64) as *const _);
                    let lo = _mm512_and_si512(w, mask);
                    let hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), mask);
                    for i in 0..R {
                        let q = a[i].qs.as_ptr().add(s * 32 + g * 8);
                        lo_sum[i] = _mm512_dpbusd_epi32(lo_sum[i], lo, bcast4(q));
                        if R <= 4 {
                            hi_sum[i] = _mm512_dpbusd_epi32(hi_sum[i], hi, bcast4(q.add(4)));
                        } else {
                            lo_sum[i] = _mm512_dpbusd_epi32(lo_sum[i], hi, bcast4(q.add(4)));
                        }
                    }
                }
                let sc = _mm512_cvtepu8_epi32(_mm_loadu_si128(t.scales.as_ptr().add(s * TILE) as *const _));
                for i in 0..R {
                    iacc[i] = _mm512_add_epi32(iacc[i], _mm512_mullo_epi32(if R <= 4 { _mm512_add_epi32(lo_sum[i], hi_sum[i]) } else { lo_sum[i] }, sc));
                }
            }
            let mut macc = [_mm512_setzero_si512(); R];
            for p in 0..4 {
                let mins = _mm512_cvtepu8_epi16(_mm256_loadu_si256(t.mins.as_ptr().add(p * 32) as *const _));
                for i in 0..R {
                    let bs = &a[i].bsums;
                    let s0 = bs[4 * p] + bs[4 * p + 1];
                    let s1 = bs[4 * p + 2] + bs[4 * p + 3];
                    let pair = (s0 as u16 as u32) | ((s1 as u16 as u32) << 16);
                    macc[i] = _mm512_dpwssd_epi32(macc[i], mins, _mm512_set1_epi32(pair as i32));
                }
            }
            let d = _mm512_cvtph_ps(_mm256_loadu_si256(t.d.as_ptr() as *const _));
            let dmin = _mm512_cvtph_ps(_mm256_loadu_si256(t.dmin.as_ptr() as *const _));
            for i in 0..R {
                let ad = _mm512_set1_ps(a[i].d);
                acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(iacc[i]), _mm512_mul_ps(d, ad), acc[i]);
                acc[i] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(macc[i]), _mm512_mul_ps(dmin, ad), acc[i]);
            }
        }
        store_rows(&acc, out);
    }

    /// Weights in the Q6_K tile layout against Q8_K activations.
    ///
    /// # Safety
    /// AVX-512 F/BW/VNNI must be available (checked once by `available()` before any weight is packed for these
    /// kernels). `tiles` holds `kb` consecutive blocks of one row group and `acts` `R` rows of `kb` blocks each
    /// (`R` ≤ `MT`), so every offset used below stays inside the fixed-size arrays of one tile or block. Aligned
    /// loads (`_mm512_load_si512`) are used only on the `align(64)` tile types, on offsets that are multiples of 64.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn q6k<const R: usize>(tiles: &[Q6kTile], acts: &[BlockQ8K], kb: usize, out: &mut [[f32; TILE]; MT]) {
        let m4 = _mm512_set1_epi8(0x0F);
        let m_03 = _mm512_set1_epi8(0x03);
        let m_0c = _mm512_set1_epi8(0x0C);
        let m_30 = _mm512_set1_epi8(0x30);
        let mut acc = [_mm512_setzero_ps(); R];
        for (b, t) in tiles.iter().enumerate() {
            prefetch_ahead(t);
            let a: [&BlockQ8K; R] = std::array::from_fn(|i| &acts[i * kb + b]);
            let mut iacc = [_mm512_setzero_si512(); R];
            for s in 0..16 {
                let l0 = _mm512_load_si512(t.ql.as_ptr().add(s * 128) as *const _);
                let l1 = _mm512_load_si512(t.ql.as_ptr().add(s * 128 + 64) as *const _);
                let h = _mm512_load_si512(t.qh.as_ptr().add(s * 64) as *const _);
                let v0 = _mm512_or_si512(_mm512_and_si512(l0, m4), _mm512_slli_epi16(_mm512_and_si512(h, m_03), 4));
                let v1 = _mm512_or_si512(
                    _mm512_and_si512(_mm512_srli_epi16(l0, 4), m4),
                    _mm512_slli_epi16(_mm512_and_si512(h, m_0c), 2),
                );
                let v2 = _mm512_or_si512(_mm512_and_si512(l1, m4), _mm512_and_si512(h, m_30));
                let v3 = _mm512_or_si512(
                    _mm512_and_si512(_mm512_srli_epi16(l1, 4), m4),
                    _mm512_and_si512(_mm512_srli_epi16(h, 2), m_30),
                );
                let sc = _mm512_cvtepi8_epi32(_mm_loadu_si128(t.scales.as_ptr().add(s * TILE) as *const _));
                for i in 0..R {
                    let q = a[i].qs.as_ptr().add(s * 16);
                    let mut x = _mm512_dpbusd_epi32(_mm512_setzero_si512(), v0, bcast4(q));
                    x = _mm512_dpbusd_epi32(x, v1, bcast4(q.add(4)));
                    x = _mm512_dpbusd_epi32(x, v2, bcast4(q.add(8)));
                    x = _mm512_dpbusd_epi32(x, v3, bcast4(q.add(12)));
                    // Stored values are v + 32: take 32 × (sum of the sub-block's activations) back out.
                    x = _mm512_sub_epi32(x, _mm512_set1_epi32(32 * a[i].bsums[s] as i32));
                    iacc[i] = _mm512_add_epi32(iacc[i], _mm512_mullo_epi32(x, sc));
                }
            }
            let d = _mm512_cvtph_ps(_mm256_loadu_si256(t.d.as_ptr() as *const _));
            for i in 0..R {
                acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(iacc[i]), _mm512_mul_ps(d, _mm512_set1_ps(a[i].d)), acc[i]);
            }
        }
        store_rows(&acc, out);
    }

    /// Q8_0 weights (+128) against Q8_0 activations: one integer dot per 32-value block, scaled in f32 per
    /// block as ggml's `vec_dot_q8_0_q8_0` does.
    ///
    /// # Safety
    /// AVX-512 F/BW/VNNI must be available (checked once by `available()` before any weight is packed for these
    /// kernels). `tiles` holds `kb` consecutive blocks of one row group and `acts` `R` rows of `kb` blocks each
    /// (`R` ≤ `MT`), so every offset used below stays inside the fixed-size arrays of one tile or block. These tiles
    /// are not 64-byte aligned, so only unaligned loads are used.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn q8_0<const R: usize>(tiles: &[Q8Tile], acts: &[BlockQ8_0], kb: usize, out: &mut [[f32; TILE]; MT]) {
        let mut acc = [_mm512_setzero_ps(); R];
        for (b, t) in tiles.iter().enumerate() {
            prefetch_ahead(t);
            let a: [&BlockQ8_0; R] = std::array::from_fn(|i| &acts[i * kb + b]);
            let mut isum = [_mm512_setzero_si512(); R];
            for g in 0..8 {
                let w = _mm512_loadu_si512(t.qs.as_ptr().add(g * 64) as *const _);
                for i in 0..R {
                    isum[i] = _mm512_dpbusd_epi32(isum[i], w, bcast4(a[i].qs.as_ptr().add(g * 4)));
                }
            }
            add_block(&mut acc, &isum, 128, &t.d, &a);
        }
        store_rows(&acc, out);
    }

    /// Q5_0 weights (v + 16) against Q8_0 activations.
    ///
    /// # Safety
    /// AVX-512 F/BW/VNNI must be available (checked once by `available()` before any weight is packed for these
    /// kernels). `tiles` holds `kb` consecutive blocks of one row group and `acts` `R` rows of `kb` blocks each
    /// (`R` ≤ `MT`), so every offset used below stays inside the fixed-size arrays of one tile or block. These tiles
    /// are not 64-byte aligned, so only unaligned loads are used.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn q5_0<const R: usize>(tiles: &[Q5Tile], acts: &[BlockQ8_0], kb: usize, out: &mut [[f32; TILE]; MT]) {
        let m4 = _mm512_set1_epi8(0x0F);
        let bit4 = _mm512_set1_epi8(0x10);
        let mut acc = [_mm512_setzero_ps(); R];
        for (b, t) in tiles.iter().enumerate() {
            prefetch_ahead(t);
            let a: [&BlockQ8_0; R] = std::array::from_fn(|i| &acts[i * kb + b]);
            let hi = _mm512_loadu_si512(t.hi.as_ptr() as *const _);
            let mut isum = [_mm512_setzero_si512(); R];
            for p in 0..4 {
                let l = _mm512_loadu_si512(t.lo.as_ptr().add(p * 64) as *const _);
                // Fifth bits of groups p and p + 4 moved to bit 4 of each byte (16-bit shifts only carry bits
                // across bytes into positions the mask drops).
                let h_lo = _mm512_and_si512(shift_to_bit4(hi, p), bit4);
                let h_hi = _mm512_and_si512(shift_to_bit4(hi, p + 4), bit4);
                let v_lo = _mm512_or_si512(_mm512_and_si512(l, m4), h_lo);
                let v_hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(l, 4), m4), h_hi);
                for i in 0..R {
                    let q = a[i].qs.as_ptr();
                    isum[i] = _mm512_dpbusd_epi32(isum[i], v_lo, bcast4(q.add(p * 4)));
                    isum[i] = _mm512_dpbusd_epi32(isum[i], v_hi, bcast4(q.add((p + 4) * 4)));
                }
            }
            add_block(&mut acc, &isum, 16, &t.d, &a);
        }
        store_rows(&acc, out);
    }

    /// Adds one 32-value block's integer sums, less `offset` × the activations' sum (the weights are stored
    /// unsigned, offset by that much), scaled by the weights' and activations' block scales.
    ///
    /// # Safety
    /// AVX-512 F must be available; only reads its arguments' fixed-size arrays.
    #[inline(always)]
    unsafe fn add_block<const R: usize>(
        acc: &mut [__m512; R],
        isum: &[__m512i; R],
        offset: i32,
        d: &[u16; TILE],
        a: &[&BlockQ8_0; R],
    ) {
        let d = _mm512_cvtph_ps(_mm256_loadu_si256(d.as_ptr() as *const _));
        for i in 0..R {
            let x = _mm512_sub_epi32(isum[i], _mm512_set1_epi32(offset * a[i].sum));
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(x), _mm512_mul_ps(d, _mm512_set1_ps(a[i].d)), acc[i]);
        }
    }

    /// # Safety
    /// AVX-512 F must be available; `R` ≤ `MT`, so each store writes 16 floats inside `out[i]`.
    #[inline(always)]
    unsafe fn store_rows<const R: usize>(acc: &[__m512; R], out: &mut [[f32; TILE]; MT]) {
        for i in 0..R {
            _mm512_storeu_ps(out[i].as_mut_ptr(), acc[i]);
        }
    }

    /// `h` shifted so bit `g` of every byte lands on bit 4.
    ///
    /// # Safety
    /// AVX-512 BW must be available (pure register arithmetic, no memory access).
    #[inline(always)]
    unsafe fn shift_to_bit4(h: __m512i, g: usize) -> __m512i {
        match g {
            0 => _mm512_slli_epi16(h, 4),
            1 => _mm512_slli_epi16(h, 3),
            2 => _mm512_slli_epi16(h, 2),
            3 => _mm512_slli_epi16(h, 1),
            4 => h,
            5 => _mm512_srli_epi16(h, 1),
            6 => _mm512_srli_epi16(h, 2),
            _ => _mm512_srli_epi16(h, 3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    fn weight(dtype: GgmlDType, n: usize, k: usize, seed: u64) -> QTensor {
        let mut s = seed;
        let vals: Vec<f32> = (0..n * k)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 33) as f32 / (1u64 << 31) as f32 - 0.5) * 0.2
            })
            .collect();
        let t = Tensor::from_vec(vals, (n, k), &Device::Cpu).unwrap();
        QTensor::quantize(&t, dtype).unwrap()
    }

    fn activations(m: usize, k: usize) -> Vec<f32> {
        (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0).collect()
    }

    /// Exact reference: dequantized weights against the dequantized 8-bit activations, in f64.
    fn reference(q: &QTensor, x: &[f32], m: usize) -> Vec<f32> {
        let (n, k) = q.shape().dims2().unwrap();
        let w = q.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let xq: Vec<f64> = if matches!(q.dtype(), GgmlDType::Q4K | GgmlDType::Q6K) {
            let mut acts = vec![BlockQ8K::ZERO; m * k / QK_K];
            quantize_rows_ref(x, k, QK_K, &mut acts, quantize_q8k);
            acts.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f64 * b.d as f64)).collect()
        } else {
            let mut acts = vec![BlockQ8_0::ZERO; m * k / QK8_0];
            quantize_rows_ref(x, k, QK8_0, &mut acts, quantize_q8_0);
            acts.iter().flat_map(|b| b.qs.iter().map(move |&q| q as f64 * b.d as f64)).collect()
        };
        let mut out = vec![0f32; m * n];
        for r in 0..m {
            for c in 0..n {
                out[r * n + c] = (0..k).map(|i| xq[r * k + i] * w[c * k + i] as f64).sum::<f64>() as f32;
            }
        }
        out
    }

    fn quantize_rows_ref<B>(x: &[f32], k: usize, block: usize, out: &mut [B], f: fn(&[f32], &mut [B])) {
        for (r, row) in x.chunks(k).enumerate() {
            f(row, &mut out[r * k / block..(r + 1) * k / block]);
        }
    }

    #[test]
    fn every_packed_format_matches_the_dequantized_product() {
        if !available() {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI, the kernels are not used here");
            return;
        }
        let (n, k) = (48, 512);
        for dtype in [GgmlDType::Q4K, GgmlDType::Q6K, GgmlDType::Q8_0, GgmlDType::Q5_0] {
            let q = weight(dtype, n, k, 7);
            let w = PackedWeight::new(&q).unwrap_or_else(|| panic!("{dtype:?} packs"));
            for m in [1, 3, 4, 7, 9] {
                let x = activations(m, k);
                let got = &matmul(&[&w], &x, m)[0];
                let want = reference(&q, &x, m);
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert!((g - r).abs() <= 1e-4 * r.abs().max(1.0), "{dtype:?} m={m} at {i}: {g} vs {r}");
                }
            }
        }
    }

    #[test]
    fn q8_0_activations_are_ggmls() {
        let x: Vec<f32> = (0..32).map(|i| (i as f32 - 20.0) * 0.25).collect();
        let mut b = [BlockQ8_0::ZERO];
        quantize_q8_0(&x, &mut b);
        // max |x| = 5 (i = 0): d = 5/127 rounded to f16, -5 → -127, 0 → 0.
        assert_eq!(b[0].qs[0], -127);
        assert_eq!(b[0].qs[20], 0);
        assert_eq!(b[0].d, half::f16::from_f32(5.0 / 127.0).to_f32());
        assert_eq!(b[0].sum, b[0].qs.iter().map(|&q| q as i32).sum::<i32>());
    }

    #[test]
    fn fused_weights_equal_separate_calls() {
        if !available() {
            return;
        }
        let a = PackedWeight::new(&weight(GgmlDType::Q4K, 32, 256, 1)).unwrap();
        let b = PackedWeight::new(&weight(GgmlDType::Q6K, 64, 256, 2)).unwrap();
        let c = PackedWeight::new(&weight(GgmlDType::Q5_0, 16, 256, 4)).unwrap();
        let x = activations(2, 256);
        let all = matmul(&[&a, &b, &c], &x, 2);
        assert_eq!(all[0], matmul(&[&a], &x, 2)[0]);
        assert_eq!(all[1], matmul(&[&b], &x, 2)[0]);
        assert_eq!(all[2], matmul(&[&c], &x, 2)[0]);
    }

    #[test]
    fn q8k_quantization_is_ggmls() {
        let x: Vec<f32> = (0..256).map(|i| (i as f32 - 200.0) * 0.5).collect();
        let mut b = [BlockQ8K::ZERO];
        quantize_q8k(&x, &mut b);
        // The value of largest magnitude (-100 at i = 0) maps to -127 and d carries the sign back.
        assert_eq!(b[0].qs[0], -127);
        assert!((b[0].d - 100.0 / 127.0).abs() < 1e-6);
        assert_eq!(b[0].qs[255], (27.5f32 * -127.0 / -100.0).round_ties_even() as i8);
        assert_eq!(b[0].bsums[0], b[0].qs[..16].iter().map(|&q| q as i16).sum::<i16>());
        let mut z = [BlockQ8K::ZERO];
        quantize_q8k(&[0.0; 256], &mut z);
        assert_eq!(z[0].d, 0.0);
    }

    #[test]
    fn unsupported_weights_are_left_to_candle() {
        assert!(PackedWeight::new(&weight(GgmlDType::Q4_0, 32, 256, 3)).is_none());
        assert!(PackedWeight::new(&weight(GgmlDType::Q8_0, 20, 64, 3)).is_none());
        assert!(PackedWeight::new(&weight(GgmlDType::Q4K, 20, 256, 3)).is_none());
    }
}

#[cfg(test)]
mod throughput {
    use super::*;
    use candle_core::{Device, Tensor};

    /// `cargo test --release -p registro-engine --lib qmatmul::throughput -- --ignored --nocapture`
    #[test]
    #[ignore = "benchmark: prints weight bytes read per second"]
    fn weight_bandwidth() {
        for (dtype, n, k) in [(GgmlDType::Q4K, 8960, 1536), (GgmlDType::Q6K, 1536, 8960), (GgmlDType::Q4K, 151936, 1536), (GgmlDType::Q6K, 151936, 1536), (GgmlDType::Q8_0, 151936, 896), (GgmlDType::Q5_0, 151936, 896)] {
            let t = Tensor::randn(0f32, 0.1, (n, k), &Device::Cpu).unwrap();
            let q = QTensor::quantize(&t, dtype).unwrap();
            let w = PackedWeight::new(&q).unwrap();
            let x: Vec<f32> = (0..k).map(|i| (i as f32).sin()).collect();
            let bytes = w.tiles.bytes();
            for m in [1, 4] {
                let x: Vec<f32> = x.iter().cycle().take(m * k).copied().collect();
                let reps = 20;
                matmul(&[&w], &x, m);
                let t0 = std::time::Instant::now();
                for _ in 0..reps {
                    std::hint::black_box(matmul(&[&w], &x, m));
                }
                let s = t0.elapsed().as_secs_f64() / reps as f64;
                println!("{dtype:?} {n}x{k} m={m}: {:.2} ms, {:.1} GB/s", s * 1e3, bytes as f64 / s / 1e9);
            }
        }
    }
}
