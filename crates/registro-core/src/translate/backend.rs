//! The model behind the control layer: anything that continues a (cached) prefix with one or N candidates under
//! optional constraints. [`EngineGenerator`] is the candle engine; the trait keeps the control layer testable and
//! open to other backends.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use registro_engine::{FinishReason, GenerateOptions, Model, NoProcessor, Prefix, SequenceBias};

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
    /// Rows decoded together by [`Generator::generate_many`]; `None`: the engine's choice per document.
    batch_rows: Option<usize>,
}

impl EngineGenerator {
    pub fn load(id_or_path: &str) -> anyhow::Result<Self> {
        let model = crate::models::load_llm(id_or_path, Default::default(), None)?;
        Ok(Self::from_model(model, id_or_path))
    }

    pub fn from_model(model: Model, id: &str) -> Self {
        let format = ChatFormat::for_model(&model.info);
        EngineGenerator { model, id: id.to_string(), stops: format.stops(), format, prefixes: HashMap::new(), bias_cache: HashMap::new(), batch_rows: batch_rows_override() }
    }

    /// Decode at most `rows` segments together (1 = one after the other, the old path).
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = Some(rows.clamp(1, 64));
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

    /// Greedy requests that continue the same prefix under the same constraints are decoded together by
    /// continuous batching: [`batch_rows`] rows in flight, a finished row's slot taken by the next segment (one
    /// matrix product per layer serves every row, which is where a CPU's throughput is); n-best requests run one
    /// by one (their beams are already a batch).
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        let same_batch = |a: &GenRequest, b: &GenRequest| a.prefix == b.prefix && a.constraints == b.constraints;
        let mut i = 0;
        while i < requests.len() {
            if cancel.load(Ordering::SeqCst) {
                return Ok(());
            }
            let r = &requests[i];
            if r.n > 1 {
                let g = self.generate(&r.prefix, &r.turn, r.n, r.max_tokens, &r.constraints, cancel);
                if cancel.load(Ordering::SeqCst) {
                    return Ok(());
                }
                on_done(i, g)?;
                i += 1;
                continue;
            }
            let end = (i..requests.len()).find(|&j| requests[j].n > 1 || !same_batch(r, &requests[j])).unwrap_or(requests.len());
            let idx: Vec<usize> = (i..end).collect();
            if !self.greedy_batch(requests, &idx, cancel, on_done)? {
                return Ok(());
            }
            i = end;
        }
        Ok(())
    }
}

/// Rows in flight when the user did not choose (`REGISTRO_BATCH_ROWS`, 1 = one segment after the other): the
/// engine's choice for this machine and model ([`Model::batch_rows`]), which bounds the KV cache.
pub fn batch_rows_override() -> Option<usize> {
    std::env::var("REGISTRO_BATCH_ROWS").ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|&n| n >= 1).map(|n| n.min(64))
}

impl EngineGenerator {
    /// Decodes `idx` (greedy requests sharing prefix and constraints) by continuous batching and reports each as
    /// it finishes. `false` when cancelled: rows cut short are not reported.
    fn greedy_batch(&mut self, requests: &[GenRequest], idx: &[usize], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<bool> {
        let Some(&first) = idx.first() else { return Ok(true) };
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let head = &requests[first];
        let mut reported = vec![false; idx.len()];
        // An error of the caller's `on_done` ends the call; an error of the engine retries the unfinished
        // segments one at a time below, so each gets its own result or error.
        let mut caller_error = None;
        let result = (|| -> anyhow::Result<()> {
            let pre = self.cached_prefix(&head.prefix)?;
            let mut prompts = Vec::with_capacity(idx.len());
            for (k, &i) in idx.iter().enumerate() {
                match self.model.encode(&requests[i].turn) {
                    Ok(p) => prompts.push(p),
                    Err(e) => {
                        reported[k] = true;
                        if let Err(e) = on_done(i, Err(e)) {
                            caller_error = Some(e);
                            anyhow::bail!("stopped by the caller");
                        }
                        prompts.push(Vec::new());
                    }
                }
            }
            let keep: Vec<usize> = (0..idx.len()).filter(|&k| !reported[k]).collect();
            let prompts: Vec<Vec<u32>> = keep.iter().map(|&k| std::mem::take(&mut prompts[k])).collect();
            let limits: Vec<usize> = keep.iter().map(|&k| requests[idx[k]].max_tokens).collect();
            let opts = self.options(limits.iter().copied().max().unwrap_or(0));
            let rows = self.batch_rows.unwrap_or_else(|| {
                let widest = prompts.iter().zip(&limits).map(|(p, l)| p.len() + l).max().unwrap_or(0);
                self.model.batch_rows(pre.tokens().len() + widest)
            });
            let mut bias = if head.constraints.is_empty() { None } else { Some(self.bias(&head.constraints)?) };
            let mut none = NoProcessor;
            let proc: &mut dyn registro_engine::LogitsProcessor = match bias.as_mut() {
                Some(b) => b,
                None => &mut none,
            };
            // `REGISTRO_FIXED_BATCHES=1` runs the path before continuous batching for comparison (`registro bench
            // translate --fixed-batches`): batches of `rows` segments that shrink as rows finish, never refilled.
            let fixed = std::env::var("REGISTRO_FIXED_BATCHES").is_ok_and(|v| v == "1");
            let spans: Vec<(usize, usize, usize)> = if fixed {
                (0..prompts.len()).step_by(rows.max(1)).map(|s| (s, (s + rows).min(prompts.len()), rows)).collect()
            } else if prompts.len() > 1 && rows > 1 {
                // The first segment alone, then the rest in full batches: a segment decoded in a batch of 16 rows
                // finishes only after 16 rows' worth of steps, and the user waits on screen for the first one.
                vec![(0, 1, 1), (1, prompts.len(), rows)]
            } else {
                vec![(0, prompts.len(), rows)]
            };
            for (start, end, rows) in spans {
                self.model.generate_continuous(Some(&pre), &prompts[start..end], &limits[start..end], &opts, rows, &mut *proc, &mut |r, g| {
                    // Nothing is reported after a cancel, and a row cut short is never reported.
                    if cancel.load(Ordering::SeqCst) || g.as_ref().is_ok_and(|g| g.finish == FinishReason::Cancelled) {
                        return Ok(());
                    }
                    let k = keep[start + r];
                    reported[k] = true;
                    let g = g.map(|g| vec![Generated { text: g.text.trim().to_string(), logprob: g.logprob, tokens: g.tokens.len() }]);
                    on_done(idx[k], g).map_err(|e| {
                        caller_error = Some(e);
                        anyhow::anyhow!("stopped by the caller")
                    })
                }, cancel)?;
            }
            Ok(())
        })();
        if let Some(e) = caller_error {
            return Err(e);
        }
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        if let Err(e) = result {
            let left: Vec<usize> = (0..idx.len()).filter(|&k| !reported[k]).map(|k| idx[k]).collect();
            if left.len() == 1 {
                on_done(left[0], Err(e))?;
            } else {
                for i in left {
                    let r = &requests[i];
                    let g = self.generate(&r.prefix, &r.turn, 1, r.max_tokens, &r.constraints, cancel);
                    if cancel.load(Ordering::SeqCst) {
                        return Ok(false);
                    }
                    on_done(i, g)?;
                }
            }
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
