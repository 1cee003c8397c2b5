//! The engine-backed side of rewriting: one GGUF chat model serves the round trip (as translator), the LLM
//! rewrite (sampled candidates) and fluency (perplexity). Also the model-based formality judges: the embedding
//! variant of the regressor (all-MiniLM-L6-v2 sentence embeddings) and a downloaded XLM-R formality classifier.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use registro_engine::bert::{SentenceEncoder, SequenceClassifier};
use registro_engine::chat::ChatMessage;
use registro_engine::{DeviceChoice, GenerateOptions, Model, NoProcessor, Prefix, Sampling};

use super::{Formality, Lang, Method, Neural, Scorer};

/// The chat model used when `--model` is not given: the instruction-tuned model the setup downloads.

pub struct LlmBackend {
    model: Model,
    /// Attention state of each prompt's system + few-shot block (minimal edit and paraphrase, per language),
    /// keyed by its rendered text and computed once.
    prefixes: HashMap<String, Prefix>,
    /// The English sentence encoder for the meaning axis: tried once, `None` inside when it is not installed.
    encoder: Option<Option<SentenceEncoder>>,
    cancel: AtomicBool,
}

/// The sentence-embedding model the meaning axis uses for English (all-MiniLM-L6-v2 is English-only; other
/// languages are judged by chrF alone rather than by an encoder that does not know them).
const ENGLISH_ENCODER: &str = "all-minilm-l6-v2";

impl LlmBackend {
    pub fn load(id: &str) -> anyhow::Result<Self> {
        let model = crate::models::load_llm(id, Default::default(), None)?;
        Ok(Self { model, prefixes: HashMap::new(), encoder: None, cancel: AtomicBool::new(false) })
    }

    fn encoder(&mut self) -> Option<&SentenceEncoder> {
        self.encoder
            .get_or_insert_with(|| {
                let r = crate::models::resolve(ENGLISH_ENCODER).ok()?;
                SentenceEncoder::load(&r.dir, DeviceChoice::default()).ok()
            })
            .as_ref()
    }

    fn chat(messages: &[(&'static str, String)]) -> Vec<ChatMessage> {
        messages.iter().map(|(r, c)| ChatMessage::new(r, c)).collect()
    }

    fn answer(&mut self, messages: &[(&'static str, String)], n: usize, max_tokens: usize, cache_prefix: bool) -> anyhow::Result<Vec<String>> {
        let full = self.model.info.chat.render(&Self::chat(messages), true)?;
        // Reuse the shared system + few-shot prefix when the rendered conversation extends it textually.
        let mut prefix = None;
        let mut rest = full.as_str();
        if cache_prefix && messages.len() > 1 {
            let head = self.model.info.chat.render(&Self::chat(&messages[..messages.len() - 1]), false)?;
            if full.starts_with(&head) {
                if !self.prefixes.contains_key(&head) {
                    let p = self.model.prefix(&self.model.encode(&head)?)?;
                    self.prefixes.insert(head.clone(), p);
                }
                rest = &full[head.len()..];
                prefix = self.prefixes.get(&head);
            }
        }
        let prompt = self.model.encode(rest)?;
        let sampling = if n <= 1 { Sampling::Greedy } else { Sampling::Sample { temperature: 0.7, top_p: 0.95, top_k: 40, seed: 17 } };
        let opts = GenerateOptions { max_tokens, sampling, stop_strings: vec!["\n".into()], no_repeat_ngram: 4, ..Default::default() };
        let prompts = vec![prompt; n.max(1)];
        let outs = self.model.generate_batch(prefix, &prompts, &opts, &mut NoProcessor, &mut |_| {}, &self.cancel)?;
        Ok(outs.into_iter().map(|g| g.text).collect())
    }

    fn budget(&self, text: &str) -> usize {
        // Formal rewrites run longer than the input; cap so a runaway sample cannot stall a document.
        (self.model.encode(text).map_or(64, |t| t.len()) * 2 + 24).min(256)
    }
}

impl Neural for LlmBackend {
    fn translate(&mut self, text: &str, from: Lang, to: Lang) -> Result<String, String> {
        let msgs = registro_rewrite::prompt::translation_messages(text, from, to);
        let budget = self.budget(text);
        self.answer(&msgs, 1, budget, false).map(|mut v| registro_rewrite::prompt::clean_answer(&v.remove(0))).map_err(|e| format!("{e:#}"))
    }

    fn generate(&mut self, messages: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
        let input = messages.last().map_or("", |m| m.1.as_str()).to_string();
        let budget = self.budget(&input);
        self.answer(messages, n, budget, true).map_err(|e| format!("{e:#}"))
    }

    fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
        self.model.perplexity(text).map_err(|e| format!("{e:#}"))
    }

    fn similarity(&mut self, input: &str, candidates: &[&str], lang: Lang) -> Result<Option<Vec<f64>>, String> {
        if lang != Lang::En {
            return Ok(None);
        }
        let Some(enc) = self.encoder() else { return Ok(None) };
        let mut texts = vec![input];
        texts.extend_from_slice(candidates);
        let e = enc.embed(&texts).map_err(|e| format!("{e:#}"))?;
        let cos = |a: &[f32], b: &[f32]| {
            let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            (dot / (n(a) * n(b)).max(1e-12)) as f64
        };
        Ok(Some(e[1..].iter().map(|c| cos(&e[0], c)).collect()))
    }
}

pub fn backend(method: Method, model: Option<&str>) -> anyhow::Result<Box<dyn Neural>> {
    let id = model.map_or_else(crate::models::default_model, str::to_string);
    // A run made on a server stores `remote:<model>@<API base>`: resuming it reconnects there.
    if let Some((served, url)) = crate::translate::remote::parse_id(&id) {
        let mut cfg = crate::translate::remote::Config::new(&url);
        cfg.model = Some(served);
        let b = super::remote::RemoteNeural::connect(cfg).with_context(|| format!("reconnecting to the run's backend {url}"))?;
        return Ok(Box::new(b));
    }
    let b = LlmBackend::load(&id).with_context(|| format!("--method {} needs a chat model", method.name()))?;
    Ok(Box::new(b))
}

/// The regressor's embedding variant: surface features + all-MiniLM-L6-v2 sentence embeddings.
pub struct EmbeddingFormality {
    pub scorer: Scorer,
    pub encoder: SentenceEncoder,
}

impl EmbeddingFormality {
    pub fn load(weights: &Path) -> anyhow::Result<Self> {
        Self::with_scorer(Scorer::load(weights)?)
    }

    /// Loads the sentence encoder the weights were trained with.
    pub fn with_scorer(scorer: Scorer) -> anyhow::Result<Self> {
        let id = scorer.model.embedding_model.clone().unwrap_or_else(|| "all-minilm-l6-v2".into());
        let r = crate::models::resolve(&id).with_context(|| format!("the embedding scorer needs {id}"))?;
        Ok(Self { scorer, encoder: SentenceEncoder::load(&r.dir, DeviceChoice::default())? })
    }
}

impl Formality for EmbeddingFormality {
    fn formality(&mut self, text: &str, lang: Lang) -> Result<f32, String> {
        let e = self.encoder.embed(&[text]).map_err(|e| format!("{e:#}"))?;
        self.scorer.score(text, lang, Some(e[0].as_slice())).map_err(|e| e.to_string())
    }
    fn name(&self) -> String {
        "registro-embedding".into()
    }
}

/// A downloaded XLM-R formality classifier (e.g. a fine-tuned `xlm-roberta-base` with FORMAL / INFORMAL labels),
/// mapped to the PT16 scale as 6·p(formal) − 3.
pub struct XlmrFormality {
    model: SequenceClassifier,
    formal_label: usize,
    id: String,
}

impl XlmrFormality {
    pub fn load(id: &str) -> anyhow::Result<Self> {
        let r = crate::models::resolve(id)?;
        let model = SequenceClassifier::load(&r.dir, DeviceChoice::default())?;
        let cfg: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(r.dir.join("config.json")).context("config.json")?)?;
        let labels = cfg["id2label"].as_object().context("config.json has no id2label: not a classifier")?;
        let formal_label = labels
            .iter()
            .find(|(_, v)| v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("formal")))
            .and_then(|(k, _)| k.parse().ok())
            .with_context(|| format!("{id}: no label named \"formal\" in id2label {labels:?}"))?;
        Ok(Self { model, formal_label, id: id.to_string() })
    }
}

impl Formality for XlmrFormality {
    fn formality(&mut self, text: &str, _lang: Lang) -> Result<f32, String> {
        let logits = self.model.classify(&[text]).map_err(|e| format!("{e:#}"))?;
        let l = &logits[0];
        let max = l.iter().cloned().fold(f32::MIN, f32::max);
        let z: f32 = l.iter().map(|x| (x - max).exp()).sum();
        let p = (l[self.formal_label] - max).exp() / z;
        Ok(6.0 * p - 3.0)
    }
    fn name(&self) -> String {
        format!("xlmr:{}", self.id)
    }
}

/// Sentence embeddings for scorer training (all-MiniLM-L6-v2 unless another id is given).
pub fn embed_all(id: &str, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
    let r = crate::models::resolve(id)?;
    let enc = SentenceEncoder::load(&r.dir, DeviceChoice::default())?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    enc.embed(&refs)
}
