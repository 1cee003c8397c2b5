//! The model behind the control layer: anything that continues a (cached) prefix with one or N candidates under
//! optional constraints. [`EngineGenerator`] is the candle engine; the trait keeps the control layer testable and
//! open to other backends.
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use registro_engine::{GenerateOptions, Model, NoProcessor, Prefix, SequenceBias};

use super::constrain::Constraints;
use super::prompt::ChatFormat;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Generated {
    pub text: String,
    /// Sum of token log-probabilities.
    pub logprob: f32,
    pub tokens: usize,
}

impl Generated {
    /// Length-normalised log-probability (the model score used in reranking).
    pub fn score(&self) -> f32 {
        self.logprob / self.tokens.max(1) as f32
    }
}

pub trait Generator {
    /// Model id or file shown in runs.
    fn id(&self) -> String;
    fn chat_format(&self) -> &ChatFormat;
    /// `n` candidates (best first) continuing `prefix` + `turn`; `n == 1` is greedy decoding.
    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max_tokens: usize, constraints: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>>;
    /// What a run's parameters record about where the model runs; `null` for a local model.
    fn describe(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// A GGUF decoder model through `registro-engine`, with its prefix KV cache kept per distinct prefix.
pub struct EngineGenerator {
    model: Model,
    id: String,
    format: ChatFormat,
    /// The format's stop strings, worked out once (a template's end-of-turn marker is read off a rendering).
    stops: Vec<String>,
    prefixes: HashMap<String, Prefix>,
    bias_cache: HashMap<String, SequenceBias>,
}

impl EngineGenerator {
    pub fn load(id_or_path: &str) -> anyhow::Result<Self> {
        let model = crate::models::load_llm(id_or_path, Default::default(), None)?;
        Ok(Self::from_model(model, id_or_path))
    }

    pub fn from_model(model: Model, id: &str) -> Self {
        let format = ChatFormat::for_model(&model.info);
        EngineGenerator { model, id: id.to_string(), stops: format.stops(), format, prefixes: HashMap::new(), bias_cache: HashMap::new() }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    fn bias(&mut self, c: &Constraints) -> anyhow::Result<SequenceBias> {
        let key = serde_json::to_string(c)?;
        if let Some(b) = self.bias_cache.get(&key) {
            return Ok(b.clone());
        }
        let mut b = SequenceBias::new();
        // A marker can start the output, follow a space, or (Japanese) sit anywhere.
        let variants = |w: &str| -> Vec<String> {
            if w.starts_with('-') || !w.is_ascii() && w.chars().any(|c| ('\u{3040}'..='\u{30FF}').contains(&c)) {
                vec![w.to_string()]
            } else {
                vec![format!(" {w}"), w.to_string()]
            }
        };
        for w in &c.ban {
            for v in variants(w) {
                let ids = self.model.encode(&v)?;
                if !ids.is_empty() {
                    b.ban(&ids);
                }
            }
        }
        for (w, bias) in &c.boost {
            for v in variants(w) {
                let ids = self.model.encode(&v)?;
                // Only single-token markers get a boost: a boost on the last token of a longer sequence would
                // fire only once its head is already there, which is not a nudge.
                if ids.len() == 1 {
                    b.add(&ids, *bias);
                }
            }
        }
        self.bias_cache.insert(key, b.clone());
        Ok(b)
    }
}

impl Generator for EngineGenerator {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn chat_format(&self) -> &ChatFormat {
        &self.format
    }

    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max_tokens: usize, constraints: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        if !self.prefixes.contains_key(prefix) {
            // Keep a handful of prefixes: a document uses one, contrastive mode two.
            if self.prefixes.len() >= 4 {
                self.prefixes.clear();
            }
            let mut toks = self.model.bos_prefix();
            toks.extend(self.model.encode(prefix)?);
            let p = self.model.prefix(&toks)?;
            self.prefixes.insert(prefix.to_string(), p);
        }
        let pre = self.prefixes.get(prefix).expect("prefix cached above").clone();
        let prompt = self.model.encode(turn)?;
        // A repeated 4-gram in one sentence is almost always a small model looping, never a translation.
        let opts = GenerateOptions { max_tokens, stop_strings: self.stops.clone(), no_repeat_ngram: 4, ..Default::default() };
        let mut bias = if constraints.is_empty() { None } else { Some(self.bias(constraints)?) };
        let mut none = NoProcessor;
        let proc: &mut dyn registro_engine::LogitsProcessor = match bias.as_mut() {
            Some(b) => b,
            None => &mut none,
        };
        if n <= 1 {
            let g = self.model.generate(Some(&pre), &prompt, &opts, proc, &mut |_| {}, cancel)?;
            Ok(vec![Generated { text: g.text.trim().to_string(), logprob: g.logprob, tokens: g.tokens.len() }])
        } else {
            let hyps = self.model.nbest(Some(&pre), &prompt, &opts, n, n, proc, cancel)?;
            Ok(hyps.into_iter().map(|h| Generated { text: h.text.trim().to_string(), logprob: h.logprob, tokens: h.tokens.len() }).collect())
        }
    }
}
