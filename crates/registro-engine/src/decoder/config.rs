//! Hyper-parameters of each supported GGUF architecture, read from the file's metadata.
use anyhow::{bail, Result};

use crate::gguf::GgufFile;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    Qwen2,
    Qwen3,
    Llama,
    Gemma3,
}

impl Arch {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "qwen2" => Self::Qwen2,
            "qwen3" => Self::Qwen3,
            "llama" | "mistral" => Self::Llama,
            "gemma3" => Self::Gemma3,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Self::Qwen2 => "qwen2",
            Self::Qwen3 => "qwen3",
            Self::Llama => "llama",
            Self::Gemma3 => "gemma3",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub arch: Arch,
    pub n_layer: usize,
    pub n_head: usize,
    pub n_kv_head: usize,
    pub head_dim: usize,
    pub hidden: usize,
    pub vocab: usize,
    pub eps: f32,
    pub rope_dim: usize,
    pub rope_base: f32,
    /// Gemma 3 uses a different RoPE base on its sliding-window layers.
    pub rope_base_local: Option<f32>,
    /// NEOX layout (pairs i, i+d/2) vs the interleaved GGML llama layout (pairs 2i, 2i+1).
    pub rope_neox: bool,
    pub sliding_window: Option<usize>,
    /// Every `sliding_pattern`-th layer is global, the others use the sliding window.
    pub sliding_pattern: usize,
    pub max_pos: usize,
    pub embed_scale: Option<f32>,
    pub gelu: bool,
    pub attn_scale: f64,
}

/// RoPE tables are precomputed up to this many positions: enough for document-level prompts while keeping
/// 128k-context models from allocating hundreds of MB of tables.
const MAX_POSITIONS: usize = 32768;

impl Config {
    pub fn from_gguf(f: &GgufFile) -> Result<Self> {
        let arch_name = f.architecture()?;
        let arch = super::ensure_arch(&arch_name)?;
        let p = arch_name.as_str();
        let key = |k: &str| format!("{p}.{k}");
        let n_head = f.u32(&key("attention.head_count"))?;
        let n_kv_head = f.u32_or(&key("attention.head_count_kv"), n_head);
        let hidden = f.u32(&key("embedding_length"))?;
        let head_dim = f.u32_or(&key("attention.key_length"), hidden / n_head.max(1));
        let n_layer = f.u32(&key("block_count"))?;
        let eps = f.f32_or(&key("attention.layer_norm_rms_epsilon"), 1e-6);
        let rope_dim = f.u32_or(&key("rope.dimension_count"), head_dim);
        if rope_dim != head_dim {
            bail!("{}: partial rotary embeddings (rope dim {rope_dim} < head dim {head_dim}) are not supported", f.path.display());
        }
        if n_head == 0 || n_kv_head == 0 || n_head % n_kv_head != 0 {
            bail!("{}: {n_head} attention heads cannot share {n_kv_head} KV heads", f.path.display());
        }
        let ctx = f.u32_or(&key("context_length"), 4096);
        let info = f
            .content
            .tensor_infos
            .get("token_embd.weight")
            .ok_or_else(|| anyhow::anyhow!("{}: missing tensor token_embd.weight", f.path.display()))?;
        let vocab = info.shape.dims()[0];
        let gemma = arch == Arch::Gemma3;
        let sliding_window = if gemma { Some(f.u32_or(&key("attention.sliding_window"), 512)) } else { None };
        Ok(Self {
            arch,
            n_layer,
            n_head,
            n_kv_head,
            head_dim,
            hidden,
            vocab,
            eps,
            rope_dim,
            rope_base: f.f32_or(&key("rope.freq_base"), if gemma { 1_000_000.0 } else { 10_000.0 }),
            rope_base_local: gemma.then(|| f.f32_or(&key("rope.local_freq_base"), 10_000.0)),
            rope_neox: arch != Arch::Llama,
            sliding_window,
            sliding_pattern: f.u32_or(&key("attention.sliding_window_type"), 6),
            max_pos: ctx.min(MAX_POSITIONS),
            embed_scale: gemma.then(|| (hidden as f32).sqrt()),
            gelu: gemma,
            attn_scale: 1.0 / (head_dim as f64).sqrt(),
        })
    }

    pub fn is_sliding(&self, layer: usize) -> bool {
        self.sliding_window.is_some() && (layer + 1) % self.sliding_pattern.max(1) != 0
    }
}
