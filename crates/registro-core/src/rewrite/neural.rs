//! The engine-backed side of rewriting: one GGUF chat model serves the round trip (as translator), the LLM
//! rewrite (sampled candidates) and fluency (perplexity). Also the model-based formality judges: the embedding
//! variant of the regressor (all-MiniLM-L6-v2 sentence embeddings) and a downloaded XLM-R formality classifier.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use registro_engine::bert::{SentenceEncoder, SequenceClassifier};
use registro_engine::chat::ChatMessage;
use registro_engine::{DeviceChoice, GenerateOptions, Model, NoProcessor, Prefix, Sampling};

use super::{Formality, Lang, Method, Neural, Scorer};

/// The local engine behind the rewrite: one chat model, the prompts' prefix caches and the English sentence
/// encoder. Sentences come in batches ([`Neural::batch_size`]): greedy answers of a batch are rows of one decode,
/// the perplexities of its candidates a few forward passes, its embeddings one encoder call.
pub struct LlmBackend {
    model: Model,
    resident: Resident,
    /// Sentences per batch and rows decoded together (1 = one sentence at a time, the sequential path).
    rows: usize,
    cancel: AtomicBool,
}

/// What the local rewrite keeps between runs besides the model: the attention state of each prompt's system +
/// few-shot block (computed once per model) and the English sentence encoder. The app keeps it across Rewrite
/// clicks beside its resident LLM ([`LlmBackend::with_model`], [`LlmBackend::into_resident`]).
#[derive(Default)]
pub struct Resident {
    /// The model file the prefixes belong to: another model's prefixes are dropped.
    model: Option<PathBuf>,
    /// Keyed by the block's rendered text.
    prefixes: HashMap<String, Prefix>,
    /// Tried once, `None` inside when it is not installed.
    encoder: Option<Option<SentenceEncoder>>,
}

/// Sentences per batch when `REGISTRO_BATCH_ROWS` is not set.
const DEFAULT_ROWS: usize = 8;

/// The sentence-embedding model the meaning axis uses for English (all-MiniLM-L6-v2 is English-only; other
/// languages are judged by chrF alone rather than by an encoder that does not know them).
const ENGLISH_ENCODER: &str = "all-minilm-l6-v2";

impl LlmBackend {
    pub fn load(id: &str) -> anyhow::Result<Self> {
        Ok(Self::with_model(registro_generate::models::load_llm(id, Default::default(), None)?, Resident::default()))
    }

    /// The backend on a model already loaded and warmed (the app's resident LLM), with what an earlier run kept.
    pub fn with_model(model: Model, mut resident: Resident) -> Self {
        if resident.model.as_ref() != Some(&model.info.path) {
            resident.prefixes.clear();
            resident.model = Some(model.info.path.clone());
        }
        // `REGISTRO_BATCH_ROWS` when set (the translate layer's knob; 1 = one sentence at a time), else 8 rows: each
        // row holds a copy of a ~450-token few-shot prefix, about 25 MB of cache for the 1.5B model.
        let rows = std::env::var("REGISTRO_BATCH_ROWS").ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|&n| n >= 1).map_or(DEFAULT_ROWS, |n| n.min(64));
        Self { model, resident, rows, cancel: AtomicBool::new(false) }
    }

    /// Hand at most `rows` sentences over at once and decode that many rows together (1 = the sequential path).
    pub fn with_batch_rows(mut self, rows: usize) -> Self {
        self.rows = rows.clamp(1, 64);
        self
    }

    /// What the next run on the same model can reuse.
    pub fn into_resident(self) -> Resident {
        self.resident
    }

    fn encoder(&mut self) -> Option<&SentenceEncoder> {
        self.resident
            .encoder
            .get_or_insert_with(|| {
                let r = registro_generate::models::resolve(ENGLISH_ENCODER).ok()?;
                SentenceEncoder::load(&r.dir, DeviceChoice::default()).ok()
            })
            .as_ref()
    }

    fn chat(messages: &[(&'static str, String)]) -> Vec<ChatMessage> {
        messages.iter().map(|(r, c)| ChatMessage::new(r, c)).collect()
    }

    /// The cached block a conversation continues (its key), and the token ids of the rest. The shared system +
    /// few-shot block is reused when the rendered conversation extends it textually.
    fn split(&mut self, messages: &[(&'static str, String)], cache_prefix: bool) -> anyhow::Result<(Option<String>, Vec<u32>)> {
        let full = self.model.info.chat.render(&Self::chat(messages), true)?;
        if cache_prefix && messages.len() > 1 {
            let head = self.model.info.chat.render(&Self::chat(&messages[..messages.len() - 1]), false)?;
            if full.starts_with(&head) {
                if !self.resident.prefixes.contains_key(&head) {
                    let (p, _) = registro_generate::models::stored_prefix(&self.model, &self.model.encode(&head)?, registro_generate::models::prefix_store().as_ref())?;
                    self.resident.prefixes.insert(head.clone(), p);
                }
                let rest = self.model.encode(&full[head.len()..])?;
                return Ok((Some(head), rest));
            }
        }
        Ok((None, self.model.encode(&full)?))
    }

    fn options(max_tokens: usize, n: usize) -> GenerateOptions {
        let sampling = if n <= 1 { Sampling::Greedy } else { Sampling::Sample { temperature: 0.7, top_p: 0.95, top_k: 40, seed: 17 } };
        GenerateOptions { max_tokens, sampling, stop_strings: vec!["\n".into()], no_repeat_ngram: 4, ..Default::default() }
    }

    /// `n` answers to one conversation: greedy for 1, else `n` sampled rows of one batch.
    fn answer(&mut self, messages: &[(&'static str, String)], n: usize, max_tokens: usize, cache_prefix: bool) -> anyhow::Result<Vec<String>> {
        let (head, prompt) = self.split(messages, cache_prefix)?;
        let prefix = head.and_then(|h| self.resident.prefixes.get(&h));
        let prompts = vec![prompt; n.max(1)];
        let outs = self.model.generate_batch(prefix, &prompts, &Self::options(max_tokens, n), &mut NoProcessor, &mut |_| {}, &self.cancel)?;
        Ok(outs.into_iter().map(|g| g.text).collect())
    }

    /// One greedy answer to each conversation, consecutive ones that continue the same block decoded as rows of
    /// one batch (at most `rows`). Answer `i` is capped at `budgets[i]` as it would be alone.
    fn answer_rows(&mut self, convs: &[Vec<(&'static str, String)>], budgets: &[usize], cache_prefix: bool) -> Vec<anyhow::Result<String>> {
        let mut out: Vec<Option<anyhow::Result<String>>> = (0..convs.len()).map(|_| None).collect();
        let mut group: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut group_head: Option<String> = None;
        for (i, m) in convs.iter().enumerate() {
            let (head, prompt) = match self.split(m, cache_prefix) {
                Ok(s) => s,
                Err(e) => {
                    out[i] = Some(Err(e));
                    continue;
                }
            };
            if !group.is_empty() && (head != group_head || group.len() >= self.rows) {
                self.decode_group(group_head.as_deref(), &std::mem::take(&mut group), budgets, &mut out);
            }
            group_head = head;
            group.push((i, prompt));
        }
        self.decode_group(group_head.as_deref(), &group, budgets, &mut out);
        out.into_iter().map(|o| o.unwrap_or_else(|| Err(anyhow::anyhow!("never decoded")))).collect()
    }

    fn decode_group(&self, head: Option<&str>, group: &[(usize, Vec<u32>)], budgets: &[usize], out: &mut [Option<anyhow::Result<String>>]) {
        if group.is_empty() {
            return;
        }
        let prefix = head.and_then(|h| self.resident.prefixes.get(h));
        let prompts: Vec<Vec<u32>> = group.iter().map(|(_, p)| p.clone()).collect();
        let max = group.iter().map(|&(i, _)| budgets[i]).max().unwrap_or(0);
        let decoded = self.model.generate_batch(prefix, &prompts, &Self::options(max, 1), &mut NoProcessor, &mut |_| {}, &self.cancel);
        match decoded {
            Ok(gens) => {
                for (&(i, _), g) in group.iter().zip(gens) {
                    // A row that ran past its own budget (a batch-mate's was longer) ends where it would have alone:
                    // at its budget, without a stop string before it.
                    out[i] = Some(if g.tokens.len() > budgets[i] { self.model.decode(&g.tokens[..budgets[i]]) } else { Ok(g.text) });
                }
            }
            // One failing row (a prompt past the context length) must not sink its batch-mates.
            Err(_) if group.len() > 1 => group.iter().for_each(|g| self.decode_group(head, std::slice::from_ref(g), budgets, out)),
            Err(e) => out[group[0].0] = Some(Err(e)),
        }
    }

    fn budget(&self, text: &str) -> usize {
        // Formal rewrites run longer than the input; cap so a runaway sample cannot stall a document.
        (self.model.encode(text).map_or(64, |t| t.len()) * 2 + 24).min(256)
    }
}

/// The last message's content: the sentence a prompt asks about.
fn turn<'a>(messages: &'a [(&'static str, String)]) -> &'a str {
    messages.last().map_or("", |m| m.1.as_str())
}

impl Neural for LlmBackend {
    fn translate(&mut self, text: &str, from: Lang, to: Lang) -> Result<String, String> {
        self.translate_many(&[text.to_string()], from, to).pop().expect("one result per text")
    }

    fn generate(&mut self, messages: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
        let budget = self.budget(turn(messages));
        self.answer(messages, n, budget, true).map_err(|e| format!("{e:#}"))
    }

    fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
        self.model.perplexity(text).map_err(|e| format!("{e:#}"))
    }

    fn similarity(&mut self, input: &str, candidates: &[&str], lang: Lang) -> Result<Option<Vec<f64>>, String> {
        self.similarity_many(&[(input, candidates.to_vec())], lang).pop().expect("one result per item")
    }

    fn batch_size(&self) -> usize {
        self.rows
    }

    fn translate_many(&mut self, texts: &[String], from: Lang, to: Lang) -> Vec<Result<String, String>> {
        let convs: Vec<_> = texts.iter().map(|t| registro_rewrite::prompt::translation_messages(t, from, to)).collect();
        let budgets: Vec<usize> = texts.iter().map(|t| self.budget(t)).collect();
        self.answer_rows(&convs, &budgets, false)
            .into_iter()
            .map(|r| r.map(|a| registro_rewrite::prompt::clean_answer(&a)).map_err(|e| format!("{e:#}")))
            .collect()
    }

    fn generate_many(&mut self, prompts: &[Vec<(&'static str, String)>], n: usize) -> Vec<Result<Vec<String>, String>> {
        if n > 1 {
            // Sampled answers are seeded per row of their own batch: they stay one conversation at a time.
            return prompts.iter().map(|m| self.generate(m, n)).collect();
        }
        let budgets: Vec<usize> = prompts.iter().map(|m| self.budget(turn(m))).collect();
        self.answer_rows(prompts, &budgets, true).into_iter().map(|r| r.map(|a| vec![a]).map_err(|e| format!("{e:#}"))).collect()
    }

    fn perplexity_many(&mut self, texts: &[&str], lang: Lang) -> Vec<Result<f64, String>> {
        if self.rows <= 1 {
            return texts.iter().map(|t| self.perplexity(t, lang)).collect();
        }
        match self.model.perplexity_many(texts) {
            Ok(v) => v.into_iter().map(|r| r.map_err(|e| format!("{e:#}"))).collect(),
            Err(e) => texts.iter().map(|_| Err(format!("{e:#}"))).collect(),
        }
    }

    fn similarity_many(&mut self, items: &[(&str, Vec<&str>)], lang: Lang) -> Vec<Result<Option<Vec<f64>>, String>> {
        if lang != Lang::En {
            return items.iter().map(|_| Ok(None)).collect();
        }
        let Some(enc) = self.encoder() else { return items.iter().map(|_| Ok(None)).collect() };
        // Every input and candidate of the batch in one encoder call.
        let texts: Vec<&str> = items.iter().flat_map(|(input, cands)| std::iter::once(*input).chain(cands.iter().copied())).collect();
        let e = match enc.embed(&texts) {
            Ok(e) => e,
            Err(e) => return items.iter().map(|_| Err(format!("{e:#}"))).collect(),
        };
        let mut at = 0;
        items
            .iter()
            .map(|(_, cands)| {
                let (input, rest) = (&e[at], &e[at + 1..at + 1 + cands.len()]);
                at += 1 + cands.len();
                Ok(Some(rest.iter().map(|c| registro_engine::bert::cosine(input, c)).collect()))
            })
            .collect()
    }
}

pub fn backend(method: Method, id: &str) -> anyhow::Result<Box<dyn Neural>> {
    // A run made on a server stores `remote:<model>@<API base>`: resuming it reconnects there.
    if let Some((served, url)) = registro_generate::remote::parse_id(id) {
        let mut cfg = registro_generate::remote::Config::new(&url);
        cfg.model = Some(served);
        let b = super::remote::RemoteNeural::connect(cfg).with_context(|| format!("reconnecting to the run's backend {url}"))?;
        return Ok(Box::new(b));
    }
    let b = LlmBackend::load(id).with_context(|| format!("--method {} needs a chat model", method.name()))?;
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
        let r = registro_generate::models::resolve(&id).with_context(|| format!("the embedding scorer needs {id}"))?;
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
        let r = registro_generate::models::resolve(id)?;
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
    let r = registro_generate::models::resolve(id)?;
    let enc = SentenceEncoder::load(&r.dir, DeviceChoice::default())?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    enc.embed(&refs)
}
