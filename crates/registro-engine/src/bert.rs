//! BERT-family encoders from safetensors: sentence embeddings (all-MiniLM-L6-v2 style: mean pooling, then L2
//! normalisation when the sentence-transformers `modules.json` lists a Normalize step) and XLM-RoBERTa sequence
//! classification (formality classifiers). Both read a Hugging Face model folder: `config.json`,
//! `model.safetensors`, `tokenizer.json`.
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use candle_core::{DType, Device, Tensor, D};
use candle_nn::VarBuilder;
use candle_transformers::models::{bert, xlm_roberta};

use crate::device::{self, DeviceChoice};

pub(crate) fn need(dir: &Path, name: &str) -> Result<PathBuf> {
    let p = dir.join(name);
    if !p.exists() {
        bail!("{}: missing {name}", dir.display());
    }
    Ok(p)
}

pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let s = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&s).with_context(|| format!("{}: invalid or unsupported config", path.display()))
}

/// Loads `tokenizer.json` with its own padding and truncation switched off: many exports (all-MiniLM-L6-v2
/// included) ship `padding: Fixed(128)` / `truncation: 128`, which would make every `encode` return `[PAD]`
/// tokens that `encode_batch` counts as real (attention mask 1, included in mean pooling). Padding and
/// truncation are done by `encode_batch` itself, like sentence-transformers / transformers do.
pub(crate) fn load_tokenizer(dir: &Path) -> Result<tokenizers::Tokenizer> {
    let mut tok = tokenizers::Tokenizer::from_file(need(dir, "tokenizer.json")?)
        .map_err(|e| anyhow::anyhow!("{}: cannot load tokenizer.json: {e}", dir.display()))?;
    tok.with_padding(None);
    tok.with_truncation(None).map_err(|e| anyhow::anyhow!("{}: tokenizer.json: {e}", dir.display()))?;
    Ok(tok)
}

fn weights(dir: &Path, device: &Device) -> Result<VarBuilder<'static>> {
    weights_from(&need(dir, "model.safetensors")?, device)
}

pub(crate) fn weights_from(p: &Path, device: &Device) -> Result<VarBuilder<'static>> {
    // SAFETY: the mmap is of a file opened read-only that Registro never writes while a model is loaded; the model
    // manager replaces files by rename, which leaves an existing mapping intact.
    unsafe { VarBuilder::from_mmaped_safetensors(&[p], DType::F32, device) }
        .map_err(|e| anyhow::anyhow!("{}: cannot read weights: {e}", p.display()))
}

/// Token ids and attention mask of a padded batch.
pub(crate) struct Batch {
    pub ids: Tensor,
    pub mask: Tensor,
    pub types: Tensor,
}

pub(crate) fn encode_batch(tok: &tokenizers::Tokenizer, texts: &[&str], max_len: usize, pad: u32, dev: &Device) -> Result<Batch> {
    let mut rows = Vec::with_capacity(texts.len());
    for t in texts {
        let enc = tok.encode(*t, true).map_err(|e| anyhow::anyhow!("tokenize: {e}"))?;
        let mut ids = enc.get_ids().to_vec();
        if ids.len() > max_len {
            // Keep the closing special token ([SEP] / </s>) as the reference implementations do.
            let last = *ids.last().unwrap();
            ids.truncate(max_len);
            ids[max_len - 1] = last;
        }
        rows.push(ids);
    }
    let len = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
    let mut ids = Vec::with_capacity(rows.len() * len);
    let mut mask = Vec::with_capacity(rows.len() * len);
    for r in &rows {
        ids.extend_from_slice(r);
        ids.extend(std::iter::repeat(pad).take(len - r.len()));
        mask.extend(std::iter::repeat(1u32).take(r.len()));
        mask.extend(std::iter::repeat(0u32).take(len - r.len()));
    }
    let b = rows.len();
    Ok(Batch {
        ids: Tensor::from_vec(ids, (b, len), dev)?,
        mask: Tensor::from_vec(mask, (b, len), dev)?,
        types: Tensor::zeros((b, len), DType::U32, dev)?,
    })
}

pub struct SentenceEncoder {
    model: bert::BertModel,
    tokenizer: tokenizers::Tokenizer,
    normalize: bool,
    max_len: usize,
    pad: u32,
    pub dim: usize,
    device: Device,
}

/// Cosine similarity of two sentence embeddings (the meaning measure of rewrite reranking and of `eval`'s Sim).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    (dot / (n(a) * n(b)).max(1e-12)) as f64
}

impl SentenceEncoder {
    pub fn load(dir: &Path, choice: DeviceChoice) -> Result<Self> {
        let device = device::open(choice)?;
        let cfg: bert::Config = read_json(&need(dir, "config.json")?)?;
        let tokenizer = load_tokenizer(dir)?;
        let vb = weights(dir, &device)?;
        let model = bert::BertModel::load(vb, &cfg).with_context(|| format!("{}: not a BERT model", dir.display()))?;
        let normalize = std::fs::read_to_string(dir.join("modules.json")).is_ok_and(|s| s.contains("Normalize"));
        let max_len = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|v| v["max_seq_length"].as_u64())
            .map_or(cfg.max_position_embeddings, |m| m as usize)
            .min(cfg.max_position_embeddings);
        Ok(Self { model, tokenizer, normalize, max_len, pad: cfg.pad_token_id as u32, dim: cfg.hidden_size, device })
    }

    /// One embedding per text (mean of the token vectors, L2-normalised when the model says so).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(32) {
            let b = encode_batch(&self.tokenizer, chunk, self.max_len, self.pad, &self.device)?;
            let h = self.model.forward(&b.ids, &b.types, Some(&b.mask))?;
            let m = b.mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let sum = h.broadcast_mul(&m)?.sum(1)?;
            let n = m.sum(1)?;
            let mut e = sum.broadcast_div(&n)?;
            if self.normalize {
                let norm = e.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
                e = e.broadcast_div(&norm)?;
            }
            out.extend(e.to_vec2::<f32>()?);
        }
        Ok(out)
    }
}

pub struct SequenceClassifier {
    model: xlm_roberta::XLMRobertaForSequenceClassification,
    tokenizer: tokenizers::Tokenizer,
    /// Label names by class index (`id2label` in config.json).
    pub labels: Vec<String>,
    max_len: usize,
    pad: u32,
    device: Device,
}

impl SequenceClassifier {
    pub fn load(dir: &Path, choice: DeviceChoice) -> Result<Self> {
        let device = device::open(choice)?;
        let cfg_path = need(dir, "config.json")?;
        let raw: serde_json::Value = read_json(&cfg_path)?;
        let kind = raw["model_type"].as_str().unwrap_or("");
        if !matches!(kind, "xlm-roberta" | "roberta") {
            bail!("{}: model_type {kind:?} is not supported for classification (xlm-roberta, roberta)", cfg_path.display());
        }
        let cfg: xlm_roberta::Config = read_json(&cfg_path)?;
        let mut labels: Vec<(usize, String)> = raw["id2label"]
            .as_object()
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.parse().ok()?, v.as_str()?.to_string()))).collect())
            .unwrap_or_default();
        labels.sort();
        let labels: Vec<String> = if labels.is_empty() {
            vec!["LABEL_0".into(), "LABEL_1".into()]
        } else {
            labels.into_iter().map(|(_, l)| l).collect()
        };
        let tokenizer = load_tokenizer(dir)?;
        let vb = weights(dir, &device)?;
        let model = xlm_roberta::XLMRobertaForSequenceClassification::new(labels.len(), &cfg, vb)
            .with_context(|| format!("{}: weights do not match an XLM-R classifier", dir.display()))?;
        // RoBERTa position ids start after the padding index, so two positions are unusable.
        let max_len = cfg.max_position_embeddings.saturating_sub(2).max(1);
        Ok(Self { model, tokenizer, labels, max_len, pad: cfg.pad_token_id, device })
    }

    /// Class probabilities per text, in `labels` order.
    pub fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(16) {
            let b = encode_batch(&self.tokenizer, chunk, self.max_len, self.pad, &self.device)?;
            let logits = self.model.forward(&b.ids, &b.mask, &b.types)?;
            let p = candle_nn::ops::softmax_last_dim(&logits.to_dtype(DType::F32)?)?;
            out.extend(p.to_vec2::<f32>()?);
        }
        Ok(out)
    }
}
