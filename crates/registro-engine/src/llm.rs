//! `Model`: a loaded GGUF decoder plus its text codec, and everything callers do with it — generation (greedy,
//! sampling, batched, with a reusable prefix), N-best beam search and scoring of given text.
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use candle_core::{Device, Tensor};

use crate::decoder::{Arch, Decoder, KvCache};
use crate::device::{self, DeviceChoice};
use crate::gguf::GgufFile;
use crate::logits::{self, LogitsProcessor, Rng, Sampling};
use crate::text::{HfTokenizer, TextCodec};

mod continuous;
pub use continuous::{BatchStats, OnDone};
mod score_many;
mod beam;
pub use beam::OnHypotheses;
mod prefix_store;
pub use prefix_store::{PrefixOrigin, PrefixStore};

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub device: DeviceChoice,
    /// A `tokenizer.json`; default: `tokenizer.json` beside the model file, if any.
    pub tokenizer: Option<PathBuf>,
    /// Keep Q5_0 tensors as they are instead of converting them to Q8_0 for the CPU kernels.
    pub keep_q5_0: bool,
}

#[derive(Clone, Debug)]
pub struct ModelInfo {
    pub path: PathBuf,
    pub arch: Arch,
    pub name: Option<String>,
    pub vocab: usize,
    pub context_len: usize,
    pub n_layer: usize,
    pub hidden: usize,
    pub bos: Option<u32>,
    /// Tokens that end generation: the file's EOS/EOT plus the chat end-of-turn token.
    pub eos: Vec<u32>,
    pub chat_template: Option<String>,
    /// The file's chat template (or the built-in one of its family) with its bos/eos strings.
    pub chat: crate::chat::ChatTemplate,
    pub device: String,
}

#[derive(Clone)]
pub struct Model {
    decoder: Arc<Decoder>,
    codec: Option<Arc<dyn TextCodec>>,
    /// Why no tokenizer could be built from the GGUF metadata, for the error message.
    codec_err: Option<String>,
    /// How the weights were loaded where that changes the numbers (a stored prefix is only reused under the same).
    numerics: String,
    pub info: ModelInfo,
}

#[derive(Clone, Debug)]
pub struct GenerateOptions {
    pub max_tokens: usize,
    pub sampling: Sampling,
    /// Generation stops once the decoded text contains one of these; the text is cut before it.
    pub stop_strings: Vec<String>,
    /// Extra stop tokens besides the model's EOS tokens.
    pub stop_tokens: Vec<u32>,
    /// Keep generating through EOS (benchmarks).
    pub ignore_eos: bool,
    /// Never generate an n-gram of this many tokens twice (0 = off). A small model that starts repeating a
    /// phrase otherwise loops until `max_tokens`, which is both wrong output and the slowest possible call.
    pub no_repeat_ngram: usize,
    /// End a row whose text has stopped making sense — a loop the n-gram guard lets through with small
    /// variations, or a switch to another writing system part-way ([`crate::sense`]) — with
    /// [`FinishReason::Senseless`] and the text as it stood, instead of decoding on to `max_tokens`.
    pub stop_senseless: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        Self {
            max_tokens: 256,
            sampling: Sampling::Greedy,
            stop_strings: Vec::new(),
            stop_tokens: Vec::new(),
            ignore_eos: false,
            no_repeat_ngram: 0,
            stop_senseless: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    Eos,
    Stop,
    Length,
    Cancelled,
    /// Stopped because the text stopped making sense ([`GenerateOptions::stop_senseless`]); `crate::sense::senseless`
    /// on the text says why.
    Senseless,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Generation {
    /// Generated tokens, without the stop token.
    pub tokens: Vec<u32>,
    /// Decoded text (empty when the model has no text codec), cut before a stop string.
    pub text: String,
    pub finish: FinishReason,
    /// Sum of the log-probabilities of the generated tokens (after logit processors, before temperature).
    pub logprob: f32,
    pub prompt_tokens: usize,
    pub prefill_secs: f64,
    pub decode_secs: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Hypothesis {
    pub tokens: Vec<u32>,
    pub text: String,
    pub logprob: f32,
    /// `logprob / tokens` (length-normalised), the ranking key.
    pub score: f32,
    pub finish: FinishReason,
}

/// One streamed token.
pub struct TokenEvent<'a> {
    /// Index of the prompt in a batch call.
    pub row: usize,
    pub token: u32,
    /// Newly complete text (may be empty while a multi-byte character is incomplete).
    pub text: &'a str,
}

/// Attention state after a token sequence (e.g. system prompt + few-shot examples), computed once with
/// [`Model::prefix`] and reused by every call that continues it.
#[derive(Clone)]
pub struct Prefix {
    cache: KvCache,
    tokens: Vec<u32>,
    last_logits: Option<Vec<f32>>,
}

impl Prefix {
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }
    pub fn kv_bytes(&self) -> usize {
        self.cache.bytes()
    }
}

/// Per-token log-probabilities of a text given its context.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TokenScores {
    pub tokens: Vec<u32>,
    pub logprobs: Vec<f32>,
}

impl TokenScores {
    pub fn total(&self) -> f64 {
        self.logprobs.iter().map(|&x| x as f64).sum()
    }
    /// exp(−mean log-prob); infinite for no tokens.
    pub fn perplexity(&self) -> f64 {
        if self.logprobs.is_empty() {
            return f64::INFINITY;
        }
        (-self.total() / self.logprobs.len() as f64).exp()
    }
}

pub type OnToken<'a> = &'a mut dyn FnMut(&TokenEvent);

/// Scoring runs long texts through the model in chunks of this many tokens to bound the logits memory.
const SCORE_CHUNK: usize = 64;

impl Model {
    pub fn load(path: &Path, opts: &LoadOptions) -> Result<Self> {
        crate::alloc::keep_freed_memory();
        let dev = device::open(opts.device)?;
        let mut f = GgufFile::open(path)?;
        f.requantize = !opts.keep_q5_0;
        let arch_name = f.architecture()?;
        crate::decoder::ensure_arch(&arch_name).with_context(|| path.display().to_string())?;
        let decoder = Decoder::load(&mut f, &dev).with_context(|| format!("loading {}", path.display()))?;
        let tok_path = opts.tokenizer.clone().or_else(|| {
            let p = path.with_file_name("tokenizer.json");
            p.exists().then_some(p)
        });
        // tokenizer.json if given or beside the file, else the vocabulary in the GGUF metadata.
        let mut codec_err = None;
        let codec: Option<Arc<dyn TextCodec>> = match tok_path {
            Some(p) => Some(Arc::new(HfTokenizer::from_file(&p)?)),
            None => match crate::tokenizer::from_gguf(&f.content, &path.display().to_string()) {
                Ok(t) => Some(Arc::new(t)),
                Err(e) => {
                    codec_err = Some(format!("{e:#}"));
                    None
                }
            },
        };
        let md_u32 = |k: &str| f.u32(k).ok().map(|x| x as u32);
        let mut eos: Vec<u32> = ["tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"]
            .iter()
            .filter_map(|k| md_u32(k))
            .collect();
        let cfg = decoder.cfg.clone();
        let info = ModelInfo {
            path: path.to_path_buf(),
            arch: cfg.arch,
            name: f.string("general.name"),
            vocab: cfg.dims.vocab,
            context_len: cfg.max_pos,
            n_layer: cfg.dims.n_layer,
            hidden: cfg.dims.hidden,
            bos: md_u32("tokenizer.ggml.bos_token_id"),
            eos: Vec::new(),
            chat_template: f.string("tokenizer.chat_template"),
            chat: crate::chat::ChatTemplate::from_gguf(&f.content),
            device: device::describe(&dev),
        };
        let numerics = format!("keep_q5_0={}", opts.keep_q5_0);
        let mut model = Self { decoder: Arc::new(decoder), codec: None, codec_err, numerics, info };
        if let Some(c) = codec {
            model = model.with_codec(c);
        }
        eos.extend(model.info.eos.drain(..));
        eos.sort_unstable();
        eos.dedup();
        model.info.eos = eos;
        Ok(model)
    }

    /// Attaches a text codec (e.g. one built from GGUF metadata) and adds its end-of-turn tokens to the EOS set.
    pub fn with_codec(mut self, codec: Arc<dyn TextCodec>) -> Self {
        for t in ["<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "</s>", "<eos>"] {
            if let Some(id) = codec.token_id(t) {
                if !self.info.eos.contains(&id) {
                    self.info.eos.push(id);
                }
            }
        }
        self.codec = Some(codec);
        self
    }

    pub fn device(&self) -> &Device {
        self.decoder.device()
    }

    pub fn codec(&self) -> Result<&Arc<dyn TextCodec>> {
        self.codec.as_ref().with_context(|| {
            format!(
                "missing tokenizer for {}: put tokenizer.json beside it or pass one explicitly{}",
                self.info.path.display(),
                self.codec_err.as_deref().map(|e| format!(" (GGUF vocabulary unusable: {e})")).unwrap_or_default()
            )
        })
    }

    /// Tokenizes `text` (no BOS added; see [`Model::bos_prefix`]).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        self.codec()?.encode(text, false)
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.codec()?.decode(ids, true)
    }

    /// [`logits::ban_repeated_ngrams`], except while `generated` ends inside a character. In a byte-level
    /// vocabulary one Devanagari or Hangul character can take several tokens, so a 4-token repeat is often part
    /// of one repeated word; banning its last byte there left the model a byte that starts no character, which
    /// decodes to U+FFFD and garbles the word after it (Hindi outputs were full of them). A loop is still cut at
    /// the next character boundary.
    fn ban_repeats(&self, generated: &[u32], n: usize, logits: &mut [f32]) {
        let bans = logits::repeat_completions(generated, n);
        // The character check decodes tokens, so it runs only when there is something to ban.
        if bans.is_empty() || self.ends_inside_a_character(generated) {
            return;
        }
        logits::ban(&bans, logits);
    }

    /// Whether the text of `generated` stops partway through a UTF-8 character. Decodes only the last few tokens:
    /// no character takes more than four bytes, so more tokens than that say nothing new.
    fn ends_inside_a_character(&self, generated: &[u32]) -> bool {
        let Some(codec) = &self.codec else { return false };
        let tail = &generated[generated.len().saturating_sub(4)..];
        codec.decode(tail, true).is_ok_and(|t| t.ends_with('\u{FFFD}'))
    }

    /// Token ids of a chat rendered with the model's template, ready to generate the assistant's turn
    /// (the template writes any BOS itself).
    pub fn encode_chat(&self, messages: &[crate::chat::ChatMessage]) -> Result<Vec<u32>> {
        let text = self.info.chat.render(messages, true)?;
        self.encode(&text)
    }

    /// One layer's decode-step attention in milliseconds, with this model's heads, for `rows` rows over `prefix`
    /// shared and `own` columns (`registro bench engine`); `None` off the CPU's attention kernels (a GPU).
    pub fn time_attention_step(&self, rows: usize, prefix: usize, own: usize) -> Result<Option<f64>> {
        if !self.device().is_cpu() {
            return Ok(None);
        }
        self.decoder.time_attention_step(rows, prefix, own)
    }

    /// `[bos]` for models that expect one at the start of the input (Gemma, Llama), else empty.
    pub fn bos_prefix(&self) -> Vec<u32> {
        match (self.info.arch, self.info.bos) {
            (Arch::Gemma3 | Arch::Llama, Some(b)) => vec![b],
            _ => Vec::new(),
        }
    }

    /// Runs `tokens` once and keeps the attention state for reuse.
    pub fn prefix(&self, tokens: &[u32]) -> Result<Prefix> {
        let mut cache = self.decoder.new_cache(1);
        let mut last = None;
        for chunk in tokens.chunks(512) {
            let l = self.decoder.forward(&[chunk], &mut cache, false)?;
            last = Some(l.squeeze(0)?.to_vec1::<f32>()?);
        }
        // Held once and attended by every row that continues it (continuous batching, beams, n-best).
        let cache = if tokens.is_empty() { cache } else { cache.into_shared()? };
        Ok(Prefix { cache, tokens: tokens.to_vec(), last_logits: last })
    }

    /// Runs a batched and a single-token forward pass so the CPU kernels lay out their weight copies now —
    /// seconds for a 1.5B model on 2 cores — instead of during the user's first request.
    pub fn warm_up(&self) -> Result<()> {
        let tok = self.info.bos.unwrap_or(0);
        let p = self.prefix(&[tok; 32])?;
        let mut cache = p.cache;
        self.decoder.forward(&[&[tok]], &mut cache, false)?;
        Ok(())
    }

    pub fn generate(
        &self,
        prefix: Option<&Prefix>,
        prompt: &[u32],
        opts: &GenerateOptions,
        proc: &mut dyn LogitsProcessor,
        on_token: OnToken,
        cancel: &AtomicBool,
    ) -> Result<Generation> {
        let mut v = self.generate_batch(prefix, &[prompt.to_vec()], opts, proc, on_token, cancel)?;
        Ok(v.remove(0))
    }

    /// Generates continuations of several prompts at once (one batch, rows dropped as they finish), each
    /// continuing `prefix` if given. Results are in prompt order. A document with more prompts than fit one
    /// batch goes through [`Model::generate_continuous`], which refills finished rows.
    pub fn generate_batch(
        &self,
        prefix: Option<&Prefix>,
        prompts: &[Vec<u32>],
        opts: &GenerateOptions,
        proc: &mut dyn LogitsProcessor,
        on_token: OnToken,
        cancel: &AtomicBool,
    ) -> Result<Vec<Generation>> {
        let mut outs: Vec<Option<Result<Generation>>> = (0..prompts.len()).map(|_| None).collect();
        self.decode_rows(prefix, prompts, &[], opts, prompts.len(), proc, on_token, &mut |i, g| {
            outs[i] = Some(g);
            Ok(())
        }, cancel)?;
        let cancelled = cancel.load(Ordering::Relaxed);
        outs.into_iter()
            .zip(prompts)
            .map(|(o, p)| match o {
                Some(g) => g,
                // Cancelled before its prefill: nothing decoded.
                None if cancelled => Ok(Generation {
                    tokens: Vec::new(),
                    text: String::new(),
                    finish: FinishReason::Cancelled,
                    logprob: 0.0,
                    prompt_tokens: prefix.map_or(0, |p| p.tokens.len()) + p.len(),
                    prefill_secs: 0.0,
                    decode_secs: 0.0,
                }),
                None => bail!("a prompt of the batch was never decoded"),
            })
            .collect()
    }

    /// Cache for `prompts` continuing `prefix`, and the logits after each prompt's last token.
    fn start(&self, prefix: Option<&Prefix>, prompts: &[Vec<u32>]) -> Result<(KvCache, Vec<Vec<f32>>)> {
        let n = prompts.len();
        let mut cache = match prefix {
            Some(p) => p.cache.select(&vec![0; n])?,
            None => self.decoder.new_cache(n),
        };
        if prompts.iter().all(|p| p.is_empty()) {
            let last = prefix
                .and_then(|p| p.last_logits.clone())
                .context("nothing to generate from: empty prompt and no prefix")?;
            return Ok((cache, vec![last; n]));
        }
        if let Some(i) = prompts.iter().position(|p| p.is_empty()) {
            bail!("prompt {i} is empty while others are not; put shared tokens in the prefix");
        }
        if n > 1 && self.device().is_cpu() {
            // On a CPU, prompts of different lengths prefilled together over a shared prefix cost far more than
            // the same prompts one at a time: measured with the 1.5B model over a 500-token few-shot prefix, 11
            // translation turns of ~150 tokens took 24.6 s together and 9.5 s one by one (35-token turns: 3.2 s
            // and 2.8 s). Row by row, each prompt's greedy output is also exactly that of the prompt alone.
            let mut logits = Vec::with_capacity(n);
            let mut batch: Option<KvCache> = None;
            for p in prompts {
                let (c, mut l) = self.start(prefix, std::slice::from_ref(p))?;
                logits.push(l.remove(0));
                batch = Some(match batch {
                    None => c,
                    Some(b) => b.stack(&c, &[0])?,
                });
            }
            return Ok((batch.expect("two or more prompts"), logits));
        }
        let rows: Vec<&[u32]> = prompts.iter().map(|p| p.as_slice()).collect();
        let l = self.decoder.forward(&rows, &mut cache, false)?;
        Ok((cache, rows_of(&l)?))
    }

    /// Beam search returning up to `n` hypotheses, best first, ranked by length-normalised log-probability.
    #[allow(clippy::too_many_arguments)]
    pub fn nbest(
        &self,
        prefix: Option<&Prefix>,
        prompt: &[u32],
        opts: &GenerateOptions,
        beam: usize,
        n: usize,
        proc: &mut dyn LogitsProcessor,
        cancel: &AtomicBool,
    ) -> Result<Vec<Hypothesis>> {
        let mut out = Vec::new();
        self.nbest_many(prefix, &[prompt.to_vec()], &[opts.max_tokens], opts, beam, n, proc, &mut |_, h| {
            out = h;
            Ok(())
        }, cancel)?;
        Ok(out)
    }

    fn hyp(&self, tokens: Vec<u32>, logprob: f32, finish: FinishReason) -> Result<Hypothesis> {
        let text = if self.codec.is_some() { self.decode(&tokens)? } else { String::new() };
        let score = logprob / tokens.len().max(1) as f32;
        Ok(Hypothesis { tokens, text, logprob, score, finish })
    }

    /// Log-probability of each token of `target` following `context` (which continues `prefix` if given).
    /// With no context and no prefix the first target token has nothing to condition on and is not scored.
    pub fn score_tokens(&self, prefix: Option<&Prefix>, context: &[u32], target: &[u32]) -> Result<TokenScores> {
        let mut cache = match prefix {
            Some(p) => p.cache.clone(),
            None => self.decoder.new_cache(1),
        };
        let mut all: Vec<u32> = context.to_vec();
        all.extend_from_slice(target);
        let mut prev: Option<Vec<f32>> = prefix.and_then(|p| p.last_logits.clone());
        let mut logprobs = Vec::with_capacity(target.len());
        let mut pos = 0;
        for chunk in all.chunks(SCORE_CHUNK) {
            let l = self.decoder.forward(&[chunk], &mut cache, true)?.squeeze(0)?;
            let rows = rows_of(&l)?;
            for (i, row) in rows.into_iter().enumerate() {
                let p = pos + i;
                if p >= context.len() {
                    if let Some(pr) = &prev {
                        logprobs.push(logits::log_prob(pr, all[p]));
                    }
                }
                prev = Some(row);
            }
            pos += chunk.len();
        }
        let skipped = target.len() - logprobs.len();
        Ok(TokenScores { tokens: target[skipped..].to_vec(), logprobs })
    }

    /// Scores `text` after `context` (both plain text; the model's BOS is put first when it expects one).
    pub fn score_text(&self, context: &str, text: &str) -> Result<TokenScores> {
        let mut ctx = self.bos_prefix();
        if !context.is_empty() {
            ctx.extend(self.encode(context)?);
        }
        let target = self.encode(text)?;
        self.score_tokens(None, &ctx, &target)
    }

    /// Perplexity of `text` on its own.
    pub fn perplexity(&self, text: &str) -> Result<f64> {
        Ok(self.score_text("", text)?.perplexity())
    }
}

#[derive(Default)]
struct Out {
    tokens: Vec<u32>,
    text: String,
    emitted: usize,
    logprob: f32,
    finish: Option<FinishReason>,
}

fn rows_of(l: &Tensor) -> Result<Vec<Vec<f32>>> {
    Ok(l.to_vec2::<f32>()?)
}

/// Byte offset where the first stop string starts, looking only at text not streamed yet (and a little
/// before it, since a stop string may straddle tokens).
fn find_stop(text: &str, stops: &[String], emitted: usize) -> Option<usize> {
    stops
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| {
            let from = floor_char(text, emitted.saturating_sub(s.len()));
            text[from..].find(s.as_str()).map(|i| from + i)
        })
        .min()
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Length of the prefix of `text` that can be streamed: no trailing U+FFFD (incomplete character) and no
/// suffix that could be the start of a stop string.
fn stream_safe_len(text: &str, stops: &[String]) -> usize {
    let mut end = text.len();
    if text.ends_with('\u{FFFD}') {
        end -= '\u{FFFD}'.len_utf8();
    }
    for s in stops {
        for k in (1..s.len()).rev() {
            if s.is_char_boundary(k) && text[..end].ends_with(&s[..k]) {
                end = end.min(text[..end].len() - k);
                break;
            }
        }
    }
    end
}
