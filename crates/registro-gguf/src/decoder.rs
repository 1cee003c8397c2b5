//! Whether a checked GGUF file is a decoder Registro's engine can run, with every hyper-parameter it uses
//! derived from (and checked against) the tensors actually present: a file cannot claim 4 billion layers or a
//! head size that would size buffers, because each value must agree with a tensor shape the file pays for in
//! bytes.
use std::collections::BTreeSet;

use crate::{fmt_shape, Gguf, Result};

/// `general.architecture` values the engine's decoder runs (`registro-engine/src/decoder/config.rs`).
pub const SUPPORTED_ARCHITECTURES: [&str; 5] = ["qwen2", "qwen3", "llama", "mistral", "gemma3"];

/// The shape of a decoder, each number consistent with the tensors in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecoderDims {
    pub architecture: String,
    pub n_layer: usize,
    pub n_head: usize,
    pub n_kv_head: usize,
    pub head_dim: usize,
    pub hidden: usize,
    pub vocab: usize,
    /// Feed-forward width of the first layer (each layer's is checked against its own tensors).
    pub ffn: usize,
    /// `{arch}.context_length` when the file sets it (always ≥ 1).
    pub context_length: Option<usize>,
}

/// Checks that `g` is a decoder of a supported architecture whose metadata agrees with its tensors, and returns
/// its dimensions.
pub fn check_decoder(g: &Gguf) -> Result<DecoderDims> {
    let arch = g.architecture()?;
    if !SUPPORTED_ARCHITECTURES.contains(&arch) {
        return Err(g.error(format!(
            "unsupported GGUF architecture {arch:?} (supported: {})",
            SUPPORTED_ARCHITECTURES.join(", ")
        )));
    }
    let key = |k: &str| format!("{arch}.{k}");
    let int = |k: &str| -> Result<Option<usize>> {
        match g.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| g.error(format!("{k} is {}, expected a non-negative integer", v.describe()))),
        }
    };
    let required = |k: &str| -> Result<usize> {
        int(k)?.ok_or_else(|| g.error(format!("GGUF metadata lacks {k}, which every {arch} model file sets")))
    };
    let positive_float = |k: &str| -> Result<()> {
        match g.get(k) {
            None => Ok(()),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && x > 0.0 => Ok(()),
                _ => Err(g.error(format!("{k} is {}, expected a positive number", v.describe()))),
            },
        }
    };

    // Layers: the blk.N tensors present decide; block_count must agree with them.
    let mut layers = BTreeSet::new();
    for t in &g.tensors {
        if let Some(rest) = t.name.strip_prefix("blk.") {
            let n = rest.split('.').next().unwrap_or("");
            let valid = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'));
            match n.parse::<usize>() {
                Ok(i) if valid => {
                    layers.insert(i);
                }
                _ => return Err(g.error(format!("tensor {}: {n:?} is not a layer number", t.name))),
            }
        }
    }
    let present = layers.last().map_or(0, |&l| l + 1);
    let n_layer = required(&key("block_count"))?;
    if n_layer != present {
        let has = match present {
            0 => "no blk.N tensors".to_string(),
            n => format!("tensors for {n} layers (blk.0 to blk.{})", n - 1),
        };
        return Err(g.error(format!("{} is {n_layer}, but the file has {has}; the two must agree", key("block_count"))));
    }
    if n_layer == 0 {
        return Err(g.error(format!("{} is 0: a model needs at least one layer", key("block_count"))));
    }

    let hidden = required(&key("embedding_length"))?;
    let embd = g
        .tensor("token_embd.weight")
        .ok_or_else(|| g.error("tensor token_embd.weight is missing (every decoder has one)"))?;
    if embd.ne.len() != 2 || embd.ne[0] != hidden as u64 {
        return Err(g.error(format!(
            "tensor token_embd.weight has shape {}, but {} is {hidden}: expected [{hidden}, vocabulary size]",
            embd.shape(),
            key("embedding_length")
        )));
    }
    let vocab = embd.ne[1] as usize;

    let n_head = required(&key("attention.head_count"))?;
    let n_kv_head = int(&key("attention.head_count_kv"))?.unwrap_or(n_head);
    if n_head == 0 || n_kv_head == 0 || n_head % n_kv_head != 0 {
        return Err(g.error(format!(
            "{n_head} attention heads cannot share {n_kv_head} KV heads ({} / {})",
            key("attention.head_count"),
            key("attention.head_count_kv")
        )));
    }
    let head_dim = match int(&key("attention.key_length"))? {
        Some(d) => d,
        None if hidden % n_head == 0 => hidden / n_head,
        None => {
            return Err(g.error(format!(
                "{} {hidden} is not divisible by {n_head} heads and {} is missing",
                key("embedding_length"),
                key("attention.key_length")
            )))
        }
    };
    if head_dim == 0 || head_dim % 2 != 0 {
        return Err(
            g.error(format!("the attention head size is {head_dim}; rotary embeddings need a positive even size"))
        );
    }
    if let Some(v) = int(&key("attention.value_length"))? {
        if v != head_dim {
            return Err(g.error(format!(
                "{} {v} differs from the key head size {head_dim}; Registro supports equal key and value heads",
                key("attention.value_length")
            )));
        }
    }
    if let Some(r) = int(&key("rope.dimension_count"))? {
        if r != head_dim {
            return Err(g.error(format!(
                "partial rotary embeddings ({} {r}, head size {head_dim}) are not supported",
                key("rope.dimension_count")
            )));
        }
    }
    let context_length = int(&key("context_length"))?;
    if context_length == Some(0) {
        return Err(g.error(format!("{} is 0", key("context_length"))));
    }
    positive_float(&key("rope.freq_base"))?;
    positive_float(&key("rope.local_freq_base"))?;
    if let Some(v) = g.get(&key("attention.layer_norm_rms_epsilon")) {
        if !v.as_f64().is_some_and(|e| e.is_finite() && e >= 0.0) {
            return Err(g.error(format!(
                "{} is {}, expected a small non-negative number",
                key("attention.layer_norm_rms_epsilon"),
                v.describe()
            )));
        }
    }

    let q_rows =
        n_head.checked_mul(head_dim).ok_or_else(|| g.error(format!("{n_head} heads × {head_dim} overflows")))? as u64;
    let kv_rows = (n_kv_head * head_dim) as u64; // ≤ q_rows
    let h = hidden as u64;
    let why =
        format!("{} {hidden}, {n_head} heads and {n_kv_head} KV heads of size {head_dim}", key("embedding_length"));
    let expect = |name: &str, want: &[u64]| -> Result<()> {
        let t = g.tensor(name).ok_or_else(|| {
            g.error(format!("tensor {name} is missing ({} says the model has {n_layer} layers)", key("block_count")))
        })?;
        if t.ne != want {
            return Err(g.error(format!(
                "tensor {name} has shape {}, but {why} require {}",
                t.shape(),
                fmt_shape(want)
            )));
        }
        Ok(())
    };
    let optional = |name: &str, want: &[u64]| -> Result<bool> {
        match g.tensor(name) {
            Some(_) => expect(name, want).map(|_| true),
            None => Ok(false),
        }
    };

    expect("output_norm.weight", &[h])?;
    optional("output.weight", &[h, vocab as u64])?;
    let mut ffn0 = 0;
    for i in 0..n_layer {
        let p = |n: &str| format!("blk.{i}.{n}");
        expect(&p("attn_q.weight"), &[h, q_rows])?;
        expect(&p("attn_k.weight"), &[h, kv_rows])?;
        expect(&p("attn_v.weight"), &[h, kv_rows])?;
        expect(&p("attn_output.weight"), &[q_rows, h])?;
        expect(&p("attn_norm.weight"), &[h])?;
        expect(&p("ffn_norm.weight"), &[h])?;
        let gate = p("ffn_gate.weight");
        let ffn = match g.tensor(&gate) {
            Some(t) if t.ne.len() == 2 && t.ne[0] == h => t.ne[1],
            Some(t) => {
                return Err(g.error(format!(
                    "tensor {gate} has shape {}, but {} {hidden} requires [{hidden}, feed-forward width]",
                    t.shape(),
                    key("embedding_length")
                )))
            }
            None => {
                return Err(g.error(format!("tensor {gate} is missing ({} says {n_layer} layers)", key("block_count"))))
            }
        };
        expect(&p("ffn_up.weight"), &[h, ffn])?;
        expect(&p("ffn_down.weight"), &[ffn, h])?;
        // The engine adds all three biases when the first is there.
        if optional(&p("attn_q.bias"), &[q_rows])? {
            expect(&p("attn_k.bias"), &[kv_rows])?;
            expect(&p("attn_v.bias"), &[kv_rows])?;
        }
        optional(&p("attn_q_norm.weight"), &[head_dim as u64])?;
        optional(&p("attn_k_norm.weight"), &[head_dim as u64])?;
        optional(&p("post_attention_norm.weight"), &[h])?;
        optional(&p("post_ffw_norm.weight"), &[h])?;
        if i == 0 {
            ffn0 = ffn as usize;
        }
    }
    Ok(DecoderDims {
        architecture: arch.to_string(),
        n_layer,
        n_head,
        n_kv_head,
        head_dim,
        hidden,
        vocab,
        ffn: ffn0,
        context_length,
    })
}
