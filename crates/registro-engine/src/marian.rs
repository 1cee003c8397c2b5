//! Marian seq2seq translation (Helsinki-NLP opus-mt) through candle-transformers' `marian`, for users who have
//! those weights: a folder with `config.json`, `model.safetensors`, `tokenizer.json` (source side) and
//! optionally `tokenizer_target.json` (target side, when the vocabularies differ). Greedy decoding.
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::marian;

use crate::device::{self, DeviceChoice};

pub struct Translator {
    // candle's Marian keeps its KV cache inside the model, so calls are serialised.
    model: Mutex<marian::MTModel>,
    cfg: marian::Config,
    source: tokenizers::Tokenizer,
    target: tokenizers::Tokenizer,
    device: Device,
}

fn tokenizer(path: &Path) -> Result<tokenizers::Tokenizer> {
    tokenizers::Tokenizer::from_file(path).map_err(|e| anyhow::anyhow!("{}: cannot load tokenizer: {e}", path.display()))
}

impl Translator {
    pub fn load(dir: &Path, choice: DeviceChoice) -> Result<Self> {
        let device = device::open(choice)?;
        let cfg_path = dir.join("config.json");
        let s = std::fs::read_to_string(&cfg_path).with_context(|| format!("cannot read {}", cfg_path.display()))?;
        let cfg: marian::Config =
            serde_json::from_str(&s).with_context(|| format!("{}: not a Marian config", cfg_path.display()))?;
        let w = dir.join("model.safetensors");
        if !w.exists() {
            bail!("{}: missing model.safetensors", dir.display());
        }
        // SAFETY: the mmap is of a file opened read-only that Registro never writes while a model is loaded; the model
        // manager replaces files by rename, which leaves an existing mapping intact.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&w], DType::F32, &device) }?;
        let model = marian::MTModel::new(&cfg, vb).with_context(|| format!("{}: weights do not match config", dir.display()))?;
        let source = tokenizer(&dir.join("tokenizer.json"))?;
        let tp = dir.join("tokenizer_target.json");
        let target = if tp.exists() { tokenizer(&tp)? } else { source.clone() };
        Ok(Self { model: Mutex::new(model), cfg, source, target, device })
    }

    pub fn translate(&self, text: &str, max_tokens: usize, cancel: &AtomicBool) -> Result<String> {
        let mut ids = self.source.encode(text, true).map_err(|e| anyhow::anyhow!("tokenize: {e}"))?.get_ids().to_vec();
        if ids.last() != Some(&self.cfg.eos_token_id) {
            ids.push(self.cfg.eos_token_id);
        }
        // Positions are a fixed table of max_position_embeddings rows: a longer source used to fail inside candle
        // with an opaque "index-select invalid index", so say what is wrong and what to do.
        let max_pos = self.cfg.max_position_embeddings;
        if ids.len() > max_pos {
            bail!("source text too long for this Marian model: {} tokens, at most {max_pos}; split it into sentences", ids.len());
        }
        let mut model = self.model.lock().map_err(|_| anyhow::anyhow!("marian model poisoned by a panic"))?;
        model.reset_kv_cache();
        let src = Tensor::new(ids.as_slice(), &self.device)?.unsqueeze(0)?;
        let enc = model.encoder().forward(&src, 0)?;
        let mut out = vec![self.cfg.decoder_start_token_id];
        // Step k feeds the decoder position k, so only max_pos steps exist; past them decoding used to fail with an
        // index error and lose everything generated, where a length limit (like HF's max_length) is the answer.
        for step in 0..max_tokens.min(max_pos) {
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            let ctx = if step == 0 { &out[..] } else { &out[out.len() - 1..] };
            let input = Tensor::new(ctx, &self.device)?.unsqueeze(0)?;
            let logits = model.decode(&input, &enc, if step == 0 { 0 } else { out.len() - 1 })?;
            let logits = logits.squeeze(0)?;
            let last = logits.get(logits.dim(0)? - 1)?.to_vec1::<f32>()?;
            let mut best = crate::logits::argmax(&last);
            // Marian checkpoints forbid generating the pad token (HF sets its logit to -inf).
            if best == self.cfg.pad_token_id {
                let mut l = last.clone();
                l[best as usize] = f32::NEG_INFINITY;
                best = crate::logits::argmax(&l);
            }
            if best == self.cfg.eos_token_id {
                break;
            }
            out.push(best);
        }
        self.target.decode(&out[1..], true).map_err(|e| anyhow::anyhow!("detokenize: {e}"))
    }
}
