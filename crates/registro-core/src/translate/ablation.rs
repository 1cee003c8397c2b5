//! The ablation evaluation: translate a CoCoA-MT / IWSLT-style folder in both registers with each system (generic,
//! then adding one control at a time, and the MTFC pivot) and score it: CoCoA matched accuracy (M-Acc, the
//! official rule, via `registro-metrics`) with counts, the analyzer's own register accuracy, flags, BLEU and chrF
//! against the same-register references, and seconds per segment.
//!
//! Generations are memoised across systems (a system that only adds reranking or repair on top of the previous
//! one reuses its candidates), so the cost is one decoding pass per distinct prompt/constraint/N.
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use registro_metrics::macc::{Counts, MatchedAccuracy, Register as MRegister};
use registro_metrics::{corpus_stats, prepare_refs, Bleu, Chrf, Metric, Tokenizer};
use registro_register::data::{self, Pair};
use serde::Serialize;

use super::backend::{Generated, Generator};
use super::constrain::Constraints;
use super::prompt::ChatFormat;
use super::{Control, Controls, Lang, Options, Pool, Register, SystemKind, Translator, Verdict};
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
    for c in Control::ALL {
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
    /// Outputs: (formal, informal) per source.
    pub outputs: Vec<(String, String)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AblationReport {
    pub lang: Lang,
    pub model: String,
    pub dir: String,
    pub sources: usize,
    pub systems: Vec<SystemResult>,
}

/// Memoises generations by (prefix, turn, n, constraints).
struct Memo<'g> {
    inner: &'g mut dyn Generator,
    cache: HashMap<String, Vec<Generated>>,
}

impl Generator for Memo<'_> {
    fn id(&self) -> String {
        self.inner.id()
    }
    fn chat_format(&self) -> &ChatFormat {
        self.inner.chat_format()
    }
    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max_tokens: usize, c: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        let key = format!("{prefix}\u{0}{turn}\u{0}{n}\u{0}{max_tokens}\u{0}{}", serde_json::to_string(c)?);
        if let Some(v) = self.cache.get(&key) {
            return Ok(v.clone());
        }
        let v = self.inner.generate(prefix, turn, n, max_tokens, c, cancel)?;
        self.cache.insert(key, v.clone());
        Ok(v)
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
    let mut memo = Memo { inner: gen, cache: HashMap::new() };
    let mut tr = Translator::new(&mut memo, pool);
    let total = (o.systems.len() * 2 * sources.len()) as u64;
    let mut done = 0u64;
    let mut results = Vec::new();
    let formal_reg = if o.respectful { Register::Respectful } else { Register::Formal };
    for spec in &o.systems {
        let t0 = Instant::now();
        let mut per_reg = Vec::new();
        for register in [formal_reg, Register::Informal] {
            let opts = Options {
                controls: spec.controls.clone(),
                system: spec.system.clone(),
                n_best: o.n_best,
                max_tokens: o.max_tokens,
                shots: o.shots,
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
        let mut scores = Vec::new();
        for (register, segs) in &per_reg {
            let hyps: Vec<String> = segs.iter().map(|s| s.text.clone()).collect();
            let f_ann: Vec<String> = pairs.iter().map(|p| p.formal_annotated.clone().unwrap_or_default()).collect();
            let i_ann: Vec<String> = pairs.iter().map(|p| p.informal_annotated.clone().unwrap_or_default()).collect();
            let mreg = if register.is_formal_side() { MRegister::Formal } else { MRegister::Informal };
            let (m, _) = MatchedAccuracy::new(mreg, o.lang.code()).evaluate(&hyps, &f_ann, &i_ann)?;
            let refs: Vec<String> = pairs.iter().map(|p| if register.is_formal_side() { p.formal.clone() } else { p.informal.clone() }).collect();
            let bleu = Bleu { tokenizer: bleu_tokenizer(o.lang), ..Default::default() };
            let ok = segs.iter().filter(|s| matches!(s.verdict, Verdict::Ok | Verdict::Neutral)).count();
            scores.push(RegisterScores {
                macc: if register.is_formal_side() { m.formal } else { m.informal },
                counts: m.counts.into(),
                analyzer_ok: ok as f64 / segs.len() as f64,
                flagged: segs.iter().filter(|s| s.flagged).count(),
                repaired: segs.iter().filter(|s| s.before_repair.is_some()).count(),
                bleu: corpus_score(&bleu, &hyps, &refs)?,
                chrf: corpus_score(&Chrf::default(), &hyps, &refs)?,
            });
        }
        let outputs = per_reg[0].1.iter().zip(&per_reg[1].1).map(|(f, i)| (f.text.clone(), i.text.clone())).collect();
        let informal = scores.pop().expect("two registers");
        let formal = scores.pop().expect("two registers");
        results.push(SystemResult {
            name: spec.name.clone(),
            formal,
            informal,
            segments: sources.len(),
            seconds_per_segment: secs / (2 * sources.len()) as f64,
            outputs,
        });
    }
    Ok(AblationReport { lang: o.lang, model, dir: o.dir.display().to_string(), sources: sources.len(), systems: results })
}

/// The report as an aligned text table.
pub fn table(r: &AblationReport) -> String {
    let mut s = format!(
        "EN-{} · {} sources from {} · model {}\n{:<34} {:>7} {:>9} {:>7} {:>9} {:>6} {:>6} {:>6} {:>6} {:>5} {:>7}\n",
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
        "s/seg"
    );
    for x in &r.systems {
        let c = |c: &MaccCounts| format!("{}/{}/{}/{}", c.formal, c.informal, c.neutral, c.other);
        s.push_str(&format!(
            "{:<34} {:>7.3} {:>9} {:>7.3} {:>9} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>5} {:>7.2}\n",
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
            x.seconds_per_segment
        ));
    }
    s
}
