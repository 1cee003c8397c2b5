//! The model behind the control layer: anything that continues a (cached) prefix with one or N candidates under
//! optional constraints. [`EngineGenerator`] is the candle engine; the trait keeps the control layer testable and
//! open to other backends.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// One segment's decoding job in a document-level call ([`Generator::generate_many`]).
#[derive(Clone, Debug)]
pub struct GenRequest {
    pub prefix: String,
    pub turn: String,
    /// Candidates wanted (1 = greedy).
    pub n: usize,
    pub max_tokens: usize,
    pub constraints: Constraints,
}

/// Called once per finished request with its index in the call; an error stops the call.
pub type OnDone<'a> = &'a mut dyn FnMut(usize, anyhow::Result<Vec<Generated>>) -> anyhow::Result<()>;

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
    /// A whole document's requests: `on_done` sees each one as it finishes, in any order (a backend schedules
    /// them as it can: batched rows, requests in flight). After a cancel no further `on_done` is called and a
    /// request cut short is never reported, so a caller stores only complete segments. The default runs them
    /// one after the other.
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        for (i, r) in requests.iter().enumerate() {
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            let g = self.generate(&r.prefix, &r.turn, r.n, r.max_tokens, &r.constraints, cancel);
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            on_done(i, g)?;
        }
        Ok(())
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
    /// Rows decoded together by [`Generator::generate_many`].
    batch_rows: usize,
}

impl EngineGenerator {
    pub fn load(id_or_path: &str) -> anyhow::Result<Self> {
        let model = crate::models::load_llm(id_or_path, Default::default(), None)?;
        Ok(Self::from_model(model, id_or_path))
    }

    pub fn from_model(model: Model, id: &str) -> Self {
        let format = ChatFormat::for_model(&model.info);
        EngineGenerator { model, id: id.to_string(), stops: format.stops(), format, prefixes: HashMap::new(), bias_cache: HashMap::new(), batch_rows: batch_rows() }
    }

    /// Decode at most `rows` segments together (1 = one after the other, the old path).
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = rows.clamp(1, 64);
        self
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
        let pre = self.cached_prefix(prefix)?;
        let prompt = self.model.encode(turn)?;
        let opts = self.options(max_tokens);
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

    /// Greedy requests that continue the same prefix under the same constraints are decoded together, up to
    /// [`batch_rows`] rows at once (one matrix product per layer serves every row, which is where a CPU's
    /// throughput is); n-best requests run one by one (their beams are already a batch).
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        let rows = self.batch_rows;
        let mut pending: Vec<usize> = Vec::new();
        let same_batch = |a: &GenRequest, b: &GenRequest| a.prefix == b.prefix && a.constraints == b.constraints;
        for (i, r) in requests.iter().enumerate() {
            if r.n <= 1 {
                if pending.first().is_some_and(|&j| !same_batch(&requests[j], r)) || pending.len() >= rows {
                    if !self.greedy_batch(requests, &std::mem::take(&mut pending), cancel, on_done)? {
                        return Ok(());
                    }
                }
                pending.push(i);
                continue;
            }
            if !self.greedy_batch(requests, &std::mem::take(&mut pending), cancel, on_done)? || cancel.load(Ordering::SeqCst) {
                return Ok(());
            }
            let g = self.generate(&r.prefix, &r.turn, r.n, r.max_tokens, &r.constraints, cancel);
            if cancel.load(Ordering::SeqCst) {
                return Ok(());
            }
            on_done(i, g)?;
        }
        self.greedy_batch(requests, &pending, cancel, on_done)?;
        Ok(())
    }
}

/// Rows decoded together. Each row holds its own copy of the prefix's KV cache, so memory grows with it; 8 keeps a
/// 1.5B model's batch under ~0.5 GB with a few-shot prefix. `REGISTRO_BATCH_ROWS` overrides it (1 = sequential).
pub fn batch_rows() -> usize {
    std::env::var("REGISTRO_BATCH_ROWS").ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|&n| n >= 1).unwrap_or(8).min(64)
}

impl EngineGenerator {
    /// Decodes `idx` (greedy requests sharing prefix and constraints) as one batch and reports each. `false` when
    /// cancelled: rows cut short are not reported.
    fn greedy_batch(&mut self, requests: &[GenRequest], idx: &[usize], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<bool> {
        let Some(&first) = idx.first() else { return Ok(true) };
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let head = &requests[first];
        let result = (|| -> anyhow::Result<Vec<Generated>> {
            let pre = self.cached_prefix(&head.prefix)?;
            let prompts = idx.iter().map(|&i| self.model.encode(&requests[i].turn)).collect::<Result<Vec<_>, _>>()?;
            let opts = self.options(idx.iter().map(|&i| requests[i].max_tokens).max().unwrap_or(0));
            let mut bias = if head.constraints.is_empty() { None } else { Some(self.bias(&head.constraints)?) };
            let mut none = NoProcessor;
            let proc: &mut dyn registro_engine::LogitsProcessor = match bias.as_mut() {
                Some(b) => b,
                None => &mut none,
            };
            let gens = self.model.generate_batch(Some(&pre), &prompts, &opts, proc, &mut |_| {}, cancel)?;
            Ok(gens.into_iter().map(|g| Generated { text: g.text.trim().to_string(), logprob: g.logprob, tokens: g.tokens.len() }).collect())
        })();
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        match result {
            Ok(gens) => {
                for (&i, g) in idx.iter().zip(gens) {
                    // A cancel from a batch-mate's report stops here too: nothing is reported after a cancel.
                    if cancel.load(Ordering::SeqCst) {
                        return Ok(false);
                    }
                    on_done(i, Ok(vec![g]))?;
                }
            }
            // One failure (a prompt past the context length, say) must not sink its batch-mates: retry them alone
            // so each segment gets its own result or error.
            Err(_) if idx.len() > 1 => {
                for &i in idx {
                    if !self.greedy_batch(requests, &[i], cancel, on_done)? {
                        return Ok(false);
                    }
                }
            }
            Err(e) => on_done(first, Err(e))?,
        }
        Ok(true)
    }

    fn cached_prefix(&mut self, prefix: &str) -> anyhow::Result<Prefix> {
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
        Ok(self.prefixes.get(prefix).expect("prefix cached above").clone())
    }

    fn options(&self, max_tokens: usize) -> GenerateOptions {
        // A repeated 4-gram in one sentence is almost always a small model looping, never a translation.
        GenerateOptions { max_tokens, stop_strings: self.stops.clone(), no_repeat_ngram: 4, ..Default::default() }
    }
}
