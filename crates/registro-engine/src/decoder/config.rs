//! Hyper-parameters of each supported GGUF architecture, read from the file's metadata.
use anyhow::Result;

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
    /// Layers, heads, widths and vocabulary as `registro_gguf::check_decoder` derived them from the tensors.
    pub dims: registro_gguf::DecoderDims,
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
    /// Every size comes from `registro_gguf::check_decoder`, which derives it from (and checks it against) the
    /// tensors in the file: nothing here indexes a shape or sizes a buffer from an unchecked header value.
    pub fn from_gguf(f: &GgufFile) -> Result<Self> {
        let d = registro_gguf::check_decoder(&f.header)?;
        let arch = super::ensure_arch(&d.architecture)?;
        let p = d.architecture.as_str();
        let key = |k: &str| format!("{p}.{k}");
        let gemma = arch == Arch::Gemma3;
        let sliding_window = if gemma { Some(f.u32_or(&key("attention.sliding_window"), 512)) } else { None };
        Ok(Self {
            arch,
            eps: f.f32_or(&key("attention.layer_norm_rms_epsilon"), 1e-6),
            // check_decoder refuses a rope.dimension_count other than the head size.
            rope_dim: d.head_dim,
            rope_base: f.f32_or(&key("rope.freq_base"), if gemma { 1_000_000.0 } else { 10_000.0 }),
            rope_base_local: gemma.then(|| f.f32_or(&key("rope.local_freq_base"), 10_000.0)),
            rope_neox: arch != Arch::Llama,
            sliding_window,
            sliding_pattern: f.u32_or(&key("attention.sliding_window_type"), 6),
            max_pos: d.context_length.unwrap_or(4096).min(MAX_POSITIONS),
            embed_scale: gemma.then(|| (d.hidden as f32).sqrt()),
            gelu: gemma,
            attn_scale: 1.0 / (d.head_dim as f64).sqrt(),
            dims: d,
        })
    }

    pub fn is_sliding(&self, layer: usize) -> bool {
        self.sliding_window.is_some() && (layer + 1) % self.sliding_pattern.max(1) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::Arch;

    /// The validator that runs at import and the decoder must agree on what loads.
    #[test]
    fn validator_and_decoder_support_the_same_architectures() {
        for name in registro_gguf::SUPPORTED_ARCHITECTURES {
            assert!(Arch::parse(name).is_some(), "{name} passes validation but the decoder cannot run it");
        }
        for arch in [Arch::Qwen2, Arch::Qwen3, Arch::Llama, Arch::Gemma3] {
            assert!(registro_gguf::SUPPORTED_ARCHITECTURES.contains(&arch.name()), "{arch:?} is refused at import");
        }
    }
}
