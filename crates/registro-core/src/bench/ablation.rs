//! The ablation evaluation: translate a CoCoA-MT / IWSLT-style folder in both registers with each system (generic,
//! then adding one control at a time, and the MTFC pivot) and score it: CoCoA matched accuracy (M-Acc, the
//! official rule, via `registro-metrics`) with counts, the analyzer's own register accuracy, flags, BLEU and chrF
//! against the same-register references, and seconds per segment.
//!
//! Generations are memoised across systems (a system that only adds reranking or repair on top of the previous
//! one reuses its candidates), so the cost is one decoding pass per distinct prompt/constraint/N.
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use registro_metrics::macc::{Counts, Label, MatchedAccuracy, Register as MRegister};
use registro_metrics::{corpus_stats, prepare_refs, Bleu, Chrf, Metric, Tokenizer};
use registro_register::data::{self, Pair};
use serde::Serialize;

use registro_generate::backend::{GenRequest, Generated, Generator, OnDone};
use registro_generate::constrain::Constraints;
use registro_generate::prompt::ChatFormat;
use crate::translate::{analyze, Controls, Lang, Options, Pool, Register, SystemKind, Translator, Verdict};
use crate::progress::{Progress, ProgressFn};

#[derive(Clone, Debug, Serialize)]
pub struct SystemSpec {
    pub name: String,
    pub system: SystemKind,
    pub controls: Controls,
}

/// generic → +prompt → +fewshot → +constrain → +rerank → +repair, and the pivot system.
pub fn default_systems() -> Vec<SystemSpec> {
    let mut out = vec![SystemSpec { name: "generic".into(), system: SystemKind::Controlled, controls: Controls::default() }];
    let mut acc = Vec::new();
    for c in Controls::all().0 {
        acc.push(c);
        let controls = Controls(acc.clone());
        out.push(SystemSpec { name: format!("+{}", c.as_str()), system: SystemKind::Controlled, controls });
    }
    out.push(SystemSpec { name: "pivot (MTFC)".into(), system: SystemKind::Pivot, controls: Controls::default() });
    out
}

/// Parses `generic,prompt,all,pivot,prompt+fewshot` style lists.
pub fn parse_systems(s: &str) -> anyhow::Result<Vec<SystemSpec>> {
    s.split(',')
        .map(|part| {
            let part = part.trim();
            Ok(if part == "pivot" {
                SystemSpec { name: "pivot (MTFC)".into(), system: SystemKind::Pivot, controls: Controls::default() }
            } else {
                let controls: Controls = part.parse()?;
                SystemSpec { name: controls.label(), system: SystemKind::Controlled, controls }
            })
        })
        .collect()
}

#[derive(Clone, Debug)]
pub struct AblationOptions {
    pub dir: PathBuf,
    pub lang: Lang,
    /// Only the held-out part of a training folder (the last 50 sources of each domain).
    pub held_out: bool,
    /// Only contrastive sources (formal ≠ informal reference), as M-Acc is about those.
    pub contrastive_only: bool,
    pub limit: Option<usize>,
    pub systems: Vec<SystemSpec>,
    pub n_best: usize,
    pub max_tokens: usize,
    pub shots: usize,
    pub respectful: bool,
    /// The old path: every segment's n-best search, no early exit (compare with `REGISTRO_BATCH_ROWS=1`).
    pub sequential: bool,
    /// Few-shot examples retrieved per sentence instead of once for the whole set of sources.
    pub shots_per_sentence: bool,
    /// Examples retrieved per sentence and shown in its own turn, beside the document's shots.
    pub sentence_examples: usize,
    /// Also run the plain baseline on this GGUF file: llama.cpp answering each source through the chat template
    /// with the one-line register instruction, greedy (skipped, with a note, where llama-cpp-python is missing).
    pub llama_cpp: Option<PathBuf>,
    /// Seconds the caller spent loading the model, counted into each system's whole-process seconds.
    pub load_secs: f64,
    /// Check candidates' meaning against the source with EmbeddingGemma ([`registro_generate::qe`]) when it is installed.
    pub meaning_check: bool,
    /// With the encoder: each sentence's own examples chosen by meaning (else by word overlap, the default).
    pub meaning_retrieval: bool,
    /// The document's examples the same for every document ([`registro_generate::fewshot::Pool::fixed`]).
    pub fixed_document_examples: bool,
    /// The second opinion by back-translation ([`Options::back_translation`]).
    pub back_translation: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RegisterScores {
    /// CoCoA-MT matched accuracy for this register (FORMAL/(FORMAL+INFORMAL) or the reverse).
    pub macc: f64,
    pub counts: MaccCounts,
    /// Share of segments whose final analysis is the requested register or neutral (not wrong, not uncertain).
    pub analyzer_ok: f64,
    pub flagged: usize,
    pub repaired: usize,
    pub bleu: f64,
    pub chrf: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct MaccCounts {
    pub formal: u64,
    pub informal: u64,
    pub neutral: u64,
    pub other: u64,
}

impl From<Counts> for MaccCounts {
    fn from(c: Counts) -> Self {
        MaccCounts { formal: c.formal, informal: c.informal, neutral: c.neutral, other: c.other }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SystemResult {
    pub name: String,
    pub formal: RegisterScores,
    pub informal: RegisterScores,
    pub segments: usize,
    /// Wall seconds per segment and register, counting only new decoding (memoised candidates cost nothing).
    pub seconds_per_segment: f64,
    /// Tokens of the decoded candidates per second spent decoding (memoised candidates excluded).
    pub decoded_tokens_per_s: f64,
    /// Seconds per segment and register as a user running only this system waits: the model's and the meaning
    /// check's loads included (for the llama.cpp baseline, its whole child process).
    pub process_seconds_per_segment: f64,
    /// Outputs: (formal, informal) per source.
    pub outputs: Vec<(String, String)>,
    /// Per source, (formal, informal): the CoCoA-MT scorer's label of the output and the flag Registro put on it.
    /// Lets a held-out check count what matters to a user: an output in the wrong register, or one the check
    /// missed, that carries no flag.
    pub details: Vec<(OutputDetail, OutputDetail)>,
}

/// How one output fared: the reference scorer's label and Registro's own flag (None: not flagged).
#[derive(Clone, Debug, Serialize)]
pub struct OutputDetail {
    pub label: Label,
    pub flag: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AblationReport {
    pub lang: Lang,
    pub model: String,
    pub dir: String,
    pub sources: usize,
    /// The sources themselves, in the order of each system's outputs (so a reader can tell an output that is the
    /// source from a translation).
    pub source_texts: Vec<String>,
    pub systems: Vec<SystemResult>,
    /// Why a comparison was left out (the llama.cpp baseline without llama-cpp-python, say).
    pub notes: Vec<String>,
}

/// Memoises generations by (prefix, turn, n, constraints); counts what it really decoded.
struct Memo<'g> {
    inner: &'g mut dyn Generator,
    cache: HashMap<String, Vec<Generated>>,
    /// (tokens decoded, seconds decoding), read by the run while the translator holds the memo.
    decoded: Rc<Cell<(usize, f64)>>,
}

impl Memo<'_> {
    fn count(&self, tokens: usize, secs: f64) {
        let (t, s) = self.decoded.get();
        self.decoded.set((t + tokens, s + secs));
    }
}

fn memo_key(r: &GenRequest) -> anyhow::Result<String> {
    Ok(format!("{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}", r.prefix, r.turn, r.n, r.max_tokens, serde_json::to_string(&r.constraints)?))
}

impl Generator for Memo<'_> {
    fn id(&self) -> String {
        self.inner.id()
    }
    fn chat_format(&self) -> &ChatFormat {
        self.inner.chat_format()
    }
    fn count_tokens(&self, text: &str) -> Option<usize> {
        self.inner.count_tokens(text)
    }
    fn take_notes(&mut self) -> Vec<String> {
        self.inner.take_notes()
    }
    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max_tokens: usize, c: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        let key = format!("{prefix}\u{0}{turn}\u{0}{n}\u{0}{max_tokens}\u{0}{}", serde_json::to_string(c)?);
        if let Some(v) = self.cache.get(&key) {
            return Ok(v.clone());
        }
        let t0 = Instant::now();
        let v = self.inner.generate(prefix, turn, n, max_tokens, c, cancel)?;
        self.count(v.iter().map(|g| g.tokens).sum(), t0.elapsed().as_secs_f64());
        self.cache.insert(key, v.clone());
        Ok(v)
    }

    /// Hits at once; the misses go to the model as one document-level call (batched where it can).
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        let mut misses = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            match self.cache.get(&memo_key(r)?) {
                Some(v) => on_done(i, Ok(v.clone()))?,
                None => misses.push(i),
            }
        }
        let reqs: Vec<GenRequest> = misses.iter().map(|&i| requests[i].clone()).collect();
        let (cache, mut tokens) = (&mut self.cache, 0);
        let t0 = Instant::now();
        let r = self.inner.generate_many(&reqs, cancel, &mut |k, g| {
            if let Ok(v) = &g {
                tokens += v.iter().map(|g| g.tokens).sum::<usize>();
                cache.insert(memo_key(&reqs[k])?, v.clone());
            }
            on_done(misses[k], g)
        });
        self.count(tokens, t0.elapsed().as_secs_f64());
        r
    }
}

pub fn load_sources(o: &AblationOptions) -> anyhow::Result<Vec<Pair>> {
    let pairs = data::load_dir(&o.dir, o.lang)?;
    let mut pairs = if o.held_out { data::split(pairs).1 } else { pairs };
    if o.contrastive_only {
        pairs.retain(|p| p.contrastive());
    }
    if pairs.iter().any(|p| p.formal_annotated.is_none() || p.informal_annotated.is_none()) {
        anyhow::bail!("{}: M-Acc needs the annotated references (*.formal.annotated / *.informal.annotated)", o.dir.display());
    }
    if let Some(n) = o.limit {
        // Spread the subset over the domains instead of taking the first domain only.
        let step = (pairs.len() as f64 / n.max(1) as f64).max(1.0);
        pairs = (0..n.min(pairs.len())).map(|i| pairs[(i as f64 * step) as usize].clone()).collect();
    }
    Ok(pairs)
}

fn bleu_tokenizer(lang: Lang) -> Tokenizer {
    // sacrebleu's ja-mecab when the metric engine has it, else characters.
    if lang == Lang::Ja {
        "ja-mecab".parse().unwrap_or(Tokenizer::Char)
    } else {
        Tokenizer::V13a
    }
}

fn corpus_score(metric: &dyn Metric, hyps: &[String], refs: &[String]) -> anyhow::Result<f64> {
    let prepared = prepare_refs(metric, &[refs.to_vec()])?;
    let stats = corpus_stats(metric, hyps, &prepared)?;
    Ok(metric.score(&stats.sum()))
}

pub fn run(gen: &mut dyn Generator, pool: Option<Pool>, o: &AblationOptions, progress: ProgressFn<'_>, cancel: &AtomicBool) -> anyhow::Result<AblationReport> {
    let pairs = load_sources(o)?;
    anyhow::ensure!(!pairs.is_empty(), "{}: no sources to translate", o.dir.display());
    let sources: Vec<String> = pairs.iter().map(|p| p.source.clone()).collect();
    let model = gen.id();
    let decoded = Rc::new(Cell::new((0usize, 0.0f64)));
    let mut memo = Memo { inner: gen, cache: HashMap::new(), decoded: decoded.clone() };
    // Loading the meaning check's encoder is part of what a user running this system waits for.
    let t_meaning = Instant::now();
    let meaning = if o.meaning_check { registro_generate::qe::MeaningCheck::installed()? } else { None };
    let meaning_load_secs = t_meaning.elapsed().as_secs_f64();
    let mut tr = Translator::new(&mut memo, pool).with_meaning_check(meaning);
    let budget = tr.token_budget(o.lang, o.max_tokens);
    let mut notes = vec![format!(
        "token budget: {:.2} tokens per source character + 16, at most {} ({})",
        budget.per_source_char, budget.cap, budget.measured_by
    )];
    notes.push(match tr.meaning_check() {
        Some(m) => format!("meaning check: {m} (drift below {:.2} flagged, {:.2} under the best candidate unfaithful)", registro_generate::qe::DRIFT_BELOW, registro_generate::qe::DRIFT_MARGIN),
        None if o.meaning_check => format!("meaning check: off ({} is not installed: `registro models fetch {}`)", registro_generate::qe::MODEL, registro_generate::qe::MODEL),
        None => "meaning check: off".into(),
    });
    notes.push(format!("second opinion: {}", registro_register::back_translation::describe(o.lang, o.back_translation)));
    if !o.shots_per_sentence {
        notes.push(format!("document examples: {}", if o.fixed_document_examples { "fixed per language and register" } else { "retrieved by the document's words" }));
    }
    if o.sentence_examples > 0 {
        let by = if tr.meaning_check().is_some() && o.meaning_retrieval { registro_generate::qe::MODEL } else { crate::translate::WORD_OVERLAP };
        notes.push(format!("each sentence's own examples chosen by {by}"));
    }
    let total = (o.systems.len() * 2 * sources.len()) as u64;
    let mut done = 0u64;
    let mut results = Vec::new();
    let formal_reg = if o.respectful { Register::Respectful } else { Register::Formal };
    for spec in &o.systems {
        let t0 = Instant::now();
        let (tok0, secs0) = decoded.get();
        let mut per_reg = Vec::new();
        for register in [formal_reg, Register::Informal] {
            let opts = Options {
                controls: spec.controls.clone(),
                system: spec.system.clone(),
                n_best: o.n_best,
                max_tokens: o.max_tokens,
                shots: o.shots,
                early_exit: !o.sequential,
                shots_per_sentence: o.shots_per_sentence,
                sentence_examples: o.sentence_examples,
                meaning_retrieval: o.meaning_retrieval,
                fixed_document_examples: o.fixed_document_examples,
                back_translation: o.back_translation,
                ..Options::new(o.lang, register)
            };
            let segs = tr.translate(&sources, &opts, cancel, &mut |s| {
                done += 1;
                progress(Progress { done, total, message: format!("{} {} {}/{}", spec.name, register.as_str(), s.index + 1, sources.len()) });
                Ok(())
            })?;
            anyhow::ensure!(segs.len() == sources.len(), "cancelled");
            per_reg.push((register, segs));
        }
        let secs = t0.elapsed().as_secs_f64();
        let (tok1, secs1) = decoded.get();
        let decoded_tokens_per_s = if secs1 > secs0 { (tok1 - tok0) as f64 / (secs1 - secs0) } else { 0.0 };
        let mut scores = Vec::new();
        let mut details: Vec<Vec<OutputDetail>> = Vec::new();
        for (register, segs) in &per_reg {
            let hyps: Vec<String> = segs.iter().map(|s| s.text.clone()).collect();
            let (mut sc, labels) = score_register(o.lang, &pairs, *register, &hyps)?;
            details.push(
                segs.iter()
                    .zip(labels)
                    .map(|(s, label)| OutputDetail { label, flag: s.flagged.then(|| s.flag_reason.clone().unwrap_or_else(|| "flagged".into())) })
                    .collect(),
            );
            sc.analyzer_ok = segs.iter().filter(|s| matches!(s.verdict, Verdict::Ok | Verdict::Neutral)).count() as f64 / segs.len() as f64;
            sc.flagged = segs.iter().filter(|s| s.flagged).count();
            sc.repaired = segs.iter().filter(|s| s.before_repair.is_some()).count();
            scores.push(sc);
        }
        let outputs = per_reg[0].1.iter().zip(&per_reg[1].1).map(|(f, i)| (f.text.clone(), i.text.clone())).collect();
        let informal_details = details.pop().expect("two registers");
        let details = details.pop().expect("two registers").into_iter().zip(informal_details).collect();
        let informal = scores.pop().expect("two registers");
        let formal = scores.pop().expect("two registers");
        results.push(SystemResult {
            name: spec.name.clone(),
            formal,
            informal,
            segments: sources.len(),
            seconds_per_segment: secs / (2 * sources.len()) as f64,
            decoded_tokens_per_s,
            process_seconds_per_segment: (o.load_secs + meaning_load_secs + secs) / (2 * sources.len()) as f64,
            outputs,
            details,
        });
    }
    drop(tr);
    notes.extend(memo.take_notes());
    if let Some(path) = &o.llama_cpp {
        match llama_cpp_baseline(path, o, &pairs, formal_reg) {
            Ok(r) => results.push(r),
            Err(e) => notes.push(format!("llama.cpp baseline not measured: {e:#}")),
        }
    }
    Ok(AblationReport { lang: o.lang, model, dir: o.dir.display().to_string(), sources: sources.len(), source_texts: sources, systems: results, notes })
}

/// M-Acc, BLEU and chrF of one register's outputs; the analyzer's counts are the caller's.
fn score_register(lang: Lang, pairs: &[Pair], register: Register, hyps: &[String]) -> anyhow::Result<(RegisterScores, Vec<Label>)> {
    let f_ann: Vec<String> = pairs.iter().map(|p| p.formal_annotated.clone().unwrap_or_default()).collect();
    let i_ann: Vec<String> = pairs.iter().map(|p| p.informal_annotated.clone().unwrap_or_default()).collect();
    let mreg = if register.is_formal_side() { MRegister::Formal } else { MRegister::Informal };
    let (m, labels) = MatchedAccuracy::new(mreg, lang.code()).evaluate(hyps, &f_ann, &i_ann)?;
    let refs: Vec<String> = pairs.iter().map(|p| if register.is_formal_side() { p.formal.clone() } else { p.informal.clone() }).collect();
    let bleu = Bleu { tokenizer: bleu_tokenizer(lang), ..Default::default() };
    let scores = RegisterScores {
        macc: if register.is_formal_side() { m.formal } else { m.informal },
        counts: m.counts.into(),
        analyzer_ok: 0.0,
        flagged: 0,
        repaired: 0,
        bleu: corpus_score(&bleu, hyps, &refs)?,
        chrf: corpus_score(&Chrf::default(), hyps, &refs)?,
    };
    Ok((scores, labels))
}

/// The plain loop the control layer is measured against (issue 14): llama.cpp, the same model file, each source
/// alone through the chat template with the `prompt` control's one-line register instruction, greedy. Nothing
/// checks or repairs its output; the analyzer's verdict is reported as for the other systems.
fn llama_cpp_baseline(path: &Path, o: &AblationOptions, pairs: &[Pair], formal: Register) -> anyhow::Result<SystemResult> {
    let sources: Vec<String> = pairs.iter().map(|p| p.source.clone()).collect();
    let registers = [formal, Register::Informal];
    let jobs: Vec<(String, Vec<String>)> = registers
        .iter()
        .map(|&register| {
            let spec = registro_generate::prompt::PromptSpec { lang: o.lang, register, instruct: true, gender: None, shots: &[] };
            (registro_generate::prompt::system_text(&spec), sources.clone())
        })
        .collect();
    let run = registro_engine::bench::llama_cpp_chat(path, &jobs, o.max_tokens)?;
    let mut scores = Vec::new();
    let mut details: Vec<Vec<OutputDetail>> = Vec::new();
    for (&register, outs) in registers.iter().zip(&run.outputs) {
        let hyps: Vec<String> = outs.iter().map(|t| t.trim().to_string()).collect();
        let (mut sc, labels) = score_register(o.lang, pairs, register, &hyps)?;
        let ok = hyps.iter().filter(|h| matches!(analyze(o.lang, h).verdict(register), Verdict::Ok | Verdict::Neutral)).count();
        sc.analyzer_ok = ok as f64 / hyps.len().max(1) as f64;
        scores.push(sc);
        // Nothing checks the plain loop's outputs, so nothing is flagged.
        details.push(labels.into_iter().map(|label| OutputDetail { label, flag: None }).collect());
    }
    let informal_details = details.pop().expect("two registers");
    let details = details.pop().expect("two registers").into_iter().zip(informal_details).collect();
    let n = (2 * sources.len()) as f64;
    let outputs = run.outputs[0].iter().zip(&run.outputs[1]).map(|(f, i)| (f.trim().to_string(), i.trim().to_string())).collect();
    let informal = scores.pop().expect("two registers");
    let formal = scores.pop().expect("two registers");
    Ok(SystemResult {
        name: "llama.cpp greedy (prompt only)".into(),
        formal,
        informal,
        segments: sources.len(),
        seconds_per_segment: (run.process_secs - run.load_secs) / n,
        decoded_tokens_per_s: f64::NAN,
        process_seconds_per_segment: run.process_secs / n,
        outputs,
        details,
    })
}

/// The report as an aligned text table.
pub fn table(r: &AblationReport) -> String {
    let mut s = format!(
        "EN-{} · {} sources from {} · model {}\n{:<34} {:>7} {:>9} {:>7} {:>9} {:>6} {:>6} {:>6} {:>6} {:>5} {:>7} {:>7} {:>7}\n",
        r.lang.code().to_uppercase(),
        r.sources,
        r.dir,
        r.model,
        "system",
        "M-Acc F",
        "(F/I/N/O)",
        "M-Acc I",
        "(F/I/N/O)",
        "BLEU F",
        "BLEU I",
        "chrF F",
        "chrF I",
        "flags",
        "s/seg",
        "tok/s",
        "+load"
    );
    for x in &r.systems {
        let c = |c: &MaccCounts| format!("{}/{}/{}/{}", c.formal, c.informal, c.neutral, c.other);
        s.push_str(&format!(
            "{:<34} {:>7.3} {:>9} {:>7.3} {:>9} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>5} {:>7.2} {:>7.1} {:>7.2}\n",
            x.name,
            x.formal.macc,
            c(&x.formal.counts),
            x.informal.macc,
            c(&x.informal.counts),
            x.formal.bleu,
            x.informal.bleu,
            x.formal.chrf,
            x.informal.chrf,
            x.formal.flagged + x.informal.flagged,
            x.seconds_per_segment,
            x.decoded_tokens_per_s,
            x.process_seconds_per_segment
        ));
    }
    if let Some(base) = r.systems.iter().find(|x| x.name.starts_with("llama.cpp")) {
        for x in r.systems.iter().filter(|x| !x.name.starts_with("llama.cpp")) {
            s.push_str(&format!(
                "{}: {:.2}× the llama.cpp loop's seconds per segment, model load included ({:.2} vs {:.2})\n",
                x.name,
                x.process_seconds_per_segment / base.process_seconds_per_segment,
                x.process_seconds_per_segment,
                base.process_seconds_per_segment
            ));
        }
    }
    for n in &r.notes {
        s.push_str(n);
        s.push('\n');
    }
    s
}
