//! Register-controlled translation EN→DE/ES/FR/HI/IT/JA. A control layer over any backbone model, each step
//! switchable so its effect can be measured (`registro bench translate`):
//! 1. `prompt`: the register spelled out in the system prompt (per language/register templates);
//! 2. `fewshot`: contrastive CoCoA-MT examples retrieved by similarity, markers shown, in the cached prefix; and,
//!    for a run stored in a project, each segment's translation-memory match (an approved segment) as an exchange
//!    right before it;
//! 3. `constrain`: a logits processor banning the other register's markers and nudging towards the requested ones;
//! 4. `rerank`: N-best candidates reranked by register analysis + model score;
//! 5. `repair`: rule-based T-V / plain↔masu conversion of what is still wrong.
//!
//! Whatever is still wrong afterwards is flagged, never silently returned. Also: the uncontrolled (generic)
//! system, the MTFC pivot system (generic translation, then the rule formalizer of `registro-rewrite`), a
//! contrastive mode (both registers side by side), and the addressee's grammatical gender.

pub mod memory;
// Generation — backends, prompts, few-shot pools, constraints, the meaning check — is `registro-generate`'s; these
// are its modules under the names translation has always used for them.
pub use registro_generate::{backend, budget, constrain, fewshot, prompt, qe, remote};
pub use registro_generate::prompt::Gender;
pub mod request;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Context;
use registro_register::meaning;
use registro_register::repair::{self, Edit};
pub use registro_register::{analyze, Analysis, Label, Lang, Marker, Register, Verdict};
/// The register analyzer and repair crate, for callers that need its data loader or accuracy measures.
pub use registro_register as analyzer;
use registro_store::{NewRun, Output, RunId, RunStatus, Store, Task};
use serde::{Deserialize, Serialize};

pub use backend::{EngineGenerator, GenRequest, Generated, Generator};
pub use constrain::Constraints;
pub use fewshot::{Pool, Shot};
pub use remote::{open_for_run, open_generator, RemoteGenerator};
pub use request::{TranslateRequest, TranslateSource};

use crate::progress::{CancelToken, Progress, ProgressFn};

/// Examples of its own each sentence is shown by default. Measured on 24 held-out sources of DE/ES/FR/IT/JA/HI, both
/// registers, all controls (`bench translate --sentence-examples N`): mean BLEU 18.9 with none, 21.2 with one, 22.5
/// with two, every language up with two; seconds per segment about 1.5–2.7× those without (Hindi 3.2×).
pub const SENTENCE_EXAMPLES: usize = 2;

/// How each sentence's own examples are chosen without the multilingual encoder (the run's params say which).
pub const WORD_OVERLAP: &str = "word overlap";
/// A run's `fewshot_pool` when the user chose to translate without examples; `runs resume` reads it back to keep
/// that choice.
pub const NO_EXAMPLES: &str = "none: translated without examples (--no-examples)";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Control {
    Prompt,
    Fewshot,
    Constrain,
    Rerank,
    /// Among the reranker's candidates in the chosen register, the one the others agree with most (chrF minimum
    /// Bayes risk) instead of the one the model scores highest.
    Consensus,
    Repair,
}

impl Control {
    pub const ALL: [Control; 6] = [Control::Prompt, Control::Fewshot, Control::Constrain, Control::Rerank, Control::Consensus, Control::Repair];
    pub fn as_str(self) -> &'static str {
        match self {
            Control::Prompt => "prompt",
            Control::Fewshot => "fewshot",
            Control::Constrain => "constrain",
            Control::Rerank => "rerank",
            Control::Consensus => "consensus",
            Control::Repair => "repair",
        }
    }
}

/// A set of controls; empty = the uncontrolled (generic) system.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Controls(pub Vec<Control>);

impl Controls {
    /// What `all` means: every control but [`Control::Consensus`], which is asked for by name. On the development
    /// split (24 held-out sources of DE/ES/FR/IT/JA/HI, both registers) choosing by consensus among the
    /// reranker's beam candidates changed BLEU by 0 to −1.7, never up.
    pub fn all() -> Self {
        Controls(Control::ALL.into_iter().filter(|&c| c != Control::Consensus).collect())
    }
    pub fn has(&self, c: Control) -> bool {
        self.0.contains(&c)
    }
    pub fn label(&self) -> String {
        if self.0.is_empty() {
            "generic".into()
        } else {
            self.0.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("+")
        }
    }
}

impl std::str::FromStr for Controls {
    type Err = anyhow::Error;
    /// `prompt,fewshot,constrain,rerank,consensus,repair`, `all` (every control but consensus; `all+consensus`
    /// adds it), or `none`/`generic`.
    fn from_str(s: &str) -> anyhow::Result<Self> {
        let s = s.trim();
        if s.is_empty() || s == "none" || s == "generic" {
            return Ok(Controls::default());
        }
        let mut v = Vec::new();
        for part in s.split([',', '+']) {
            if part.trim() == "all" {
                for c in Controls::all().0 {
                    if !v.contains(&c) {
                        v.push(c);
                    }
                }
                continue;
            }
            let c = Control::ALL
                .into_iter()
                .find(|c| c.as_str() == part.trim())
                .with_context(|| format!("unknown control {part:?} (expected prompt, fewshot, constrain, rerank, consensus, repair, all or none)"))?;
            if !v.contains(&c) {
                v.push(c);
            }
        }
        // Keep pipeline order whatever order was typed.
        v.sort_by_key(|c| Control::ALL.iter().position(|x| x == c));
        Ok(Controls(v))
    }
}

/// The system that produces the translation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum SystemKind {
    /// The control layer with the given steps (none = generic translation).
    Controlled,
    /// MTFC pivot: generic translation, then the rule formalizer (`registro-rewrite`) for formal requests.
    Pivot,
}

impl SystemKind {
    pub const ALL: [SystemKind; 2] = [SystemKind::Controlled, SystemKind::Pivot];
    pub fn name(&self) -> &'static str {
        match self {
            SystemKind::Controlled => "controlled",
            SystemKind::Pivot => "pivot",
        }
    }
}

impl std::str::FromStr for SystemKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        SystemKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .with_context(|| format!("unknown system {s:?} (expected controlled or pivot)"))
    }
}

/// The control layer's settings for one translation (what [`Translator`] runs with); the options part of a
/// [`TranslateRequest`], which a run stores. A stored one that lacks an option added since gets its default.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Options {
    pub lang: Lang,
    pub register: Register,
    pub controls: Controls,
    pub system: SystemKind,
    /// Candidates per segment for reranking (1 = greedy).
    pub n_best: usize,
    /// A cap on any one segment's tokens; each segment's own budget comes from its length ([`budget`]).
    pub max_tokens: usize,
    pub gender: Option<Gender>,
    /// Few-shot examples per prompt.
    pub shots: usize,
    /// Retrieve examples per sentence (better matches) instead of once per document (one cached prefix).
    pub shots_per_sentence: bool,
    /// With document-level shots: this many more examples retrieved for each sentence, shown in its own turn after
    /// the shared prefix (the prefix's cache and batching stay). [`SENTENCE_EXAMPLES`] by default.
    pub sentence_examples: usize,
    /// With reranking: decode the n-best candidates only for segments whose greedy candidate is not in the
    /// requested register (off = every segment gets the full search, the old path).
    pub early_exit: bool,
    /// Each sentence's own examples chosen by meaning (EmbeddingGemma, when the translator has it: see
    /// [`Translator::with_meaning_check`]) rather than by word overlap. Off by default: on the development split
    /// (24 held-out sources of DE/ES/FR/IT/JA, both registers, all controls) it lowered BLEU by 2.5 on average
    /// (DE −3.0/−4.3, ES −4.6/−3.5, FR −4.4/−2.9, IT 0.0/−0.3, JA −3.1/+0.3) at the same M-Acc: examples that share
    /// the sentence's words show the model how to translate those words; paraphrases do not.
    pub meaning_retrieval: bool,
    /// The document's shared examples are the same for every document of the language and register
    /// ([`fewshot::Pool::fixed`]) instead of retrieved by the document's words, so their prefix's cache serves
    /// every later document too.
    pub fixed_document_examples: bool,
    /// With reranking: the chosen translation of a segment whose source has a negation, or the speaker and the
    /// listener acting on one another, is translated back into English by the same model and flagged where the
    /// back-translation reverses the polarity or the roles ([`registro_register::back_translation`]): the second
    /// opinion where the embedding check is weak. One more greedy generation for those segments only.
    pub back_translation: bool,
    /// Terms each segment must use or avoid (`--termbase`), enforced through the decoding constraints. Not part of
    /// the stored request: the run's `termbase` parameter names the file.
    #[serde(skip)]
    #[ts(skip)]
    pub termbase: Option<std::sync::Arc<registro_qa::Termbase>>,
    /// Approved translation-memory pairs shown before the segments they match (with the `fewshot` control).
    /// [`translate_and_store`] looks them up in the run's project when this is `None`.
    #[serde(skip)]
    #[ts(skip)]
    pub memory: Option<std::sync::Arc<memory::Examples>>,
}

impl Default for Options {
    /// German, formal: [`Options::new`]'s defaults for a language chosen later.
    fn default() -> Self {
        Options::new(Lang::De, Register::Formal)
    }
}

/// The most candidates per segment a translation may ask for: every face (CLI, window) takes its n-best from here,
/// so one cannot decode 20 candidates where the other stops at 8. Beyond 8 the reranker's pick did not change on the
/// development split while decoding time grows with every candidate.
pub const MAX_N_BEST: usize = 8;

impl Options {
    pub fn new(lang: Lang, register: Register) -> Self {
        Options {
            lang,
            register,
            controls: Controls::all(),
            system: SystemKind::Controlled,
            n_best: 4,
            max_tokens: 320,
            gender: None,
            shots: 3,
            shots_per_sentence: false,
            sentence_examples: SENTENCE_EXAMPLES,
            early_exit: true,
            meaning_retrieval: false,
            fixed_document_examples: false,
            back_translation: true,
            termbase: None,
            memory: None,
        }
    }

    /// The request's limits, checked once here for every face before a model is loaded or a run stored: 1 to
    /// [`MAX_N_BEST`] candidates, and the respectful register only where a language has one (Japanese).
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=MAX_N_BEST).contains(&self.n_best),
            "n-best {}: choose 1 to {MAX_N_BEST} candidates per segment",
            self.n_best
        );
        if self.register == Register::Respectful && !self.lang.has_respectful() {
            let with: Vec<&str> = Lang::ALL.into_iter().filter(|l| l.has_respectful()).map(|l| l.name()).collect();
            anyhow::bail!("the respectful register exists for {} only; {} has formal and informal", with.join(" and "), self.lang.name());
        }
        Ok(())
    }

    /// Name stored as the run's system.
    pub fn system_name(&self) -> String {
        match self.system {
            SystemKind::Pivot => "registro-pivot".into(),
            SystemKind::Controlled => format!("registro-{}", self.controls.label()),
        }
    }

    /// Whether translation-memory matches are shown to the model: they are few-shot examples, so the `fewshot`
    /// control of the controlled system decides (an ablation's generic system never sees them).
    pub(crate) fn uses_memory(&self) -> bool {
        self.system == SystemKind::Controlled && self.controls.has(Control::Fewshot)
    }

    fn effective_n(&self) -> usize {
        if self.controls.has(Control::Rerank) && self.system == SystemKind::Controlled {
            self.n_best.max(2)
        } else {
            1
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct CandidateOut {
    pub text: String,
    pub logprob: f32,
    /// Length-normalised log-probability.
    pub model_score: f32,
    /// Model score + register score (and −100 for each meaning problem): what decides between candidates of
    /// different registers or faithfulness.
    pub score: f32,
    /// Mean chrF to the other candidates of the winner's register and faithfulness (minimum Bayes risk), which
    /// decides among those; `None` where fewer than three share them and the score decides.
    #[serde(default)]
    pub consensus: Option<f64>,
    /// Cosine similarity to the source by the cross-lingual meaning check ([`qe`]); `None` where it did not run.
    #[serde(default)]
    pub meaning: Option<f64>,
    pub label: Label,
    pub verdict: Verdict,
    pub chosen: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct SegmentOut {
    pub index: usize,
    pub source: String,
    pub text: String,
    pub register: Register,
    pub analysis: Analysis,
    pub verdict: Verdict,
    pub flagged: bool,
    pub flag_reason: Option<String>,
    /// The text before repair, when repair changed it.
    pub before_repair: Option<String>,
    pub repair_edits: Vec<Edit>,
    pub candidates: Vec<CandidateOut>,
    /// The chosen translation read back in English by the same model, where the second opinion ran
    /// ([`Options::back_translation`]).
    #[serde(default)]
    pub back_translation: Option<String>,
    /// Seconds from the start of the run until this segment was done (segments are decoded together, so this is
    /// when it could be shown, not its own cost).
    pub seconds: f64,
}

/// Register score added to the model score when reranking: a candidate in the requested register beats a more
/// fluent one in the wrong register.
fn register_score(v: Verdict) -> f32 {
    match v {
        Verdict::Ok => 1.0,
        Verdict::Neutral => 0.0,
        Verdict::Uncertain => -1.0,
        Verdict::Wrong => -3.0,
    }
}

/// Translates one document's segments with a fixed few-shot pool.
pub struct Translator<'g> {
    gen: &'g mut dyn Generator,
    pool: Option<Pool>,
    /// Cross-lingual meaning check of the candidates (reranking), when its model is installed.
    meaning: Option<std::sync::Arc<qe::MeaningCheck>>,
    /// Sees each segment as it finishes, whoever drives the run (the window shows it at once).
    watcher: Option<Box<dyn FnMut(&SegmentOut) + 'g>>,
}

impl<'g> Translator<'g> {
    /// `pool`: CoCoA-MT examples for the `fewshot` control (without one, that control is skipped and the run's
    /// params say so).
    pub fn new(gen: &'g mut dyn Generator, pool: Option<Pool>) -> Self {
        Translator { gen, pool, meaning: None, watcher: None }
    }

    /// With the reranker on, candidates are also checked for meaning drift ([`qe`]): one far less similar to the
    /// source than its best sibling never wins, and a chosen one below [`qe::DRIFT_BELOW`] is flagged.
    pub fn with_meaning_check(mut self, check: Option<std::sync::Arc<qe::MeaningCheck>>) -> Self {
        self.meaning = check;
        self
    }

    /// The meaning check's model, for the run's parameters (`None`: the check is off).
    pub fn meaning_check(&self) -> Option<&'static str> {
        self.meaning.as_ref().map(|m| m.id())
    }

    /// `f` sees every finished segment, after it is stored when the run is stored.
    pub fn watch(mut self, f: impl FnMut(&SegmentOut) + 'g) -> Self {
        self.watcher = Some(Box::new(f));
        self
    }

    pub fn generator_id(&self) -> String {
        self.gen.id()
    }

    /// What the run's parameters record about the model's backend (`null` for a local model).
    pub fn backend_description(&self) -> serde_json::Value {
        self.gen.describe()
    }

    /// Tokens each segment of a run into `lang` may take, capped at `max_tokens`.
    pub fn token_budget(&self, lang: Lang, max_tokens: usize) -> budget::TokenBudget {
        budget::TokenBudget::for_document(&*self.gen, self.pool.as_ref(), lang, max_tokens)
    }

    pub fn has_pool(&self) -> bool {
        self.pool.as_ref().is_some_and(|p| !p.is_empty())
    }

    /// Where a run's few-shot examples come from, for its parameters.
    pub fn pool_description(&self, lang: Lang, register: Register) -> String {
        match (self.pool.as_ref().filter(|p| !p.is_empty()), lang, register) {
            // A translator gets no pool only when the run chose it (`--no-examples`): a missing shipped pool is
            // an error before the run starts (`Pool::default_for`).
            (None, ..) => NO_EXAMPLES.to_string(),
            (Some(p), lang, Register::Respectful) if lang.has_respectful() && p.has_respectful() => {
                format!("registro hand-written JA respectful pairs (compiled in), then {}", p.origin())
            }
            (Some(p), ..) => p.origin().to_string(),
        }
    }

    /// Translates `sources` (one segment each). `on_segment` sees each result as it is done (progress, storage),
    /// in the order the backend finishes them; returning an error from it stops the loop. Cancellation returns
    /// the segments finished so far (sorted by index), never a segment cut short.
    pub fn translate(
        &mut self,
        sources: &[String],
        opts: &Options,
        cancel: &AtomicBool,
        on_segment: &mut dyn FnMut(&SegmentOut) -> anyhow::Result<()>,
    ) -> anyhow::Result<Vec<SegmentOut>> {
        self.translate_mixed(sources, &vec![opts.register; sources.len()], opts, cancel, on_segment)
    }

    /// Like [`Translator::translate`] with a register per segment (the document default, overridden per
    /// sentence); `opts.register` is ignored.
    pub fn translate_mixed(
        &mut self,
        sources: &[String],
        registers: &[Register],
        opts: &Options,
        cancel: &AtomicBool,
        on_segment: &mut dyn FnMut(&SegmentOut) -> anyhow::Result<()>,
    ) -> anyhow::Result<Vec<SegmentOut>> {
        let mut out: Vec<SegmentOut> = Vec::new();
        self.translate_streamed(sources, registers, opts, cancel, &mut |seg| {
            on_segment(seg)?;
            out.push(seg.clone());
            Ok(())
        })?;
        out.sort_by_key(|s| s.index);
        Ok(out)
    }

    /// Like [`Translator::translate_mixed`], keeping nothing: each segment lives only until `on_segment` has seen
    /// it (stored it, printed it), so a 10,000-segment document costs the memory of one window of segments, not
    /// of every result. Returns how many segments were finished.
    pub fn translate_streamed(
        &mut self,
        sources: &[String],
        registers: &[Register],
        opts: &Options,
        cancel: &AtomicBool,
        on_segment: &mut dyn FnMut(&SegmentOut) -> anyhow::Result<()>,
    ) -> anyhow::Result<usize> {
        anyhow::ensure!(registers.len() == sources.len(), "{} registers for {} segments", registers.len(), sources.len());
        opts.validate()?;
        let controlled = opts.system == SystemKind::Controlled;
        let use_shots = controlled && opts.controls.has(Control::Fewshot) && self.has_pool();
        // Each sentence's own examples, beside the document's.
        let wants_own = use_shots && !opts.shots_per_sentence && opts.sentence_examples > 0;
        if let (true, Some(check)) = (wants_own && opts.meaning_retrieval, self.meaning.clone()) {
            if let Some(p) = self.pool.as_mut().filter(|p| !p.retrieves_by_meaning()) {
                p.add_meaning_retrieval(check)?;
            }
        }
        // Borrowed field by field: the watcher sees each segment from inside the generator's callback.
        let Translator { gen, pool, meaning, watcher } = self;
        let meaning = meaning.as_deref().filter(|_| controlled && opts.controls.has(Control::Rerank));
        let read_back =
            controlled && opts.controls.has(Control::Rerank) && opts.back_translation && registro_register::back_translation::reads_back(opts.lang);
        // A segment the second opinion reads back waits for it (at the end of its window); the others go out at once.
        let wants_reading_back = |seg: &SegmentOut| {
            read_back && !seg.flagged && !seg.text.trim().is_empty() && registro_register::back_translation::worth_checking(opts.lang, &seg.source, &seg.text)
        };
        let on_segment = &mut |seg: &SegmentOut| -> anyhow::Result<()> {
            on_segment(seg)?;
            if let Some(w) = watcher.as_mut() {
                w(seg);
            }
            Ok(())
        };
        let doc_query = sources.join(" ");
        // Examples retrieved once per document and register, so every segment continues the same cached prefix.
        let mut doc_shots: std::collections::HashMap<Register, Vec<Shot>> = Default::default();
        let started = Instant::now();
        let mut finished = 0usize;
        let budget = budget::TokenBudget::for_document(&**gen, pool.as_ref(), opts.lang, opts.max_tokens);
        // The document in windows of WINDOW segments, in document order: a window's requests all go to the backend
        // at once (batched rows, requests in flight), but a 10,000-segment document never holds 10,000 prompts of
        // a few KiB each (memory stays flat in document length), and segments arrive roughly in order.
        for start in (0..sources.len()).step_by(WINDOW) {
            if cancel.load(std::sync::atomic::Ordering::SeqCst) {
                break;
            }
            let end = (start + WINDOW).min(sources.len());
            // Segments of one register together, as they share a prefix and constraints.
            let mut order: Vec<usize> = (start..end).collect();
            order.sort_by_key(|&i| registers[i].as_str());
            let mut jobs: Vec<(usize, Options, GenRequest)> = Vec::new();
            // Each sentence's own examples are chosen by meaning where the pool has the encoder: a window's sentences
            // embedded at once.
            let source_vecs = match pool.as_ref() {
                Some(p) if wants_own && opts.meaning_retrieval => p.embed_queries(&sources[start..end])?,
                _ => None,
            };
            for index in order {
                let (source, register) = (&sources[index], registers[index]);
                let o = Options { register, ..opts.clone() };
                if source.trim().is_empty() {
                    let seg = finish_segment(index, source, vec![Generated { text: String::new(), logprob: 0.0, tokens: 0 }], None, &o, started)?;
                    on_segment(&seg)?;
                    finished += 1;
                    continue;
                }
                let shots = match (use_shots, opts.shots_per_sentence) {
                    (false, _) => Vec::new(),
                    (true, true) => pool.as_ref().map(|p| p.retrieve(source, o.shots, register, o.gender)).unwrap_or_default(),
                    (true, false) => doc_shots
                        .entry(register)
                        .or_insert_with(|| {
                            pool.as_ref()
                                .map(|p| if o.fixed_document_examples { p.fixed(o.shots, register, o.gender) } else { p.retrieve(&doc_query, o.shots, register, o.gender) })
                                .unwrap_or_default()
                        })
                        .clone(),
                };
                let mut constraints =
                    if controlled && o.controls.has(Control::Constrain) { constrain::for_register(o.lang, register) } else { Constraints::default() };
                if let Some(tb) = &o.termbase {
                    constraints = constraints.with_terms(&tb.generation_terms(source, Some(register)));
                }
                let spec = prompt::PromptSpec { lang: o.lang, register, instruct: controlled && o.controls.has(Control::Prompt), gender: o.gender, shots: &shots };
                // The sentence's own nearest pool pairs, beyond the document's shots, as exchanges in its turn: the
                // shared prefix stays shared, so the document is still decoded in batches.
                let own: Vec<Shot> = match (wants_own, pool.as_ref()) {
                    (true, Some(p)) => p
                        .retrieve_by_meaning(source, source_vecs.as_ref().map(|v| v[index - start].as_slice()), o.shots + o.sentence_examples, register, o.gender)
                        .into_iter()
                        .filter(|s| !shots.iter().any(|d| d.source == s.source))
                        .take(o.sentence_examples)
                        .collect(),
                    _ => Vec::new(),
                };
                let mut examples: Vec<prompt::MemoryExample> = own.iter().map(|s| prompt::MemoryExample { source: &s.source, target: &s.wanted }).collect();
                let memory = o.memory.as_ref().filter(|_| o.uses_memory()).and_then(|m| m.get(register, source));
                examples.extend(memory.map(|m| prompt::MemoryExample { source: &m.source, target: &m.target }));
                let p = prompt::build_with(gen.chat_format(), &spec, &examples, source)?;
                let n = o.effective_n();
                jobs.push((index, o, GenRequest { prefix: p.prefix, turn: p.turn, n, max_tokens: budget.tokens_for(source), constraints }));
            }
            // Early exit: with reranking on, every segment is first decoded greedily; only a segment whose greedy
            // candidate is not in the requested register, drifts from the source's meaning, or fails the rule check
            // (English left in, a number or a negation lost, cut off) gets the n-best search the reranker chooses
            // from — the reranker puts a faithful candidate first, so a flag a sibling avoids is not delivered.
            let early_exit = opts.early_exit && jobs.iter().any(|j| j.2.n > 1);
            let first: Vec<GenRequest> = jobs.iter().map(|j| if early_exit { GenRequest { n: 1, ..j.2.clone() } } else { j.2.clone() }).collect();
            let mut second: Vec<usize> = Vec::new();
            // The greedy candidates of the searched segments: they stay in the running beside the n-best (a beam
            // search need not find the greedy path, and it may be the least bad where every candidate is flagged).
            let mut greedy: std::collections::HashMap<usize, Vec<Generated>> = std::collections::HashMap::new();
            let mut pending: Vec<SegmentOut> = Vec::new();
            // A finished segment goes out at once, or waits for its reading back at the end of the window.
            let mut deliver = |seg: SegmentOut| -> anyhow::Result<()> {
                if wants_reading_back(&seg) {
                    pending.push(seg);
                } else {
                    on_segment(&seg)?;
                    finished += 1;
                }
                Ok(())
            };
            if !jobs.is_empty() {
                gen.generate_many(&first, cancel, &mut |k, gens| {
                    let (index, o, req) = &jobs[k];
                    let gens = mend_lookalikes(o.lang, gens.with_context(|| format!("segment {}", index + 1))?);
                    let sims = similarities(meaning, &sources[*index], &gens)?;
                    let drifts = sims.as_ref().is_some_and(|s| s.first().is_some_and(|&x| x < qe::DRIFT_BELOW));
                    let greedy_fails = |g: &Generated| {
                        analyze(o.lang, &g.text).verdict(o.register) != Verdict::Ok || !meaning::check(o.lang, &sources[*index], &g.text).is_empty()
                    };
                    if early_exit && req.n > 1 && (drifts || gens.first().map_or(true, greedy_fails)) {
                        second.push(k);
                        greedy.insert(k, gens);
                        return Ok(());
                    }
                    deliver(finish_segment(*index, &sources[*index], gens, sims, o, started)?)
                })?;
            }
            if !second.is_empty() && !cancel.load(std::sync::atomic::Ordering::SeqCst) {
                second.sort_unstable();
                let reqs: Vec<GenRequest> = second.iter().map(|&k| jobs[k].2.clone()).collect();
                gen.generate_many(&reqs, cancel, &mut |r, gens| {
                    let (index, o, _) = &jobs[second[r]];
                    let mut gens = mend_lookalikes(o.lang, gens.with_context(|| format!("segment {}", index + 1))?);
                    for g in greedy.remove(&second[r]).unwrap_or_default() {
                        if !gens.iter().any(|x| x.text == g.text) {
                            gens.push(g);
                        }
                    }
                    let sims = similarities(meaning, &sources[*index], &gens)?;
                    deliver(finish_segment(*index, &sources[*index], gens, sims, o, started)?)
                })?;
            }
            if !pending.is_empty() && !cancel.load(std::sync::atomic::Ordering::SeqCst) {
                let reqs = pending
                    .iter()
                    .map(|seg| registro_generate::back_translation::request(gen.chat_format(), opts.lang, &seg.text, budget.tokens_for(&seg.source) + 16))
                    .collect::<anyhow::Result<Vec<GenRequest>>>()?;
                let mut backs: Vec<Option<String>> = vec![None; pending.len()];
                // A reading that fails (a server that refuses the request, say) is no second opinion: the segment keeps
                // the checks it had, and the translation goes on.
                gen.generate_many(&reqs, cancel, &mut |k, gens| {
                    backs[k] = gens.ok().and_then(|g| g.into_iter().next()).map(|g| g.text);
                    Ok(())
                })?;
                // Cancelled part-way: the waiting segments are not reported, as a cut-short request is not.
                if cancel.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                for (mut seg, back) in pending.drain(..).zip(backs) {
                    read_back_check(&mut seg, back.filter(|b| registro_generate::back_translation::usable(opts.lang, b)));
                    on_segment(&seg)?;
                    finished += 1;
                }
            }
        }
        Ok(finished)
    }
}

/// The second opinion on a finished segment: `back`, its translation read back in English, compared with the source
/// (polarity, who acts on whom); a disagreement flags the segment with both in words.
fn read_back_check(seg: &mut SegmentOut, back: Option<String>) {
    if let Some(why) = back.as_deref().and_then(|b| registro_register::back_translation::disagreement(&seg.source, b)) {
        seg.flagged = true;
        seg.flag_reason = Some(seg.flag_reason.take().map_or(why.clone(), |r| format!("{r}; {why}")));
    }
    seg.back_translation = back;
}

/// Segments whose requests go to the backend together (see `Translator::translate_mixed`): enough to fill a GPU's
/// batch of 64 rows several times over and keep a server's requests in flight, few enough that the prompts held at
/// once are a few MiB whatever the document's length.
pub const WINDOW: usize = 256;

/// Each candidate's similarity to the source by the meaning check, when there is one.
fn similarities(check: Option<&qe::MeaningCheck>, source: &str, gens: &[Generated]) -> anyhow::Result<Option<Vec<f64>>> {
    let Some(check) = check else { return Ok(None) };
    let texts: Vec<&str> = gens.iter().map(|g| g.text.as_str()).collect();
    Ok(Some(check.similarities(source, &texts)?))
}

/// A letter of the wrong alphabet that looks like the right one ("escolа" with a Cyrillic а) is the model's slip
/// between two tokens drawn alike: it is put right in every candidate as it arrives, before anything reads them.
fn mend_lookalikes(lang: Lang, mut gens: Vec<Generated>) -> Vec<Generated> {
    for g in &mut gens {
        if let Some(fixed) = meaning::fix_lookalikes(lang, &g.text) {
            g.text = fixed;
        }
    }
    gens
}

/// Reranking, pivot formalization, repair and flagging for one segment's candidates. `sims`: each candidate's
/// similarity to the source by the meaning check, when it runs.
fn finish_segment(index: usize, source: &str, gens: Vec<Generated>, sims: Option<Vec<f64>>, opts: &Options, t0: Instant) -> anyhow::Result<SegmentOut> {
    let controlled = opts.system == SystemKind::Controlled;
    let rerank = controlled && opts.controls.has(Control::Rerank);
    // A refusal, an untranslated or a number-changing candidate never wins over a faithful one; nor does one that
    // drifts far further from the source's meaning than its best sibling. Where every candidate has a problem, the
    // one with fewer kinds of problem wins: what is delivered stays flagged, but with less to fix.
    let drifting = sims.as_deref().map(qe::drifting).unwrap_or_else(|| vec![false; gens.len()]);
    let problems: Vec<usize> = gens
        .iter()
        .zip(&drifting)
        .map(|(g, &d)| if rerank { usize::from(d) + meaning::check(opts.lang, source, &g.text).len() } else { 0 })
        .collect();
    let faithful: Vec<bool> = problems.iter().map(|&p| p == 0).collect();
    let mut cands: Vec<CandidateOut> = gens
        .into_iter()
        .zip(&problems)
        .enumerate()
        .map(|(i, (g, &problems))| {
            let a = analyze(opts.lang, &g.text);
            let verdict = a.verdict(opts.register);
            let model_score = g.score();
            let score = model_score - 100.0 * problems as f32 + if rerank { register_score(verdict) } else { 0.0 };
            let meaning = sims.as_ref().map(|s| s[i]);
            CandidateOut { score, consensus: None, meaning, text: g.text, logprob: g.logprob, model_score, label: a.label, verdict, chosen: false }
        })
        .collect();
    anyhow::ensure!(!cands.is_empty(), "the model returned no candidate for segment {}", index + 1);
    let best = if rerank { choose(&mut cands, &faithful, opts.controls.has(Control::Consensus)) } else { 0 };
    cands[best].chosen = true;
    let mut text = cands[best].text.clone();
    if opts.system == SystemKind::Pivot && opts.register.is_formal_side() {
        if let Some(l) = rewrite_lang(opts.lang) {
            text = registro_rewrite::formalize(&text, l).text;
        }
    }
    let mut analysis = analyze(opts.lang, &text);
    let mut verdict = analysis.verdict(opts.register);
    let mut before_repair = None;
    let mut repair_edits = Vec::new();
    let wants_respect = opts.register == Register::Respectful && !analysis.respectful;
    if controlled && opts.controls.has(Control::Repair) && (matches!(verdict, Verdict::Wrong | Verdict::Uncertain) || wants_respect) {
        let r = repair::convert(opts.lang, &text, opts.register);
        if r.changed() {
            let a2 = analyze(opts.lang, &r.text);
            let v2 = a2.verdict(opts.register);
            // Keep the repair only if it does not make things worse.
            if register_score(v2) >= register_score(verdict) {
                before_repair = Some(std::mem::replace(&mut text, r.text));
                repair_edits = r.edits;
                analysis = a2;
                verdict = v2;
            }
        }
    }
    let (mut flagged, mut flag_reason) = output_flags(&analysis, verdict, opts.register, opts.lang, Some(source), &text);
    if let Some(drift) = cands[best].meaning.and_then(qe::drift_flag) {
        flagged = true;
        flag_reason = Some(flag_reason.map_or(drift.clone(), |r| format!("{r}; {drift}")));
    }
    Ok(SegmentOut {
        index,
        source: source.to_string(),
        text,
        register: opts.register,
        analysis,
        verdict,
        flagged,
        flag_reason,
        before_repair,
        repair_edits,
        candidates: cands,
        back_translation: None,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The reranker's choice: the best score. With `consensus`, the score only decides the register and faithfulness
/// the chosen candidate has; among the candidates that share them, the one the others agree with most (chrF,
/// minimum Bayes risk) wins where there are at least three of them, the score where there are fewer or they tie.
fn choose(cands: &mut [CandidateOut], faithful: &[bool], consensus: bool) -> usize {
    let by_score = (0..cands.len()).max_by(|&a, &b| cands[a].score.total_cmp(&cands[b].score)).unwrap_or(0);
    if !consensus {
        return by_score;
    }
    let class = |i: usize| (faithful[i], cands[i].verdict);
    let peers: Vec<usize> = (0..cands.len()).filter(|&i| class(i) == class(by_score)).collect();
    let texts: Vec<&str> = peers.iter().map(|&i| cands[i].text.as_str()).collect();
    let agreement = registro_metrics::chrf::consensus(&texts);
    for (&i, a) in peers.iter().zip(&agreement) {
        cands[i].consensus = *a;
    }
    peers
        .iter()
        .copied()
        .max_by(|&a, &b| {
            let (ca, cb) = (cands[a].consensus.unwrap_or(0.0), cands[b].consensus.unwrap_or(0.0));
            ca.total_cmp(&cb).then(cands[a].score.total_cmp(&cands[b].score))
        })
        .unwrap_or(by_score)
}

fn flag(a: &Analysis, v: Verdict, requested: Register) -> (bool, Option<String>) {
    let wrong: Vec<String> = a.wrong_markers(requested).map(|m| m.text.clone()).collect();
    match v {
        Verdict::Wrong => (true, Some(format!("{} instead of {}: {}", a.label.as_str(), requested.as_str(), wrong.join(", ")))),
        Verdict::Uncertain if requested == Register::Respectful && wrong.is_empty() => {
            (true, Some("no honorific (sonkeigo/kenjōgo) expression found".into()))
        }
        Verdict::Uncertain => (true, Some(format!("only ambiguous markers, leaning {}: {}", requested.opposite().as_str(), wrong.join(", ")))),
        _ => (false, None),
    }
}

fn rewrite_lang(l: Lang) -> Option<registro_rewrite::Lang> {
    crate::languages::rewrite_lang(l.code())
}

/// Both registers side by side (contrastive mode).
#[derive(Clone, Debug, Serialize)]
pub struct ContrastivePair {
    pub formal: SegmentOut,
    pub informal: SegmentOut,
}

pub fn translate_contrastive(
    tr: &mut Translator<'_>,
    sources: &[String],
    opts: &Options,
    cancel: &AtomicBool,
) -> anyhow::Result<Vec<ContrastivePair>> {
    let formal_reg = if opts.register == Register::Respectful { Register::Respectful } else { Register::Formal };
    let f = tr.translate(sources, &Options { register: formal_reg, ..opts.clone() }, cancel, &mut |_| Ok(()))?;
    let i = tr.translate(sources, &Options { register: Register::Informal, ..opts.clone() }, cancel, &mut |_| Ok(()))?;
    Ok(f.into_iter().zip(i).map(|(formal, informal)| ContrastivePair { formal, informal }).collect())
}

/// Contrastive mode, stored: one run per side of the T-V distinction over the same sources — the formal (or, when
/// asked, respectful) run first, then the informal one — each with its own outputs, flags and status, so both show
/// in the runs table and the Dashboard. Progress counts both passes; a cancel during the first pass skips the second.
pub fn translate_contrastive_and_store(
    store: &mut Store,
    target: &RunTarget,
    tr: &mut Translator<'_>,
    sources: &[String],
    opts: &Options,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<(Vec<RunId>, Vec<ContrastivePair>)> {
    let formal_reg = if opts.register == Register::Respectful { Register::Respectful } else { Register::Formal };
    let n = sources.len() as u64;
    let (formal_run, formal) = translate_and_store(store, target, tr, sources, None, &Options { register: formal_reg, ..opts.clone() }, &mut |p| progress(Progress { total: 2 * n, ..p }), cancel)?;
    if cancel.is_cancelled() {
        return Ok((vec![formal_run], Vec::new()));
    }
    let (informal_run, informal) = translate_and_store(store, target, tr, sources, None, &Options { register: Register::Informal, ..opts.clone() }, &mut |p| progress(Progress { done: n + p.done, total: 2 * n, ..p }), cancel)?;
    // Each run names the other, so the review grid shows the two registers as two target columns.
    for (run, other) in [(formal_run, informal_run), (informal_run, formal_run)] {
        let mut params = store.run(run)?.params;
        params["contrastive_with"] = serde_json::json!(other);
        params["request"]["contrastive"] = serde_json::json!(true);
        store.set_run_params(run, &params)?;
    }
    let pairs = formal.into_iter().zip(informal).map(|(formal, informal)| ContrastivePair { formal, informal }).collect();
    Ok((vec![formal_run, informal_run], pairs))
}

/// What a stored translation run is about.
pub struct RunTarget {
    pub project_id: i64,
    pub document_id: Option<i64>,
}

/// The stored form of a segment: candidates (with the pre-repair text and edits), detected register, flag.
pub fn to_output(s: &SegmentOut) -> Output {
    Output {
        segment_index: s.index as i64,
        text: s.text.clone(),
        candidates: serde_json::json!({
            "candidates": s.candidates,
            // Pasted text is stored as no document: the source kept here is what QA compares the translation with.
            "source": s.source,
            "before_repair": s.before_repair,
            "repair_edits": s.repair_edits,
            "markers": s.analysis.markers,
            "verdict": s.verdict,
            "back_translation": s.back_translation,
        }),
        detected_register: Some(s.analysis.label.as_str().to_lowercase()),
        flagged: s.flagged,
        flag_reason: s.flag_reason.clone(),
        timings: serde_json::json!({ "total_ms": (s.seconds * 1000.0).round() }),
    }
}

/// Translates and stores the run (status, params, one output per segment as it is done). Returns the run id and
/// the segments; a cancelled run keeps its finished segments and ends `cancelled`.
#[allow(clippy::too_many_arguments)]
pub fn translate_and_store(
    store: &mut Store,
    target: &RunTarget,
    tr: &mut Translator<'_>,
    sources: &[String],
    registers: Option<&[Register]>,
    opts: &Options,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<(RunId, Vec<SegmentOut>)> {
    let mut segs: Vec<SegmentOut> = Vec::new();
    let id = store_translation(store, target, tr, sources, registers, opts, progress, cancel, &mut |seg| segs.push(seg.clone()))?;
    segs.sort_by_key(|s| s.index);
    Ok((id, segs))
}

/// [`translate_and_store`] keeping nothing: each segment is stored, shown to `on_stored` and dropped, so memory
/// does not grow with the document (the CLI's long documents; their export reads the texts back from the store).
#[allow(clippy::too_many_arguments)]
pub fn store_translation(
    store: &mut Store,
    target: &RunTarget,
    tr: &mut Translator<'_>,
    sources: &[String],
    registers: Option<&[Register]>,
    opts: &Options,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
    on_stored: &mut dyn FnMut(&SegmentOut),
) -> anyhow::Result<RunId> {
    opts.validate()?;
    let default_regs = vec![opts.register; sources.len()];
    let registers = registers.unwrap_or(&default_regs);
    anyhow::ensure!(registers.len() == sources.len(), "{} registers for {} segments", registers.len(), sources.len());
    // The project's approved segments, each segment's best match shown to the model before it.
    let looked_up;
    let opts = match &opts.memory {
        None if opts.uses_memory() => {
            let examples = memory::Examples::lookup(store, target.project_id, opts.lang, sources, registers, None)?;
            looked_up = Options { memory: Some(std::sync::Arc::new(examples)), ..opts.clone() };
            &looked_up
        }
        _ => opts,
    };
    let overrides: serde_json::Map<String, serde_json::Value> = registers
        .iter()
        .enumerate()
        .filter(|(_, r)| **r != opts.register)
        .map(|(i, r)| (i.to_string(), serde_json::json!(r)))
        .collect();
    let mut run = NewRun::new(target.project_id, Task::Translate, opts.system_name());
    run.document_id = target.document_id;
    run.model_id = Some(tr.generator_id());
    run.source_lang = Some("en".into());
    run.target_lang = Some(opts.lang.code().into());
    run.register = Some(opts.register.as_str().into());
    run.total_segments = Some(sources.len() as i64);
    let budget = tr.token_budget(opts.lang, opts.max_tokens);
    let token_budget = serde_json::json!({ "per_source_char": budget.per_source_char, "measured_by": budget.measured_by });
    run.params = serde_json::json!({
        // The request as it ran, every option in it: what `runs resume` reads back (`TranslateRequest::of_run`).
        "request": TranslateRequest::as_ran(opts, tr, false),
        // The rest says what the run found and did.
        "fewshot_pool": tr.pool_description(opts.lang, opts.register),
        "token_budget": token_budget,
        // The cross-lingual meaning check's model (null: not installed or switched off).
        "meaning_check": tr.meaning_check(),
        "sentence_retrieval": match tr.meaning_check() {
            Some(m) if opts.meaning_retrieval => format!("{m} cosine"),
            _ => WORD_OVERLAP.to_string(),
        },
        // The back-translation second opinion: how it ran, or why not.
        "second_opinion": registro_register::back_translation::describe(
            opts.lang,
            opts.back_translation && opts.system == SystemKind::Controlled && opts.controls.has(Control::Rerank),
        ),
        "register_overrides": overrides,
        // Segments shown an approved translation-memory match as an example.
        "memory_examples": opts.memory.as_ref().filter(|_| opts.uses_memory()).map_or(0, |m| m.count(sources, registers)),
    });
    if let Some(tb) = &opts.termbase {
        run.params["termbase"] = serde_json::json!({ "file": tb.origin, "entries": tb.entries.len() });
    }
    let backend = tr.backend_description();
    if !backend.is_null() {
        run.params["backend"] = backend;
    }
    let id = store.create_run(&run)?;
    store.start_run(id)?;
    let total = sources.len() as u64;
    let mut done = 0u64;
    let mut early_exit = EarlyExit::default();
    // A panic must not leave the run `running`: it ends `failed` below like any error.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tr.translate_streamed(sources, registers, opts, cancel.flag(), &mut |seg| {
            store.put_output(id, &to_output(seg))?;
            done += 1;
            early_exit.add(seg);
            progress(Progress { done, total, message: if seg.flagged { format!("segment {} flagged", seg.index + 1) } else { format!("segment {}", seg.index + 1) } });
            on_stored(seg);
            Ok(())
        })
    }))
    .unwrap_or_else(|p| Err(anyhow::anyhow!(registro_run::run_state::crash_message(p.as_ref()))));
    match result {
        Ok(finished) => {
            if opts.effective_n() > 1 && opts.early_exit {
                run.params["early_exit"] = early_exit.to_json();
                store.set_run_params(id, &run.params)?;
            }
            let status = if cancel.is_cancelled() && finished < sources.len() { RunStatus::Cancelled } else { RunStatus::Done };
            store.finish_run(id, status, None)?;
            // Over a test set with references, the run is ready for the Dashboard (elsewhere this skips at once).
            registro_eval::report::store_run_statistics(store, &[id], cancel, &mut |_| {});
            Ok(id)
        }
        Err(e) => {
            store.finish_run(id, RunStatus::Failed, Some(&format!("{e:#}")))?;
            Err(e)
        }
    }
}

/// What early exit did in a run: how many segments the greedy candidate settled (already in the requested
/// register), how many needed the n-best search, and how often the reranker then chose other than the first
/// (most probable) candidate — the figure that says whether the extra candidates earn their decoding time.
/// Counted segment by segment, as they stream past.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EarlyExit {
    pub settled_by_greedy: usize,
    pub searched: usize,
    pub reranker_picked_not_first: usize,
}

impl EarlyExit {
    pub fn add(&mut self, s: &SegmentOut) {
        if s.candidates.len() > 1 {
            self.searched += 1;
            if s.candidates.iter().position(|c| c.chosen).is_some_and(|p| p > 0) {
                self.reranker_picked_not_first += 1;
            }
        } else {
            self.settled_by_greedy += 1;
        }
    }

    /// The run parameter `early_exit`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "rule": "greedy first; n-best only for segments whose greedy candidate is not in the requested register",
            "settled_by_greedy": self.settled_by_greedy,
            "searched": self.searched,
            "reranker_picked_not_first": self.reranker_picked_not_first,
        })
    }
}

/// Keeps the lines of a plain-text translation (a file or standard input) as a document of the project, one
/// segment per line with blank lines kept, so that its run can be resumed after a crash: resume reads the source
/// text from the run's document. The same lines translated again reuse the document stored the first time.
pub fn store_source_lines(store: &mut Store, project: i64, name: &str, lang: Lang, sources: &[String]) -> anyhow::Result<i64> {
    let doc = registro_store::NewDocument {
        name: name.to_string(),
        source_lang: "en".into(),
        target_lang: Some(lang.code().into()),
        origin: Some(name.to_string()),
        format: "text".into(),
        segments: sources.iter().map(|s| registro_store::NewSegment { text: s.clone(), references: Vec::new() }).collect(),
    };
    if let Some(id) = store.find_document_by_content(project, &doc)? {
        return Ok(id);
    }
    store.insert_document(project, &doc).with_context(|| format!("storing the lines of {name} as a document"))
}

/// The id of the project called `name`, created when missing.
pub fn project_id(store: &Store, name: &str) -> anyhow::Result<i64> {
    Ok(store.find_or_create_project(name)?.id)
}

/// The analysis of one text against a requested register, as the view shows it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct SegmentCheck {
    pub analysis: Analysis,
    pub verdict: Verdict,
    pub flagged: bool,
    pub flag_reason: Option<String>,
    /// The segment's review status after a stored edit or repair; `None` for a check that stored nothing.
    pub status: Option<registro_store::SegmentStatus>,
}

/// The register check alone (what the view highlights while the text has no stored source).
pub fn check(lang: Lang, register: Register, text: &str) -> SegmentCheck {
    check_output(lang, register, None, text)
}

/// Every output check a segment's text gets — after translation, and again after each repair or edit, so a flag is
/// cleared only when the checks pass on the new text: the register (markers of the other register), and with the
/// source the meaning checks (refusal, untranslated or English left in, numbers, dates, names) and markup that
/// would show as text.
pub fn check_output(lang: Lang, register: Register, source: Option<&str>, text: &str) -> SegmentCheck {
    let analysis = analyze(lang, text);
    let verdict = analysis.verdict(register);
    let (flagged, flag_reason) = output_flags(&analysis, verdict, register, lang, source, text);
    SegmentCheck { analysis, verdict, flagged, flag_reason, status: None }
}

fn output_flags(a: &Analysis, v: Verdict, register: Register, lang: Lang, source: Option<&str>, text: &str) -> (bool, Option<String>) {
    let mut found = flag(a, v, register);
    let Some(source) = source else { return found };
    found = meaning::add_flags(found, lang, source, text);
    let mut reasons: Vec<String> = found.1.take().into_iter().collect();
    let raw = registro_qa::checks::raw_markup(source, text);
    if !raw.is_empty() {
        let shown: Vec<&str> = raw.iter().map(|s| s.text.as_str()).collect();
        reasons.push(format!("raw markup would show as text: {}", shown.join(", ")));
    }
    // The engine stops a candidate that loops or leaves its script (registro_engine::sense) and keeps its text as it
    // stood: the same check says why here, after an edit or repair too.
    if let Some(why) = registro_engine::sense::senseless(text) {
        reasons.push(why);
    }
    if reasons.is_empty() {
        (found.0, None)
    } else {
        (true, Some(reasons.join("; ")))
    }
}
