//! Tiny random-weight models written as real files, so every architecture is exercised end to end without
//! downloads.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use registro_engine::TextCodec;

pub const VOCAB: usize = 96;
pub const HIDDEN: usize = 64;
const FFN: usize = 128;
const LAYERS: usize = 3;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const HEAD_DIM: usize = 16;

/// Widths of a generated decoder. `TINY` is the default; `KQUANT` has every inner dimension a multiple of 256
/// (the K-quant super-block) and every output dimension a multiple of 16, so Q4_K / Q6_K weights take the
/// engine's packed CPU kernels.
#[derive(Clone, Copy)]
pub struct Dims {
    pub hidden: usize,
    pub ffn: usize,
    pub head_dim: usize,
}

impl Dims {
    pub const TINY: Dims = Dims { hidden: HIDDEN, ffn: FFN, head_dim: HEAD_DIM };
    pub const KQUANT: Dims = Dims { hidden: 256, ffn: 512, head_dim: 64 };
}

/// Deterministic pseudo-random values in [-scale, scale].
fn rand_vec(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

/// A tensor of deterministic pseudo-random values in [-scale, scale].
pub fn rnd(shape: &[usize], seed: u64, scale: f32) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(rand_vec(n, seed, scale), shape, &Device::Cpu).unwrap()
}

pub fn ones(n: usize) -> Tensor {
    Tensor::ones(n, candle_core::DType::F32, &Device::Cpu).unwrap()
}

fn q(shape: &[usize], seed: u64, scale: f32, dtype: GgmlDType) -> QTensor {
    QTensor::quantize(&rnd(shape, seed, scale), dtype).unwrap()
}

fn norm_of(len: usize, seed: u64) -> QTensor {
    let v: Vec<f32> = rand_vec(len, seed, 0.2).into_iter().map(|x| 1.0 + x).collect();
    QTensor::quantize(&Tensor::from_vec(v, len, &Device::Cpu).unwrap(), GgmlDType::F32).unwrap()
}

/// Writes a tiny GGUF decoder of architecture `arch` (`qwen2`, `qwen3`, `llama`, `gemma3`) with weights of
/// type `wtype` (Q8_0, Q5_0, Q4_0 …) and returns its path.
pub fn tiny_gguf(dir: &Path, arch: &str, wtype: GgmlDType) -> PathBuf {
    tiny_gguf_with(dir, arch, wtype, Dims::TINY, false)
}

/// As [`tiny_gguf`] with the given widths; with `dequantized`, every weight is quantized to `wtype` and
/// stored back as F32, so the file computes the same function with exact f32 arithmetic (a reference for the
/// quantized kernels).
pub fn tiny_gguf_with(dir: &Path, arch: &str, wtype: GgmlDType, dims: Dims, dequantized: bool) -> PathBuf {
    use gguf_file::Value as V;
    let Dims { hidden, ffn, head_dim } = dims;
    let q = |shape: &[usize], seed: u64, scale: f32, dtype: GgmlDType| -> QTensor {
        let t = q(shape, seed, scale, dtype);
        match dequantized && dtype == wtype {
            true => QTensor::quantize(&t.dequantize(&Device::Cpu).unwrap(), GgmlDType::F32).unwrap(),
            false => t,
        }
    };
    let norm = |seed| norm_of(hidden, seed);
    // Keep activations and logits at the tiny model's scale whatever the width (weights ~ 1/sqrt(fan-in)).
    let width_scale = (HIDDEN as f32 / hidden as f32).sqrt();
    let head_norm = |seed| norm_of(head_dim, seed);
    let mut md: Vec<(String, V)> = vec![
        ("general.architecture".into(), V::String(arch.into())),
        ("general.name".into(), V::String(format!("tiny-{arch}"))),
        (format!("{arch}.attention.head_count"), V::U32(HEADS as u32)),
        (format!("{arch}.attention.head_count_kv"), V::U32(KV_HEADS as u32)),
        (format!("{arch}.embedding_length"), V::U32(hidden as u32)),
        (format!("{arch}.block_count"), V::U32(LAYERS as u32)),
        (format!("{arch}.context_length"), V::U32(4096)),
        (format!("{arch}.attention.layer_norm_rms_epsilon"), V::F32(1e-6)),
        (format!("{arch}.rope.freq_base"), V::F32(10000.0)),
        (format!("{arch}.feed_forward_length"), V::U32(ffn as u32)),
        ("tokenizer.ggml.eos_token_id".into(), V::U32(1)),
        ("tokenizer.ggml.bos_token_id".into(), V::U32(2)),
    ];
    let gemma = arch == "gemma3";
    let qwen3 = arch == "qwen3";
    if gemma || qwen3 {
        md.push((format!("{arch}.attention.key_length"), V::U32(head_dim as u32)));
        md.push((format!("{arch}.attention.value_length"), V::U32(head_dim as u32)));
    }
    if gemma {
        // A small window so short test sequences cross it.
        md.push((format!("{arch}.attention.sliding_window"), V::U32(5)));
        md.push((format!("{arch}.attention.sliding_window_type"), V::U32(2)));
        md.push((format!("{arch}.rope.local_freq_base"), V::F32(100.0)));
    }
    let mut ts: Vec<(String, QTensor)> = vec![
        ("token_embd.weight".into(), q(&[VOCAB, hidden], 1, width_scale, GgmlDType::Q8_0)),
        ("output_norm.weight".into(), norm(2)),
    ];
    if arch != "qwen2" {
        ts.push(("output.weight".into(), q(&[VOCAB, hidden], 3, 0.5 * width_scale, wtype)));
    }
    let qd = HEADS * head_dim;
    let kd = KV_HEADS * head_dim;
    for l in 0..LAYERS {
        let s = 100 + l as u64 * 50;
        let p = format!("blk.{l}");
        let sc = 0.3 * width_scale;
        ts.push((format!("{p}.attn_q.weight"), q(&[qd, hidden], s, sc, wtype)));
        ts.push((format!("{p}.attn_k.weight"), q(&[kd, hidden], s + 1, sc, wtype)));
        ts.push((format!("{p}.attn_v.weight"), q(&[kd, hidden], s + 2, sc, wtype)));
        ts.push((format!("{p}.attn_output.weight"), q(&[hidden, qd], s + 3, sc, wtype)));
        ts.push((format!("{p}.ffn_gate.weight"), q(&[ffn, hidden], s + 4, sc, wtype)));
        ts.push((format!("{p}.ffn_up.weight"), q(&[ffn, hidden], s + 5, sc, wtype)));
        ts.push((format!("{p}.ffn_down.weight"), q(&[hidden, ffn], s + 6, sc, wtype)));
        ts.push((format!("{p}.attn_norm.weight"), norm(s + 7)));
        ts.push((format!("{p}.ffn_norm.weight"), norm(s + 8)));
        if arch == "qwen2" {
            ts.push((format!("{p}.attn_q.bias"), q(&[qd], s + 9, 0.1, GgmlDType::F32)));
            ts.push((format!("{p}.attn_k.bias"), q(&[kd], s + 10, 0.1, GgmlDType::F32)));
            ts.push((format!("{p}.attn_v.bias"), q(&[kd], s + 11, 0.1, GgmlDType::F32)));
        }
        if gemma || qwen3 {
            ts.push((format!("{p}.attn_q_norm.weight"), head_norm(s + 12)));
            ts.push((format!("{p}.attn_k_norm.weight"), head_norm(s + 13)));
        }
        if gemma {
            ts.push((format!("{p}.post_attention_norm.weight"), norm(s + 14)));
            ts.push((format!("{p}.post_ffw_norm.weight"), norm(s + 15)));
        }
    }
    let path = dir.join(format!("tiny-{arch}-{wtype:?}-{hidden}{}.gguf", if dequantized { "-f32" } else { "" }));
    let mut f = std::fs::File::create(&path).unwrap();
    let md_refs: Vec<(&str, &V)> = md.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let t_refs: Vec<(&str, &QTensor)> = ts.iter().map(|(k, v)| (k.as_str(), v)).collect();
    gguf_file::write(&mut f, &md_refs, &t_refs).unwrap();
    path
}

/// Token i ↔ the character `' ' + i` (ids 0..3 are special and decode to nothing).
pub struct CharCodec;

impl TextCodec for CharCodec {
    fn encode(&self, text: &str, _add_special: bool) -> anyhow::Result<Vec<u32>> {
        text.chars()
            .map(|c| {
                let i = c as u32;
                anyhow::ensure!((32 + 4..32 + VOCAB as u32).contains(&i), "char {c:?} not in tiny vocab");
                Ok(i - 32)
            })
            .collect()
    }
    fn decode(&self, ids: &[u32], _skip: bool) -> anyhow::Result<String> {
        Ok(ids.iter().filter(|&&i| i >= 4).map(|&i| char::from_u32(i + 32).unwrap()).collect())
    }
    fn token_id(&self, _t: &str) -> Option<u32> {
        None
    }
}

pub fn shared_data_models() -> Option<PathBuf> {
    let p = std::env::var_os("REGISTRO_ENGINE_FILES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root/.cache/registro/engine"));
    p.exists().then_some(p)
}

/// How far the summed log-probabilities of ~10 tokens may drift between one row and a batch (or a scoring pass)
/// while the tokens agree exactly. On the CPU the kernels are the same for every row count. On a GPU, cuBLAS picks
/// other kernels, with other summation orders, for one row than for a batch: 1.1e-3 and 1.5e-3 apart on an H200.
#[allow(dead_code)]
pub fn logprob_tolerance(m: &registro_engine::Model) -> f32 {
    if m.info.device.starts_with("cpu") { 1e-3 } else { 5e-3 }
}
