//! The model behind the control layer: anything that continues a (cached) prefix with one or N candidates under
//! optional constraints. [`EngineGenerator`] is the candle engine; the trait keeps the control layer testable and
//! open to other backends.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use registro_engine::{FinishReason, GenerateOptions, Model, NoProcessor, Prefix, PrefixOrigin, PrefixStore, SequenceBias};

use crate::constrain::Constraints;
use crate::prompt::ChatFormat;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Generated {
    pub text: String,
    /// Sum of token log-probabilities.
    pub logprob: f32,
    pub tokens: usize,
}

/// The engine's greedy output as a candidate (surrounding white space is never part of a translation).
impl From<registro_engine::Generation> for Generated {
    fn from(g: registro_engine::Generation) -> Self {
        Generated { text: g.text.trim().to_string(), logprob: g.logprob, tokens: g.tokens.len() }
    }
}

/// A beam-search hypothesis as a candidate.
impl From<registro_engine::Hypothesis> for Generated {
    fn from(h: registro_engine::Hypothesis) -> Self {
        Generated { text: h.text.trim().to_string(), logprob: h.logprob, tokens: h.tokens.len() }
    }
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
    /// What a benchmark should say about how this backend ran since the last call, beside its figures (e.g.
    /// prefixes read from disk rather than computed: the seconds differ).
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// How many tokens the model reads `text` as; `None` where the backend cannot say (token budgets then fall
    /// back to a per-script rate).
    fn count_tokens(&self, _text: &str) -> Option<usize> {
        None
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
    /// Prefixes kept on disk for the next process; `None` computes every prefix (`REGISTRO_PREFIX_CACHE=off`).
    prefix_store: Option<PrefixStore>,
    /// Prefixes (read from the store, computed) since the last `take_notes`.
    prefix_origins: (usize, usize),
    bias_cache: HashMap<String, SequenceBias>,
    /// Rows decoded together by [`Generator::generate_many`]; `None`: the engine's choice per document.
    batch_rows: Option<usize>,
    /// Decode a document's first segment on its own before the others ([`EngineGenerator::first_segment_first`]).
    first_segment_first: bool,
}

impl EngineGenerator {
    pub fn load(id_or_path: &str) -> anyhow::Result<Self> {
        let model = crate::models::load_llm(id_or_path, Default::default(), None)?;
        Ok(Self::from_model(model, id_or_path))
    }

    pub fn from_model(model: Model, id: &str) -> Self {
        let format = ChatFormat::for_model(&model.info);
        EngineGenerator {
            model,
            id: id.to_string(),
            stops: format.stops(),
            format,
            prefixes: HashMap::new(),
            prefix_store: crate::models::prefix_store(),
            prefix_origins: (0, 0),
            bias_cache: HashMap::new(),
            batch_rows: batch_rows_override(),
            first_segment_first: false,
        }
    }

    /// For a window where a person waits to see the first segment: it is decoded on its own, then the rest in full
    /// batches. A segment decoded among 16 rows finishes only after 16 rows' worth of steps are computed, but the
    /// one-row steps it takes alone cost the whole document their time (a sentence's ~35 steps; a 1.5B model
    /// decodes one row at 18–21 tok/s on a 2-core CPU, so ~1.7 s a register), so files from the CLI decode every
    /// segment together.
    pub fn first_segment_first(mut self) -> Self {
        self.first_segment_first = true;
        self
    }

    /// Decode at most `rows` segments together (1 = one after the other, the old path).
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = Some(rows.clamp(1, 64));
        self
    }

    /// Keeps prefixes in `store` instead of the default (`None`: computes every prefix).
    pub fn with_prefix_store(mut self, store: Option<PrefixStore>) -> Self {
        self.prefix_store = store;
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
        let model = &self.model;
        let b = sequence_bias(c, &mut |text| model.encode(text))?;
        self.bias_cache.insert(key, b.clone());
        Ok(b)
    }
}

/// Added to each further token of a required term once its first tokens are written, so a started term is
/// finished. Measured on Qwen2.5-Coder 0.5B and 1.5B over contract sentences (`tests/terms_and_memory.rs`): at
/// 6.0 started terms still ran off ("Auftr|itt", "Vertrags|verlust", "Auftragneh|men"); from 10.0 on every started
/// term was finished, and 100.0 changed nothing more, so a continuation the model is all but certain of can
/// still win.
pub const COMPLETE_TERM: f32 = 10.0;

/// The ways a marker or term can be written: after a space and at the output's start (without one); Japanese
/// text and suffixes (`-tu`) anywhere, as they are.
fn spellings(w: &str) -> Vec<(String, bool)> {
    if w.starts_with('-') || !w.is_ascii() && w.chars().any(|c| ('\u{3040}'..='\u{30FF}').contains(&c)) {
        vec![(w.to_string(), false)]
    } else {
        vec![(format!(" {w}"), false), (w.to_string(), true)]
    }
}

/// The logits processor for `c`, through the model's tokenizer `encode`. Banned strings are banned in every
/// spelling, as many tokens as they take. A register marker is boosted only where it is one token: a boost on the
/// last token of a longer sequence fires only once its head is there, which is no nudge, and a marker's first
/// piece is a fragment of many other words ("Ih" of "Ihnen"), so pushing it would push the wrong words. A required
/// term ([`Constraints::terms`]) is enforced whole: its first token gets the term's bias until the term has been
/// written (so it is written once, not wherever its first piece fits), and each further token gets
/// [`COMPLETE_TERM`] right after the term's preceding tokens, also until the term is there. A spelling without the
/// leading space only starts the output (mid-text it would glue the term to the previous word).
pub fn sequence_bias(c: &Constraints, encode: &mut dyn FnMut(&str) -> anyhow::Result<Vec<u32>>) -> anyhow::Result<SequenceBias> {
    use registro_engine::logits::When;
    let mut b = SequenceBias::new();
    for w in &c.ban {
        for (v, _) in spellings(w) {
            let ids = encode(&v)?;
            if !ids.is_empty() {
                b.ban(&ids);
            }
        }
    }
    for (w, bias) in &c.boost {
        let spelled: Vec<(Vec<u32>, bool)> =
            spellings(w).into_iter().map(|(v, at_start)| Ok((encode(&v)?, at_start))).collect::<anyhow::Result<Vec<_>>>()?;
        let spelled: Vec<(Vec<u32>, bool)> = spelled.into_iter().filter(|(ids, _)| !ids.is_empty()).collect();
        if !c.terms.contains(w) {
            for (ids, _) in spelled.iter().filter(|(ids, _)| ids.len() == 1) {
                b.add(ids, *bias);
            }
            continue;
        }
        let written: Vec<Vec<u32>> = spelled.iter().map(|(ids, _)| ids.clone()).collect();
        for (ids, at_start) in &spelled {
            let when = When { at_start: *at_start, until: written.clone() };
            b.add_when(&ids[..1], *bias, when.clone());
            for end in 2..=ids.len() {
                b.add_when(&ids[..end], COMPLETE_TERM, when.clone());
            }
        }
    }
    Ok(b)
}

impl Generator for EngineGenerator {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn chat_format(&self) -> &ChatFormat {
        &self.format
    }

    fn count_tokens(&self, text: &str) -> Option<usize> {
        self.model.encode(text).ok().map(|ids| ids.len())
    }

    fn take_notes(&mut self) -> Vec<String> {
        let (read, computed) = std::mem::take(&mut self.prefix_origins);
        let place = self.prefix_store.as_ref().map_or("no store: REGISTRO_PREFIX_CACHE=off".to_string(), |s| s.dir().display().to_string());
        vec![format!("document prefixes: {read} read from disk, {computed} computed ({place})")]
    }

    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max_tokens: usize, constraints: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        let pre = self.cached_prefix(prefix)?;
        let prompt = self.model.encode(turn)?;
        let opts = self.options(max_tokens);
        let mut proc = self.processor(constraints)?;
        if n <= 1 {
            let g = self.model.generate(Some(&pre), &prompt, &opts, &mut *proc, &mut |_| {}, cancel)?;
            Ok(vec![g.into()])
        } else {
            let hyps = self.model.nbest(Some(&pre), &prompt, &opts, n, n, &mut *proc, cancel)?;
            Ok(hyps.into_iter().map(Generated::from).collect())
        }
    }

    /// Requests that continue the same prefix under the same constraints are decoded together. Greedy ones by
    /// continuous batching: [`batch_rows`] rows in flight, a finished row's slot taken by the next segment (one
    /// matrix product per layer serves every row, which is where a CPU's throughput is); n-best ones as beam
    /// searches side by side, as many segments at once as their beams fit those rows.
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        let same_batch = |a: &GenRequest, b: &GenRequest| a.prefix == b.prefix && a.constraints == b.constraints;
        let mut i = 0;
        while i < requests.len() {
            if cancel.load(Ordering::SeqCst) {
                return Ok(());
            }
            let r = &requests[i];
            let end = (i..requests.len()).find(|&j| requests[j].n != r.n || !same_batch(r, &requests[j])).unwrap_or(requests.len());
            let idx: Vec<usize> = (i..end).collect();
            let finished = if r.n > 1 { self.nbest_batch(requests, &idx, cancel, on_done)? } else { self.greedy_batch(requests, &idx, cancel, on_done)? };
            if !finished {
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

/// Which segments of one batched call have been reported, and the caller's own error if its `on_done` failed.
/// An error of the caller ends the call; an error of the engine leaves the unreported segments to
/// [`EngineGenerator::settle`], so each still gets its own result or error.
struct Reports {
    sent: Vec<bool>,
    caller_error: Option<anyhow::Error>,
}

impl Reports {
    fn new(n: usize) -> Self {
        Reports { sent: vec![false; n], caller_error: None }
    }

    /// Reports batch entry `k` (request `i`).
    fn send(&mut self, k: usize, i: usize, g: anyhow::Result<Vec<Generated>>, on_done: OnDone<'_>) -> anyhow::Result<()> {
        self.sent[k] = true;
        on_done(i, g).map_err(|e| {
            self.caller_error = Some(e);
            anyhow::anyhow!("stopped by the caller")
        })
    }
}

/// One batched call's requests in engine terms: every turn encoded (a turn that cannot be is reported at once and
/// left out), each one's token budget, the options and the rows in flight.
struct Batch {
    prefix: Prefix,
    /// Indices into the call's `idx` of the requests taken, with their prompts and budgets.
    keep: Vec<usize>,
    prompts: Vec<Vec<u32>>,
    limits: Vec<usize>,
    opts: GenerateOptions,
    rows: usize,
}

impl EngineGenerator {
    fn batch(&mut self, requests: &[GenRequest], idx: &[usize], reports: &mut Reports, on_done: OnDone<'_>) -> anyhow::Result<Batch> {
        let prefix = self.cached_prefix(&requests[idx[0]].prefix)?;
        let (mut keep, mut prompts) = (Vec::with_capacity(idx.len()), Vec::with_capacity(idx.len()));
        for (k, &i) in idx.iter().enumerate() {
            match self.model.encode(&requests[i].turn) {
                Ok(p) => {
                    keep.push(k);
                    prompts.push(p);
                }
                Err(e) => reports.send(k, i, Err(e), &mut *on_done)?,
            }
        }
        let limits: Vec<usize> = keep.iter().map(|&k| requests[idx[k]].max_tokens).collect();
        let opts = self.options(limits.iter().copied().max().unwrap_or(0));
        let rows = self.batch_rows.unwrap_or_else(|| {
            let widest = prompts.iter().zip(&limits).map(|(p, l)| p.len() + l).max().unwrap_or(0);
            self.model.batch_rows(widest)
        });
        Ok(Batch { prefix, keep, prompts, limits, opts, rows })
    }

    /// The logits processor for `c`: its sequence bias, or nothing.
    fn processor(&mut self, c: &Constraints) -> anyhow::Result<Box<dyn registro_engine::LogitsProcessor>> {
        Ok(if c.is_empty() { Box::new(NoProcessor) } else { Box::new(self.bias(c)?) })
    }

    /// Ends a batched call: the caller's error is returned, a cancel gives `false`, and after an engine error each
    /// segment not yet reported gets its own result (the error itself when it is the only one left, else a try of
    /// its own), so one bad segment (a turn past the context) does not take the others with it.
    #[allow(clippy::too_many_arguments)]
    fn settle(&mut self, requests: &[GenRequest], idx: &[usize], reports: Reports, result: anyhow::Result<()>, cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<bool> {
        if let Some(e) = reports.caller_error {
            return Err(e);
        }
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Err(e) = result else { return Ok(true) };
        let left: Vec<usize> = (0..idx.len()).filter(|&k| !reports.sent[k]).map(|k| idx[k]).collect();
        if let [only] = left[..] {
            on_done(only, Err(e))?;
            return Ok(true);
        }
        for i in left {
            let r = &requests[i];
            let g = self.generate(&r.prefix, &r.turn, r.n, r.max_tokens, &r.constraints, cancel);
            if cancel.load(Ordering::SeqCst) {
                return Ok(false);
            }
            on_done(i, g)?;
        }
        Ok(true)
    }

    /// Searches `idx` (n-best requests sharing prefix, constraints and n) a few segments at a time, their beams in
    /// one batch, and reports each as its search ends. `false` when cancelled: searches cut short are not reported.
    fn nbest_batch(&mut self, requests: &[GenRequest], idx: &[usize], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<bool> {
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(first) = idx.first().map(|&i| &requests[i]) else { return Ok(true) };
        let beams = first.n.max(1);
        let mut reports = Reports::new(idx.len());
        let result = (|| -> anyhow::Result<()> {
            let b = self.batch(requests, idx, &mut reports, &mut *on_done)?;
            let mut proc = self.processor(&first.constraints)?;
            let per_call = (b.rows / beams).max(1);
            for start in (0..b.prompts.len()).step_by(per_call) {
                if cancel.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let end = (start + per_call).min(b.prompts.len());
                self.model.nbest_many(Some(&b.prefix), &b.prompts[start..end], &b.limits[start..end], &b.opts, beams, beams, &mut *proc, &mut |r, hyps| {
                    if cancel.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    let k = b.keep[start + r];
                    reports.send(k, idx[k], Ok(hyps.into_iter().map(Generated::from).collect()), &mut *on_done)
                }, cancel)?;
            }
            Ok(())
        })();
        self.settle(requests, idx, reports, result, cancel, on_done)
    }

    /// Decodes `idx` (greedy requests sharing prefix and constraints) by continuous batching and reports each as
    /// it finishes. `false` when cancelled: rows cut short are not reported.
    fn greedy_batch(&mut self, requests: &[GenRequest], idx: &[usize], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<bool> {
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(first) = idx.first().map(|&i| &requests[i]) else { return Ok(true) };
        let mut reports = Reports::new(idx.len());
        let result = (|| -> anyhow::Result<()> {
            let b = self.batch(requests, idx, &mut reports, &mut *on_done)?;
            let mut proc = self.processor(&first.constraints)?;
            let n = b.prompts.len();
            // `REGISTRO_FIXED_BATCHES=1` runs the path before continuous batching for comparison (`registro bench
            // translate --fixed-batches`): batches of `rows` segments that shrink as rows finish, never refilled.
            let fixed = std::env::var("REGISTRO_FIXED_BATCHES").is_ok_and(|v| v == "1");
            let spans: Vec<(usize, usize, usize)> = if fixed {
                (0..n).step_by(b.rows.max(1)).map(|s| (s, (s + b.rows).min(n), b.rows)).collect()
            } else if self.first_segment_first && n > 1 && b.rows > 1 {
                vec![(0, 1, 1), (1, n, b.rows)]
            } else {
                vec![(0, n, b.rows)]
            };
            for (start, end, rows) in spans {
                self.model.generate_continuous(Some(&b.prefix), &b.prompts[start..end], &b.limits[start..end], &b.opts, rows, &mut *proc, &mut |r, g| {
                    // Nothing is reported after a cancel, and a row cut short is never reported.
                    if cancel.load(Ordering::SeqCst) || g.as_ref().is_ok_and(|g| g.finish == FinishReason::Cancelled) {
                        return Ok(());
                    }
                    let k = b.keep[start + r];
                    reports.send(k, idx[k], g.map(|g| vec![g.into()]), &mut *on_done)
                }, cancel)?;
            }
            Ok(())
        })();
        self.settle(requests, idx, reports, result, cancel, on_done)
    }

    fn cached_prefix(&mut self, prefix: &str) -> anyhow::Result<Prefix> {
        if !self.prefixes.contains_key(prefix) {
            // Keep a handful of prefixes: a document uses one, contrastive mode two.
            if self.prefixes.len() >= 4 {
                self.prefixes.clear();
            }
            let mut toks = self.model.bos_prefix();
            toks.extend(self.model.encode(prefix)?);
            let (p, origin) = crate::models::stored_prefix(&self.model, &toks, self.prefix_store.as_ref())?;
            match origin {
                PrefixOrigin::Stored => self.prefix_origins.0 += 1,
                PrefixOrigin::Computed => self.prefix_origins.1 += 1,
            }
            self.prefixes.insert(prefix.to_string(), p);
        }
        Ok(self.prefixes.get(prefix).expect("prefix cached above").clone())
    }

    fn options(&self, max_tokens: usize) -> GenerateOptions {
        // A repeated 4-gram in one sentence is almost always a small model looping, never a translation; a loop
        // with variations, or a switch of script part-way, is stopped where it shows rather than decoded to the
        // budget (registro_engine::sense).
        GenerateOptions { max_tokens, stop_strings: self.stops.clone(), no_repeat_ngram: 4, stop_senseless: true, ..Default::default() }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use registro_engine::LogitsProcessor;

    use super::*;

    /// A tokenizer of four-character pieces, ids handed out as pieces are first seen: " Auftragnehmer" is four
    /// tokens, " Sie" one.
    struct Pieces(HashMap<String, u32>);

    impl Pieces {
        fn encode(&mut self, text: &str) -> Vec<u32> {
            let chars: Vec<char> = text.chars().collect();
            chars
                .chunks(4)
                .map(|c| {
                    let piece: String = c.iter().collect();
                    let next = self.0.len() as u32;
                    *self.0.entry(piece).or_insert(next)
                })
                .collect()
        }
    }

    fn bias_for(c: &Constraints) -> (SequenceBias, Pieces) {
        let mut p = Pieces(HashMap::new());
        let b = sequence_bias(c, &mut |t| Ok(p.encode(t))).unwrap();
        (b, p)
    }

    /// The bias each token gets after `generated`.
    fn logits(b: &SequenceBias, generated: &[u32]) -> Vec<f32> {
        let mut l = vec![0.0; 64];
        b.clone().process(0, generated, &mut l);
        l
    }

    #[test]
    fn a_multi_token_term_is_started_then_completed_and_left_alone_once_written() {
        let c = Constraints::default().with_terms(&registro_qa::termbase::GenerationTerms { require: vec!["Auftragnehmer".into()], ban: vec![] });
        let (b, mut p) = bias_for(&c);
        let spaced = p.encode(" Auftragnehmer");
        let bare = p.encode("Auftragnehmer");
        assert_eq!((spaced.len(), bare.len()), (4, 4));
        let other = p.encode(" Das");
        let term = crate::constrain::TERM_BOOST;

        // At the start: both spellings' first tokens; mid-text only the one after a space.
        let start = logits(&b, &[]);
        assert_eq!((start[spaced[0] as usize], start[bare[0] as usize]), (term, term));
        let mid = logits(&b, &other);
        assert_eq!((mid[spaced[0] as usize], mid[bare[0] as usize]), (term, 0.0), "a bare spelling never starts mid-text");

        // Each further token completes a started term, in either spelling.
        let mut generated = other.clone();
        for k in 1..spaced.len() {
            generated.push(spaced[k - 1]);
            let l = logits(&b, &generated);
            assert_eq!(l[spaced[k] as usize], COMPLETE_TERM, "token {k} of the spaced term");
        }
        for k in 1..bare.len() {
            let l = logits(&b, &bare[..k]);
            assert_eq!(l[bare[k] as usize], COMPLETE_TERM, "token {k} of the bare term at the start");
        }
        // A piece that only starts the term elsewhere is not completed (a bare spelling mid-text).
        let mut glued = other.clone();
        glued.push(bare[0]);
        assert_eq!(logits(&b, &glued)[bare[1] as usize], 0.0);

        // Once the term is written nothing is pushed any more: no second copy wherever its first piece fits.
        let mut done = other.clone();
        done.extend(&spaced);
        let l = logits(&b, &done);
        assert!(l.iter().all(|&x| x == 0.0), "{l:?}");
        done.push(spaced[0]);
        assert_eq!(logits(&b, &done)[spaced[1] as usize], 0.0);
    }

    #[test]
    fn register_markers_are_boosted_only_as_single_tokens_and_bans_take_any_length() {
        let c = Constraints { ban: vec!["dich".into()], boost: vec![("Sie".into(), 1.5), ("Ihnen".into(), 1.5)], terms: vec![] };
        let (b, mut p) = bias_for(&c);
        let sie = p.encode(" Sie");
        assert_eq!(sie.len(), 1);
        let ihnen = p.encode(" Ihnen");
        assert_eq!(ihnen.len(), 2);
        let l = logits(&b, &[]);
        assert_eq!(l[sie[0] as usize], 1.5);
        assert_eq!(l[ihnen[0] as usize], 0.0, "a marker's first piece is not pushed");
        assert_eq!(logits(&b, &ihnen[..1])[ihnen[1] as usize], 0.0, "nor completed");
        let l = logits(&b, &[ihnen[0]]);
        assert_eq!(l[sie[0] as usize], 1.5, "a marker keeps its nudge everywhere");
        let dich = p.encode(" dich");
        assert_eq!(dich.len(), 2);
        assert_eq!(logits(&b, &dich[..1])[dich[1] as usize], f32::NEG_INFINITY);
    }
}

