//! EmbeddingGemma: multilingual sentence embeddings (100+ languages) from a Gemma 3 text model run as an encoder.
//!
//! The model folder is a sentence-transformers export: `config.json` (`Gemma3TextModel`,
//! `use_bidirectional_attention: true`), `model.safetensors`, `tokenizer.json`, `2_Dense/` and `3_Dense/`. The
//! embedding is: Gemma 3 layers with bidirectional attention (every token sees every other real token, padding
//! masked), mean pooling over all tokens of the prompted text, Dense 768→3072, Dense 3072→768 (no bias, identity
//! activation), L2 normalisation — the five modules its `modules.json` lists.
//!
//! Same layer shapes as candle's `gemma3.rs` (RMS norms that scale by `1 + weight`, q/k norms, two RoPE bases: the
//! local one on sliding-window layers, the global one on full-attention layers, embeddings scaled by √hidden), but
//! no KV cache and no causal mask: the model reads a whole sentence at once.
use std::path::Path;

use anyhow::{bail, Context, Result};
use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{Activation, VarBuilder};

use crate::bert::{encode_batch, load_tokenizer, need, read_json, weights_from};
use crate::device::{self, DeviceChoice};
use crate::linear::Linear;
pub use crate::linear::Precision;

/// Inputs are cut to this many tokens. Sliding-window layers then see the whole input whatever the window
/// (EmbeddingGemma's is 512), so one code path serves both layer kinds; segments are sentences, far shorter.
pub const MAX_TOKENS: usize = 256;

#[derive(serde::Deserialize, Debug, Clone)]
pub struct Config {
    pub head_dim: usize,
    pub hidden_activation: Activation,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub num_key_value_heads: usize,
    pub rms_norm_eps: f64,
    pub rope_theta: f64,
    pub rope_local_base_freq: f64,
    pub vocab_size: usize,
    pub query_pre_attn_scalar: usize,
    #[serde(default)]
    pub layer_types: Vec<String>,
    #[serde(default = "default_pattern", alias = "_sliding_window_pattern")]
    pub sliding_window_pattern: usize,
    #[serde(default)]
    pub use_bidirectional_attention: bool,
    #[serde(default)]
    pub pad_token_id: u32,
}

fn default_pattern() -> usize {
    6
}

impl Config {
    /// Whether layer `i` is a sliding-window (local RoPE base) layer: `layer_types` when given, else every layer
    /// but each `sliding_window_pattern`-th.
    fn is_sliding(&self, i: usize) -> bool {
        match self.layer_types.get(i) {
            Some(t) => t == "sliding_attention",
            None => !(i + 1).is_multiple_of(self.sliding_window_pattern.max(1)),
        }
    }
}

/// The task prefixes EmbeddingGemma was trained with (its `config_sentence_transformers.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Symmetric meaning comparison: source vs translation, input vs rewrite.
    Similarity,
    /// The side that searches (a sentence looking for few-shot examples).
    Query,
    /// The side that is searched.
    Document,
}

impl Task {
    pub fn prompt(self) -> &'static str {
        match self {
            Task::Similarity => "task: sentence similarity | query: ",
            Task::Query => "task: search result | query: ",
            Task::Document => "title: none | text: ",
        }
    }
}

struct RmsNorm {
    weight: Tensor,
    eps: f64,
}

impl RmsNorm {
    fn new(dim: usize, eps: f64, vb: VarBuilder) -> Result<Self> {
        // Gemma stores the deviation from 1.
        Ok(Self { weight: (vb.get(dim, "weight")? + 1.0)?, eps })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(candle_nn::ops::rms_norm(&x.contiguous()?, &self.weight, self.eps as f32)?)
    }
}

struct Rotary {
    sin: Tensor,
    cos: Tensor,
}

impl Rotary {
    fn new(base: f64, head_dim: usize, dev: &Device) -> Result<Self> {
        let inv: Vec<f32> = (0..head_dim).step_by(2).map(|i| 1f32 / base.powf(i as f64 / head_dim as f64) as f32).collect();
        let n = inv.len();
        let inv = Tensor::from_vec(inv, (1, n), dev)?;
        let t = Tensor::arange(0u32, MAX_TOKENS as u32, dev)?.to_dtype(DType::F32)?.reshape((MAX_TOKENS, 1))?;
        let freqs = t.matmul(&inv)?;
        Ok(Self { sin: freqs.sin()?, cos: freqs.cos()? })
    }

    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let len = x.dim(2)?;
        let (cos, sin) = (self.cos.narrow(0, 0, len)?, self.sin.narrow(0, 0, len)?);
        Ok(candle_nn::rotary_emb::rope(&x.contiguous()?, &cos, &sin)?)
    }
}

/// A bias-free projection `inp → out` named `vb`'s prefix + `.weight`.
fn linear(inp: usize, out: usize, vb: VarBuilder, precision: Precision) -> Result<Linear> {
    Linear::from_float(vb.get((out, inp), "weight")?, precision)
}

struct Mlp {
    gate_proj: Linear,
    up_proj: Linear,
    down_proj: Linear,
    act: Activation,
}

impl Mlp {
    fn new(cfg: &Config, vb: VarBuilder, precision: Precision) -> Result<Self> {
        let (h, i) = (cfg.hidden_size, cfg.intermediate_size);
        Ok(Self {
            gate_proj: linear(h, i, vb.pp("gate_proj"), precision)?,
            up_proj: linear(h, i, vb.pp("up_proj"), precision)?,
            down_proj: linear(i, h, vb.pp("down_proj"), precision)?,
            act: cfg.hidden_activation,
        })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut gate_up = Linear::forward_many(&[&self.gate_proj, &self.up_proj], x)?;
        let up = gate_up.pop().expect("two outputs");
        let gate = gate_up.pop().expect("two outputs").apply(&self.act)?;
        self.down_proj.forward(&(gate * up)?)
    }
}

struct Attention {
    q_proj: Linear,
    k_proj: Linear,
    v_proj: Linear,
    o_proj: Linear,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    scale: f64,
}

impl Attention {
    fn new(cfg: &Config, vb: VarBuilder, precision: Precision) -> Result<Self> {
        let (h, hd) = (cfg.hidden_size, cfg.head_dim);
        Ok(Self {
            q_proj: linear(h, cfg.num_attention_heads * hd, vb.pp("q_proj"), precision)?,
            k_proj: linear(h, cfg.num_key_value_heads * hd, vb.pp("k_proj"), precision)?,
            v_proj: linear(h, cfg.num_key_value_heads * hd, vb.pp("v_proj"), precision)?,
            o_proj: linear(cfg.num_attention_heads * hd, h, vb.pp("o_proj"), precision)?,
            q_norm: RmsNorm::new(hd, cfg.rms_norm_eps, vb.pp("q_norm"))?,
            k_norm: RmsNorm::new(hd, cfg.rms_norm_eps, vb.pp("k_norm"))?,
            heads: cfg.num_attention_heads,
            kv_heads: cfg.num_key_value_heads,
            head_dim: hd,
            scale: 1.0 / (cfg.query_pre_attn_scalar as f64).sqrt(),
        })
    }

    /// `key_mask`: (batch, 1, 1, len), 0 for real tokens and -inf for padding.
    fn forward(&self, x: &Tensor, rotary: &Rotary, key_mask: &Tensor) -> Result<Tensor> {
        let (b, len, _) = x.dims3()?;
        let split = |t: Tensor, heads: usize| t.reshape((b, len, heads, self.head_dim))?.transpose(1, 2);
        let [q, k, v]: [Tensor; 3] = Linear::forward_many(&[&self.q_proj, &self.k_proj, &self.v_proj], x)?.try_into().expect("three outputs");
        let q = self.q_norm.forward(&split(q, self.heads)?)?;
        let k = self.k_norm.forward(&split(k, self.kv_heads)?)?;
        let v = split(v, self.kv_heads)?;
        let (q, k) = (rotary.apply(&q)?, rotary.apply(&k)?);
        let groups = self.heads / self.kv_heads;
        let (k, v) = (repeat_kv(k, groups)?.contiguous()?, repeat_kv(v, groups)?.contiguous()?);
        let scores = (q.matmul(&k.t()?)? * self.scale)?.broadcast_add(key_mask)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let out = probs.matmul(&v)?.transpose(1, 2)?.reshape((b, len, self.heads * self.head_dim))?;
        self.o_proj.forward(&out)
    }
}

fn repeat_kv(x: Tensor, groups: usize) -> Result<Tensor> {
    if groups == 1 {
        return Ok(x);
    }
    let (b, h, len, d) = x.dims4()?;
    Ok(x.unsqueeze(2)?.expand((b, h, groups, len, d))?.reshape((b, h * groups, len, d))?)
}

struct Layer {
    attn: Attention,
    mlp: Mlp,
    input_norm: RmsNorm,
    post_attn_norm: RmsNorm,
    pre_ff_norm: RmsNorm,
    post_ff_norm: RmsNorm,
    sliding: bool,
}

impl Layer {
    fn new(cfg: &Config, sliding: bool, vb: VarBuilder, precision: Precision) -> Result<Self> {
        let norm = |name: &str| RmsNorm::new(cfg.hidden_size, cfg.rms_norm_eps, vb.pp(name));
        Ok(Self {
            attn: Attention::new(cfg, vb.pp("self_attn"), precision)?,
            mlp: Mlp::new(cfg, vb.pp("mlp"), precision)?,
            input_norm: norm("input_layernorm")?,
            post_attn_norm: norm("post_attention_layernorm")?,
            pre_ff_norm: norm("pre_feedforward_layernorm")?,
            post_ff_norm: norm("post_feedforward_layernorm")?,
            sliding,
        })
    }

    fn forward(&self, x: &Tensor, rotary: &Rotary, key_mask: &Tensor) -> Result<Tensor> {
        let a = self.attn.forward(&self.input_norm.forward(x)?, rotary, key_mask)?;
        let x = (x + self.post_attn_norm.forward(&a)?)?;
        let m = self.mlp.forward(&self.pre_ff_norm.forward(&x)?)?;
        Ok((x + self.post_ff_norm.forward(&m)?)?)
    }
}

/// Where the token embeddings come from.
enum TokenTable {
    /// Rows read from the mapped weights file as sentences need them. EmbeddingGemma's table is 262,144 × 768
    /// f32 (805 MB), of which a batch of sentences touches a few hundred rows: copying it at load took 2.7 s of a
    /// 3.5 s load and kept 805 MB resident per loaded copy (translation's int8 check and eval's f32 one each held
    /// one), while mapped rows are page cache the two copies share and the kernel can drop.
    Mapped { file: std::sync::Arc<candle_core::safetensors::MmapedSafetensors>, rows: usize, dim: usize },
    /// Tensors given in memory (and tables not stored as f32), converted at load.
    Loaded(candle_nn::Embedding),
}

const EMBED_TOKENS: &str = "embed_tokens.weight";

impl TokenTable {
    /// The mapped table of `file` when it stores `embed_tokens.weight` as little-endian f32 `(vocab, hidden)`;
    /// `None` for any other dtype (read through the var builder instead); an error for a table of the wrong shape.
    fn mapped(cfg: &Config, path: &Path) -> Result<Option<Self>> {
        // SAFETY: the mapped file is opened read-only and Registro never writes a model file in place while a model
        // is loaded (the model manager replaces files by rename, which leaves an existing mapping intact).
        let file = unsafe { candle_core::safetensors::MmapedSafetensors::new(path) }.map_err(|e| anyhow::anyhow!("{}: cannot read weights: {e}", path.display()))?;
        let view = file.get(EMBED_TOKENS).map_err(|e| anyhow::anyhow!("{}: {EMBED_TOKENS}: {e}", path.display()))?;
        if view.dtype() != safetensors::Dtype::F32 {
            return Ok(None);
        }
        let (rows, dim) = (cfg.vocab_size, cfg.hidden_size);
        if view.shape() != [rows, dim] || view.data().len() != rows * dim * 4 {
            bail!("{}: {EMBED_TOKENS} has shape {:?}, config.json says ({rows}, {dim})", path.display(), view.shape());
        }
        Ok(Some(TokenTable::Mapped { file: std::sync::Arc::new(file), rows, dim }))
    }

    /// `(batch, len)` ids to `(batch, len, hidden)` embeddings.
    fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let (file, rows, dim) = match self {
            TokenTable::Loaded(e) => return Ok(e.forward(ids)?),
            TokenTable::Mapped { file, rows, dim } => (file, *rows, *dim),
        };
        let (b, len) = ids.dims2()?;
        let view = file.get(EMBED_TOKENS)?;
        let table = view.data();
        let mut out = Vec::with_capacity(b * len * dim);
        for id in ids.flatten_all()?.to_vec1::<u32>()? {
            let id = id as usize;
            if id >= rows {
                bail!("token id {id} is outside the embedding table ({rows} rows)");
            }
            out.extend(table[id * dim * 4..(id + 1) * dim * 4].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        }
        Ok(Tensor::from_vec(out, (b, len, dim), ids.device())?)
    }
}

/// The Gemma 3 text model as a bidirectional encoder: token ids to last hidden states.
pub struct Gemma3Encoder {
    embed: TokenTable,
    embed_scale: f64,
    layers: Vec<Layer>,
    norm: RmsNorm,
    local_rope: Rotary,
    global_rope: Rotary,
}

impl Gemma3Encoder {
    /// The model as trained (f32 linear layers).
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        Self::with_precision(cfg, vb, Precision::F32)
    }

    pub fn with_precision(cfg: &Config, vb: VarBuilder, precision: Precision) -> Result<Self> {
        Self::build(cfg, vb, precision, None)
    }

    /// The model in the safetensors file `path`, its token table read from the mapped file as needed (see
    /// [`TokenTable::Mapped`]): the same hidden states as [`Gemma3Encoder::with_precision`] on the file's tensors.
    pub fn from_file(cfg: &Config, path: &Path, device: &Device, precision: Precision) -> Result<Self> {
        // Rows are gathered on the host and the batch's embeddings moved to `device`: a few kilobytes per token.
        let table = TokenTable::mapped(cfg, path)?;
        Self::build(cfg, weights_from(path, device)?, precision, table)
    }

    fn build(cfg: &Config, vb: VarBuilder, precision: Precision, table: Option<TokenTable>) -> Result<Self> {
        if !cfg.use_bidirectional_attention {
            bail!("config.json: use_bidirectional_attention is not set; this is a causal Gemma 3, not an embedding model");
        }
        if cfg.num_key_value_heads == 0 || !cfg.num_attention_heads.is_multiple_of(cfg.num_key_value_heads) {
            bail!("config.json: {} attention heads cannot share {} key/value heads", cfg.num_attention_heads, cfg.num_key_value_heads);
        }
        let dev = vb.device().clone();
        let layers = (0..cfg.num_hidden_layers)
            .map(|i| Layer::new(cfg, cfg.is_sliding(i), vb.pp(format!("layers.{i}")), precision))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            embed: match table {
                Some(t) => t,
                None => TokenTable::Loaded(candle_nn::embedding(cfg.vocab_size, cfg.hidden_size, vb.pp("embed_tokens"))?),
            },
            embed_scale: (cfg.hidden_size as f64).sqrt(),
            layers,
            norm: RmsNorm::new(cfg.hidden_size, cfg.rms_norm_eps, vb.pp("norm"))?,
            local_rope: Rotary::new(cfg.rope_local_base_freq, cfg.head_dim, &dev)?,
            global_rope: Rotary::new(cfg.rope_theta, cfg.head_dim, &dev)?,
        })
    }

    /// `ids` and `mask` are (batch, len) u32, mask 1 on real tokens; `len` ≤ [`MAX_TOKENS`].
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, len) = ids.dims2()?;
        if len > MAX_TOKENS {
            bail!("{len} tokens: the encoder reads at most {MAX_TOKENS}");
        }
        // 0 where a key is a real token, -inf where it is padding (a padded query row still sees real keys).
        let key_mask = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?.reshape((b, 1, 1, len))?;
        let mut x = (self.embed.forward(ids)? * self.embed_scale)?;
        for layer in &self.layers {
            let rope = if layer.sliding { &self.local_rope } else { &self.global_rope };
            x = layer.forward(&x, rope, &key_mask)?;
        }
        self.norm.forward(&x)
    }
}

/// EmbeddingGemma with its sentence-transformers head: text to a unit-length vector.
pub struct MultilingualEncoder {
    model: Gemma3Encoder,
    dense: Vec<Linear>,
    tokenizer: tokenizers::Tokenizer,
    pad: u32,
    device: Device,
    pub dim: usize,
}

impl MultilingualEncoder {
    /// The model as trained: the embeddings sentence-transformers computes.
    pub fn load(dir: &Path, choice: DeviceChoice) -> Result<Self> {
        Self::load_with(dir, choice, Precision::F32)
    }

    pub fn load_with(dir: &Path, choice: DeviceChoice, precision: Precision) -> Result<Self> {
        let device = device::open(choice)?;
        let cfg_path = need(dir, "config.json")?;
        let cfg: Config = read_json(&cfg_path)?;
        // Gemma's 262k-entry tokenizer.json takes ~0.8 s to parse on one core, about what the layers' weights take
        // to read (the token table is mapped, not read): side by side, neither waits for the other.
        let (tokenizer, model) = std::thread::scope(|scope| {
            let tokenizer = scope.spawn(|| load_tokenizer(dir));
            let model = need(dir, "model.safetensors").and_then(|p| {
                Gemma3Encoder::from_file(&cfg, &p, &device, precision).with_context(|| format!("{}: not an EmbeddingGemma model", dir.display()))
            });
            let tokenizer = tokenizer.join().unwrap_or_else(|_| Err(anyhow::anyhow!("{}: loading tokenizer.json panicked", dir.display())));
            (tokenizer, model)
        });
        let (tokenizer, model) = (tokenizer?, model?);
        let mut dense = Vec::new();
        let mut width = cfg.hidden_size;
        for sub in ["2_Dense", "3_Dense"] {
            let d = dir.join(sub);
            let dcfg: serde_json::Value = read_json(&need(&d, "config.json")?)?;
            let (inp, out) = (dcfg["in_features"].as_u64().unwrap_or(0) as usize, dcfg["out_features"].as_u64().unwrap_or(0) as usize);
            if inp != width || out == 0 {
                bail!("{}: in_features {inp} does not follow the previous width {width}", d.join("config.json").display());
            }
            if dcfg["bias"].as_bool().unwrap_or(false) {
                bail!("{}: a Dense layer with bias is not supported", d.join("config.json").display());
            }
            let vb = weights_from(&need(&d, "model.safetensors")?, &device)?;
            dense.push(linear(inp, out, vb.pp("linear"), precision).with_context(|| format!("{}: weights", d.display()))?);
            width = out;
        }
        Ok(Self { model, dense, tokenizer, pad: cfg.pad_token_id, device, dim: width })
    }

    /// The token ids the model reads for `text` under `task` (prompt, `<bos>` … `<eos>`, cut to [`MAX_TOKENS`]).
    pub fn token_ids(&self, task: Task, text: &str) -> Result<Vec<u32>> {
        let b = encode_batch(&self.tokenizer, &[&format!("{}{text}", task.prompt())], MAX_TOKENS, self.pad, &self.device)?;
        Ok(b.ids.squeeze(0)?.to_vec1::<u32>()?)
    }

    /// One unit-length embedding per text, each prefixed with `task`'s prompt as the model was trained.
    pub fn embed(&self, task: Task, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let prompted: Vec<String> = texts.iter().map(|t| format!("{}{t}", task.prompt())).collect();
        // Similar lengths together: less padding computed.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| prompted[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(16) {
            let batch: Vec<&str> = chunk.iter().map(|&i| prompted[i].as_str()).collect();
            let b = encode_batch(&self.tokenizer, &batch, MAX_TOKENS, self.pad, &self.device)?;
            let h = self.model.forward(&b.ids, &b.mask)?;
            let m = b.mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let mut e = h.broadcast_mul(&m)?.sum(1)?.broadcast_div(&m.sum(1)?)?;
            for d in &self.dense {
                e = d.forward(&e)?;
            }
            let norm = e.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
            for (&i, v) in chunk.iter().zip(e.broadcast_div(&norm)?.to_vec2::<f32>()?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}
