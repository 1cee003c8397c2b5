//! Decoder-only transformer for GGUF LLMs (qwen2, qwen3, llama, gemma3), adapted from candle-transformers'
//! `quantized_qwen2` / `quantized_gemma3` / `quantized_llama`, with what generation needs and those lack:
//! a KV cache that lives outside the weights (cloneable, so a shared prefix is computed once), several
//! sequences of different lengths in one batch (padding columns masked per row, positions per row), row
//! selection of the cache (beam search, dropping finished rows) and logits for every position (scoring).
//!
//! Per-architecture differences (biases, q/k norms, post norms, GELU, embedding scale, RoPE layout, sliding
//! window) are read from the file by `config.rs`; the forward pass below is shared.
mod attend;
mod cache;
mod config;

pub use cache::KvCache;
pub use config::{Arch, Config};

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use candle_core::quantized::QTensor;
use candle_core::{DType, Device, Tensor, D};


use crate::gguf::GgufFile;
use crate::linear::Linear;

struct RmsNorm {
    weight: Tensor,
    eps: f32,
}

impl RmsNorm {
    fn load(f: &mut GgufFile, name: &str, eps: f32, device: &Device) -> Result<Self> {
        Ok(Self { weight: f.dequantized(name, device)?, eps })
    }
    fn load_optional(f: &mut GgufFile, name: &str, eps: f32, device: &Device) -> Result<Option<Self>> {
        if f.has_tensor(name) { Ok(Some(Self::load(f, name, eps, device)?)) } else { Ok(None) }
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(candle_nn::ops::rms_norm(&x.contiguous()?, &self.weight, self.eps)?)
    }
}

/// Self-attention of one layer: Q/K/V projections (one pass over the thread pool), optional biases and q/k norms,
/// RoPE, grouped-query attention over the layer's slot of the external KV cache, output projection.
struct Attention {
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    bias: Option<(Tensor, Tensor, Tensor)>,
    q_norm: Option<RmsNorm>,
    k_norm: Option<RmsNorm>,
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
    rope_neox: bool,
    scale: f64,
}

impl Attention {
    fn new(f: &mut GgufFile, prefix: &str, cfg: &Config, device: &Device) -> Result<Self> {
        let bias = if f.has_tensor(&format!("{prefix}.attn_q.bias")) {
            Some((
                f.dequantized(&format!("{prefix}.attn_q.bias"), device)?,
                f.dequantized(&format!("{prefix}.attn_k.bias"), device)?,
                f.dequantized(&format!("{prefix}.attn_v.bias"), device)?,
            ))
        } else {
            None
        };
        Ok(Self {
            wq: qmatmul(f, &format!("{prefix}.attn_q.weight"), device)?,
            wk: qmatmul(f, &format!("{prefix}.attn_k.weight"), device)?,
            wv: qmatmul(f, &format!("{prefix}.attn_v.weight"), device)?,
            wo: qmatmul(f, &format!("{prefix}.attn_output.weight"), device)?,
            bias,
            q_norm: RmsNorm::load_optional(f, &format!("{prefix}.attn_q_norm.weight"), cfg.eps, device)?,
            k_norm: RmsNorm::load_optional(f, &format!("{prefix}.attn_k_norm.weight"), cfg.eps, device)?,
            n_head: cfg.dims.n_head,
            n_kv_head: cfg.dims.n_kv_head,
            head_dim: cfg.dims.head_dim,
            rope_neox: cfg.rope_neox,
            scale: cfg.attn_scale,
        })
    }

    /// `x` is `(b, s, hidden)`; the new keys and values are appended to row-aligned slot `layer` of `cache`; `t` is
    /// the columns attended after the append (the shared prefix's and the rows' own). `mask` is `(b, s, t)` or
    /// None when nothing needs masking.
    fn forward(&self, x: &Tensor, layer: usize, cache: &mut KvCache, rope: (&Tensor, &Tensor), mask: Option<&Tensor>, t: usize) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let (nh, nkv, hd) = (self.n_head, self.n_kv_head, self.head_dim);
        let (cos, sin) = rope;
        let mut qkv = Linear::forward_many(&[&self.wq, &self.wk, &self.wv], x)?;
        let mut v = qkv.pop().unwrap();
        let mut k = qkv.pop().unwrap();
        let mut q = qkv.pop().unwrap();
        if let Some((bq, bk, bv)) = &self.bias {
            q = q.broadcast_add(bq)?;
            k = k.broadcast_add(bk)?;
            v = v.broadcast_add(bv)?;
        }
        let mut q = q.reshape((b, s, nh, hd))?.transpose(1, 2)?.contiguous()?;
        let mut k = k.reshape((b, s, nkv, hd))?.transpose(1, 2)?.contiguous()?;
        let v = v.reshape((b, s, nkv, hd))?.transpose(1, 2)?.contiguous()?;
        if let Some(n) = &self.q_norm {
            q = n.forward(&q)?;
        }
        if let Some(n) = &self.k_norm {
            k = n.forward(&k)?;
        }
        let (q, k) = if self.rope_neox {
            (candle_nn::rotary_emb::rope(&q, cos, sin)?, candle_nn::rotary_emb::rope(&k, cos, sin)?)
        } else {
            (candle_nn::rotary_emb::rope_i(&q, cos, sin)?, candle_nn::rotary_emb::rope_i(&k, cos, sin)?)
        };
        let (q, k, v) = if f16_attention() { (round_f16(&q)?, round_f16(&k)?, round_f16(&v)?) } else { (q, k, v) };
        let (k, v) = cache.append(layer, k, v)?;
        let shared = cache.shared_layer(layer);
        if s == 1 {
            if let Some(y) = attend::decode_step(&q, shared, &k, &v, mask, self.scale as f32, f16_attention())? {
                return self.wo.forward(&y);
            }
        }
        // Elsewhere (a prefill, a GPU) the shared prefix's columns are put in front of each row's own.
        let (k, v) = match shared {
            Some((sk, sv)) => {
                let wide = |t: &Tensor| t.broadcast_as((b, nkv, t.dim(2)?, hd));
                // `cat` off the first axis of a broadcast returns a transposed view; matmul wants rows.
                (Tensor::cat(&[&wide(sk)?, &k], 2)?.contiguous()?, Tensor::cat(&[&wide(sv)?, &v], 2)?.contiguous()?)
            }
            None => (k, v),
        };
        // Grouped-query attention without copying K/V per query head: the g query heads of one KV head are
        // adjacent, so they fold into the sequence axis of one matmul.
        let g = nh / nkv;
        let q = q.reshape((b, nkv, g * s, hd))?;
        let scores = (q.matmul(&k.t()?)? * self.scale)?;
        let scores = match mask {
            Some(m) => scores.reshape((b, nkv, g, s, t))?.broadcast_add(&m.unsqueeze(1)?.unsqueeze(1)?)?.reshape((b, nkv, g * s, t))?,
            None => scores,
        };
        let p = candle_nn::ops::softmax_last_dim(&scores)?;
        let p = if f16_attention() { round_f16(&p)? } else { p };
        let y = p.matmul(&v)?; // (b, nkv, g*s, hd)
        let y = y.reshape((b, nh, s, hd))?.transpose(1, 2)?.reshape((b, s, nh * hd))?;
        self.wo.forward(&y)
    }
}

/// The gated feed-forward block: `down(act(gate(x)) * up(x))`, SiLU or (Gemma) GELU; gate and up share one pass.
struct Mlp {
    gate: Linear,
    up: Linear,
    down: Linear,
    gelu: bool,
}

impl Mlp {
    fn new(f: &mut GgufFile, prefix: &str, cfg: &Config, device: &Device) -> Result<Self> {
        Ok(Self {
            gate: qmatmul(f, &format!("{prefix}.ffn_gate.weight"), device)?,
            up: qmatmul(f, &format!("{prefix}.ffn_up.weight"), device)?,
            down: qmatmul(f, &format!("{prefix}.ffn_down.weight"), device)?,
            gelu: cfg.gelu,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut gu = Linear::forward_many(&[&self.gate, &self.up], x)?;
        let u = gu.pop().unwrap();
        let g = gu.pop().unwrap();
        let g = if self.gelu { g.gelu()? } else { candle_nn::ops::silu(&g)? };
        self.down.forward(&(g * u)?)
    }
}

/// One transformer block: pre-norm attention and MLP with residuals, plus Gemma 3's post-norms where present.
struct DecoderLayer {
    attn_norm: RmsNorm,
    attn: Attention,
    post_attn_norm: Option<RmsNorm>,
    ffn_norm: RmsNorm,
    mlp: Mlp,
    post_ffn_norm: Option<RmsNorm>,
    sliding: bool,
}

impl DecoderLayer {
    fn new(f: &mut GgufFile, index: usize, cfg: &Config, device: &Device) -> Result<Self> {
        let p = format!("blk.{index}");
        Ok(Self {
            attn_norm: RmsNorm::load(f, &format!("{p}.attn_norm.weight"), cfg.eps, device)?,
            attn: Attention::new(f, &p, cfg, device)?,
            post_attn_norm: RmsNorm::load_optional(f, &format!("{p}.post_attention_norm.weight"), cfg.eps, device)?,
            ffn_norm: RmsNorm::load(f, &format!("{p}.ffn_norm.weight"), cfg.eps, device)?,
            mlp: Mlp::new(f, &p, cfg, device)?,
            post_ffn_norm: RmsNorm::load_optional(f, &format!("{p}.post_ffw_norm.weight"), cfg.eps, device)?,
            sliding: cfg.is_sliding(index),
        })
    }

    fn forward(&self, x: Tensor, index: usize, cache: &mut KvCache, rope: (&Tensor, &Tensor), mask: Option<&Tensor>, t: usize) -> Result<Tensor> {
        let h = self.attn.forward(&self.attn_norm.forward(&x)?, index, cache, rope, mask, t)?;
        let h = match &self.post_attn_norm {
            Some(n) => n.forward(&h)?,
            None => h,
        };
        let x = (x + h)?;
        let h = self.mlp.forward(&self.ffn_norm.forward(&x)?)?;
        let h = match &self.post_ffn_norm {
            Some(n) => n.forward(&h)?,
            None => h,
        };
        Ok((x + h)?)
    }
}

/// The weights of one GGUF decoder; immutable and shared between threads (`Arc`), all per-sequence state is in
/// [`KvCache`].
pub struct Decoder {
    pub cfg: Config,
    embed: Arc<QTensor>,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    output: Linear,
    rope: (Tensor, Tensor),
    rope_local: Option<(Tensor, Tensor)>,
    device: Device,
}

impl Decoder {
    /// One layer's decode-step attention in milliseconds for `rows` rows over `prefix` shared and `own` columns,
    /// with this model's heads (`registro bench engine`); `None` where the CPU kernels do not run.
    pub fn time_attention_step(&self, rows: usize, prefix: usize, own: usize) -> Result<Option<f64>> {
        let d = &self.cfg.dims;
        attend::time_decode_step(d.n_head, d.n_kv_head, d.head_dim, rows, prefix, own)
    }
}

fn rope_table(head_dim: usize, base: f32, max_pos: usize, device: &Device) -> Result<(Tensor, Tensor)> {
    let inv: Vec<f32> = (0..head_dim).step_by(2).map(|i| 1f32 / base.powf(i as f32 / head_dim as f32)).collect();
    let n = inv.len();
    let mut cos = Vec::with_capacity(max_pos * n);
    let mut sin = Vec::with_capacity(max_pos * n);
    for p in 0..max_pos {
        for f in &inv {
            let a = p as f32 * f;
            cos.push(a.cos());
            sin.push(a.sin());
        }
    }
    Ok((Tensor::from_vec(cos, (max_pos, n), device)?, Tensor::from_vec(sin, (max_pos, n), device)?))
}

fn qmatmul(f: &mut GgufFile, name: &str, device: &Device) -> Result<Linear> {
    Ok(Linear::new(Arc::new(f.qtensor(name, device)?))?.0)
}

impl Decoder {
    pub fn load(f: &mut GgufFile, device: &Device) -> Result<Self> {
        let cfg = Config::from_gguf(f)?;
        let embed = Arc::new(f.qtensor("token_embd.weight", device)?);
        // Tied output: the (possibly padded) output weight doubles as the embedding table; lookups are narrowed.
        let (output, embed) = if f.has_tensor("output.weight") {
            (qmatmul(f, "output.weight", device)?, embed)
        } else {
            Linear::new(embed)?
        };
        let norm = RmsNorm::load(f, "output_norm.weight", cfg.eps, device)?;
        let layers = (0..cfg.dims.n_layer).map(|i| DecoderLayer::new(f, i, &cfg, device)).collect::<Result<Vec<_>>>()?;
        let rope = rope_table(cfg.rope_dim, cfg.rope_base, cfg.max_pos, device)?;
        let rope_local = match cfg.rope_base_local {
            Some(b) if cfg.sliding_window.is_some() => Some(rope_table(cfg.rope_dim, b, cfg.max_pos, device)?),
            _ => None,
        };
        Ok(Self { cfg, embed, layers, norm, output, rope, rope_local, device: device.clone() })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn new_cache(&self, batch: usize) -> KvCache {
        KvCache::new(self.layers.len(), batch)
    }

    /// Runs `rows` (one token slice per cache row, lengths may differ: shorter rows are left-padded with masked
    /// columns) through the model, appending to `cache`. Returns logits `(rows, vocab)` at each row's last token,
    /// or `(rows, max_len, vocab)` at every position when `all_positions` (padding positions come first).
    pub fn forward(&self, rows: &[&[u32]], cache: &mut KvCache, all_positions: bool) -> Result<Tensor> {
        let b = rows.len();
        if b == 0 || b != cache.batch() {
            bail!("forward: {b} token rows for a cache of {} rows", cache.batch());
        }
        let s = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        if s == 0 {
            bail!("forward: no tokens");
        }
        let vocab = self.cfg.dims.vocab;
        let mut ids = Vec::with_capacity(b * s);
        let mut qpos = Vec::with_capacity(b * s);
        for (r, toks) in rows.iter().enumerate() {
            if let Some(bad) = toks.iter().find(|&&t| t as usize >= vocab) {
                bail!("token id {bad} is outside the vocabulary ({vocab})");
            }
            let pad = s - toks.len();
            let start = cache.rows[r].next_pos;
            ids.extend(std::iter::repeat(0u32).take(pad));
            ids.extend_from_slice(toks);
            qpos.extend(std::iter::repeat(0u32).take(pad));
            qpos.extend((0..toks.len()).map(|i| (start + i) as u32));
        }
        if let Some(&max) = qpos.iter().max() {
            if max as usize >= self.cfg.max_pos {
                bail!("sequence of {} tokens exceeds the context length {}", max + 1, self.cfg.max_pos);
            }
        }
        let t_old = cache.len();
        cache.push_columns(rows, s);
        let t_new = cache.shared_len() + t_old + s;

        let masks = self.masks(cache, t_old, s)?;
        let same_positions = (1..b).all(|r| qpos[r * s..(r + 1) * s] == qpos[..s]);
        let ropes = self.rope_slices(&qpos, b, s, same_positions)?;

        let ids_t = Tensor::from_vec(ids, (b, s), &self.device)?;
        let mut x = self.embed.embedding(&ids_t)?;
        if x.dim(D::Minus1)? != self.cfg.dims.hidden {
            x = x.narrow(D::Minus1, 0, self.cfg.dims.hidden)?.contiguous()?;
        }
        if let Some(scale) = self.cfg.embed_scale {
            x = (x * scale as f64)?;
        }
        for (li, layer) in self.layers.iter().enumerate() {
            let local = layer.sliding && self.rope_local.is_some();
            let (cos, sin) = if local { ropes.1.as_ref().unwrap() } else { &ropes.0 };
            let mask = if layer.sliding { masks.1.as_ref() } else { masks.0.as_ref() };
            x = layer.forward(x, li, cache, (cos, sin), mask, t_new)?;
        }
        let x = if all_positions { x } else { x.narrow(1, s - 1, 1)?.squeeze(1)? };
        let x = self.norm.forward(&x)?;
        let logits = self.output.forward(&x)?;
        Ok(logits.to_dtype(DType::F32)?)
    }

    /// Additive masks `(b, s, shared + t)` for global and sliding-window layers, or None where nothing is masked;
    /// the shared prefix's columns (positions 0, 1, …) come first.
    fn masks(&self, cache: &KvCache, t_old: usize, s: usize) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let b = cache.batch();
        let shared = cache.shared_len();
        let t = shared + t_old + s;
        let window = self.cfg.sliding_window;
        let any_pad = cache.rows.iter().any(|r| r.has_padding);
        let build = |window: Option<usize>| -> Result<Option<Tensor>> {
            let window_bites = window.is_some_and(|w| cache.rows.iter().any(|r| r.next_pos > w));
            if s == 1 && !any_pad && !window_bites {
                return Ok(None);
            }
            let mut m = vec![0f32; b * s * t];
            for (r, row) in cache.rows.iter().enumerate() {
                for i in 0..s {
                    let qc = shared + t_old + i;
                    let qp = row.colpos[t_old + i];
                    let dst = &mut m[(r * s + i) * t..(r * s + i + 1) * t];
                    for (c, d) in dst.iter_mut().enumerate() {
                        let kp = if c < shared { c as i32 } else { row.colpos[c - shared] };
                        let ok = c == qc
                            || (kp >= 0 && qp >= 0 && c <= qc && window.is_none_or(|w| ((qp - kp) as usize) < w));
                        if !ok {
                            *d = f32::NEG_INFINITY;
                        }
                    }
                }
            }
            Ok(Some(Tensor::from_vec(m, (b, s, t), &self.device)?))
        };
        let global = build(None)?;
        let local = if window.is_some() && self.layers.iter().any(|l| l.sliding) { build(window)? } else { None };
        Ok((global, local))
    }

    #[allow(clippy::type_complexity)]
    fn rope_slices(&self, qpos: &[u32], b: usize, s: usize, same: bool) -> Result<((Tensor, Tensor), Option<(Tensor, Tensor)>)> {
        let pick = |(cos, sin): &(Tensor, Tensor)| -> Result<(Tensor, Tensor)> {
            if same && (s == 1 || qpos[..s].windows(2).all(|w| w[1] == w[0] + 1)) {
                let start = qpos[0] as usize;
                Ok((cos.narrow(0, start, s)?, sin.narrow(0, start, s)?))
            } else {
                let idx = Tensor::new(qpos, &self.device)?;
                let n = cos.dim(D::Minus1)?;
                Ok((
                    cos.index_select(&idx, 0)?.reshape((b, s, n))?,
                    sin.index_select(&idx, 0)?.reshape((b, s, n))?,
                ))
            }
        };
        let global = pick(&self.rope)?;
        let local = match &self.rope_local {
            Some(r) => Some(pick(r)?),
            None => None,
        };
        Ok((global, local))
    }

    pub fn context_len(&self) -> usize {
        self.cfg.max_pos
    }
}

/// Rounds the attention operands (Q, K, V and the softmax weights) to f16 as llama.cpp does with its default f16
/// KV cache. Without it, greedy decoding of Qwen2.5-1.5B parted from llama.cpp's at a 0.07-nat margin after six
/// tokens; with it the first 20 tokens are identical (tests/real_models.rs). `REGISTRO_ATTN_F16=0` keeps f32.
pub(crate) fn f16_attention() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("REGISTRO_ATTN_F16").map_or(true, |v| v != "0"))
}

fn round_f16(t: &Tensor) -> Result<Tensor> {
    if !t.device().is_cpu() || t.dtype() != DType::F32 {
        return Ok(t.to_dtype(DType::F16)?.to_dtype(DType::F32)?);
    }
    // candle's `to_dtype` converts one element per call; a prefill's softmax weights over a cached prefix are
    // millions of values a layer, and those calls took a fifth of an admission's time on the CPU.
    let mut v = t.flatten_all()?.to_vec1::<f32>()?;
    round_f16_slice(&mut v);
    Ok(Tensor::from_vec(v, t.shape(), t.device())?)
}

/// Rounds each value to the nearest f16 (ties to even) and back, eight at a time where the CPU converts in
/// hardware (F16C): the same values as `half::f16::from_f32(x).to_f32()`.
pub(crate) fn round_f16_slice(x: &mut [f32]) {
    use half::slice::HalfFloatSliceExt;
    const CHUNK: usize = 1024;
    let mut halves = [half::f16::ZERO; CHUNK];
    for chunk in x.chunks_mut(CHUNK) {
        let h = &mut halves[..chunk.len()];
        h.convert_from_f32_slice(chunk);
        h.convert_to_f32_slice(chunk);
    }
}

pub(crate) fn ensure_arch(arch: &str) -> Result<Arch> {
    Arch::parse(arch).with_context(|| {
        format!("unsupported GGUF architecture {arch:?} (supported: {})", registro_gguf::SUPPORTED_ARCHITECTURES.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked hardware rounding gives, value for value, what the scalar conversion gives: normal values,
    /// ties between two f16 values, f16 subnormals and underflow, overflow to infinity, and a tail shorter than
    /// the conversion's eight lanes.
    #[test]
    fn f16_rounding_of_a_slice_is_the_scalar_rounding() {
        let mut xs: Vec<f32> = (0..5000u32).map(|i| f32::from_bits(0x3300_0000 + i * 0x0001_9a3f)).collect();
        xs.extend([0.0, -0.0, 1.0 + 1.0 / 2048.0, 1.0 + 3.0 / 2048.0, 6.0e-8, 3.0e-8, 1.0e-10, 65504.0, 65520.0, 1.0e6, -1.0e6, f32::INFINITY]);
        xs.extend((0..1037).map(|i| (i as f32 * 0.37).sin() * 1.0e-3));
        let want: Vec<u32> = xs.iter().map(|&x| half::f16::from_f32(x).to_f32().to_bits()).collect();
        let mut got = xs.clone();
        round_f16_slice(&mut got);
        let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want);
    }
}
