//! The evaluation use case shared by `registro eval` and the app's Dashboard: find hypothesis / reference files
//! (or a whole CoCoA/IWSLT-style folder of submissions), score them with `registro-metrics`, and store every
//! system as an `eval` run with its outputs and its corpus and segment metric results. Files are streamed
//! (`stream.rs`): memory holds the statistics, not the text, whatever the length of the test set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use registro_metrics::evaluate::{evaluate_with, EvalConfig, SystemReport};
use registro_metrics::macc::{Label, Register};
use registro_metrics::style::Providers;
use registro_store::{
    NewDocument, NewMetric, NewRun, NewSegment, Output, RunId, RunStatus, Store, StoreError, Task,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::progress::{CancelToken, Progress, ProgressFn};

pub mod stream;

pub use stream::LineReader;

pub use registro_metrics;
pub use registro_metrics::evaluate::{MetricName, SigTest};

/// Lines of a UTF-8 text file, split and right-stripped the way sacrebleu's CLI reads them.
pub fn read_lines(path: &Path) -> Result<Vec<String>> {
    read_lines_capped(path, None)
}

/// [`read_lines`] of a regular file no larger than `max_mb` MiB (`None`: `REGISTRO_MAX_INPUT_MB`, else 512), so a
/// FIFO, a device or a runaway file is refused instead of blocking or filling memory.
pub fn read_lines_capped(path: &Path, max_mb: Option<u64>) -> Result<Vec<String>> {
    stream::read_all_lines(path, max_mb)
}

/// Refuses now what reading `path` would refuse later (not a regular file, over the input cap), so a wrong
/// argument fails before anything is scored.
fn check_file(path: &Path, max_mb: Option<u64>) -> Result<()> {
    registro_store::import::lines::open_capped(path, max_mb)?;
    Ok(())
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Explicit files, as given on the command line.
#[derive(Clone, Debug, Default)]
pub struct EvalFiles {
    pub hyps: Vec<PathBuf>,
    pub refs: Vec<PathBuf>,
    pub src: Option<PathBuf>,
    pub formal_annotated: Option<PathBuf>,
    pub informal_annotated: Option<PathBuf>,
    pub register: Option<Register>,
    /// System names, one per hypothesis file (defaults to the file names).
    pub names: Vec<String>,
    /// The largest file read, in MiB (default: `REGISTRO_MAX_INPUT_MB`, else 512).
    pub max_input_mb: Option<u64>,
}

/// The files of one test set; systems sharing an `Arc` are compared with the first of them.
#[derive(Clone, Debug, Default)]
pub struct EvalTestSet {
    /// Identifies the set in output and grouping, e.g. `formal`.
    pub key: String,
    /// (name, file) of each reference stream.
    pub refs: Vec<(String, PathBuf)>,
    pub source: Option<PathBuf>,
    pub formal_annotated: Option<PathBuf>,
    pub informal_annotated: Option<PathBuf>,
}

/// One system to score: its hypothesis file against a test set.
#[derive(Clone, Debug)]
pub struct EvalSystem {
    pub name: String,
    pub hyp: PathBuf,
    pub register: Option<Register>,
    pub test_set: Arc<EvalTestSet>,
}

/// What an evaluation reads (files, checked to be regular and under the cap, not yet read), plus where each piece
/// came from (stored as run parameters).
pub struct LoadedEval {
    pub systems: Vec<EvalSystem>,
    pub origins: Vec<BTreeMap<String, String>>,
    pub lang: Option<String>,
    /// The largest file read, in MiB (`None`: `REGISTRO_MAX_INPUT_MB`, else 512).
    pub max_input_mb: Option<u64>,
}

fn load_test_set(
    key: String,
    refs: &[PathBuf],
    src: Option<&Path>,
    fa: Option<&Path>,
    ia: Option<&Path>,
    origin: &mut BTreeMap<String, String>,
    max_mb: Option<u64>,
) -> Result<EvalTestSet> {
    let checked = |p: &Path| -> Result<PathBuf> {
        check_file(p, max_mb)?;
        Ok(p.to_path_buf())
    };
    let mut ts = EvalTestSet {
        key,
        ..Default::default()
    };
    for r in refs {
        ts.refs.push((file_name(r), checked(r)?));
        origin.insert(format!("ref:{}", file_name(r)), r.display().to_string());
    }
    if let Some(s) = src {
        ts.source = Some(checked(s)?);
        origin.insert("src".into(), s.display().to_string());
    }
    if let Some(f) = fa {
        ts.formal_annotated = Some(checked(f)?);
        origin.insert("formal_annotated".into(), f.display().to_string());
    }
    if let Some(i) = ia {
        ts.informal_annotated = Some(checked(i)?);
        origin.insert("informal_annotated".into(), i.display().to_string());
    }
    Ok(ts)
}

pub fn load_files(files: &EvalFiles) -> Result<LoadedEval> {
    if files.hyps.is_empty() {
        bail!("no hypothesis file given (--hyp FILE… or --submissions DIR)");
    }
    if !files.names.is_empty() && files.names.len() != files.hyps.len() {
        bail!(
            "{} --name values for {} hypothesis files; give one name per file",
            files.names.len(),
            files.hyps.len()
        );
    }
    let mut origin = BTreeMap::new();
    let key = files
        .refs
        .first()
        .map_or_else(|| "test".to_string(), |r| file_name(r));
    let ts = Arc::new(load_test_set(
        key,
        &files.refs,
        files.src.as_deref(),
        files.formal_annotated.as_deref(),
        files.informal_annotated.as_deref(),
        &mut origin,
        files.max_input_mb,
    )?);
    let mut systems = Vec::new();
    let mut origins = Vec::new();
    for (i, h) in files.hyps.iter().enumerate() {
        let name = files.names.get(i).cloned().unwrap_or_else(|| file_name(h));
        let mut o = origin.clone();
        o.insert("hyp".into(), h.display().to_string());
        check_file(h, files.max_input_mb)?;
        systems.push(EvalSystem {
            name,
            hyp: h.clone(),
            register: files.register.or_else(|| register_of(h)),
            test_set: ts.clone(),
        });
        origins.push(o);
    }
    Ok(LoadedEval {
        systems,
        origins,
        lang: None,
        max_input_mb: files.max_input_mb,
    })
}

/// `formal` / `informal` from a file name like `system.formal.de`.
fn register_of(p: &Path) -> Option<Register> {
    let n = file_name(p);
    let parts: Vec<&str> = n.split('.').collect();
    parts.iter().rev().take(3).find_map(|s| {
        s.parse::<Register>()
            .ok()
            .filter(|_| *s == "formal" || *s == "informal")
    })
}

/// A CoCoA-MT / IWSLT 2022 formality-track folder: `<test>.{formal,informal}.annotated.<lang>` and
/// `<test>.{formal,informal}.<lang>` references, `<test>.en` source, and any other `<system>.{formal,informal}.<lang>`
/// file is a submission scored against the reference of its register.
pub fn discover_submissions(dir: &Path, lang: Option<&str>) -> Result<LoadedEval> {
    discover_submissions_capped(dir, lang, None)
}

/// [`discover_submissions`] reading no file over `max_mb` MiB (`None`: `REGISTRO_MAX_INPUT_MB`, else 512).
pub fn discover_submissions_capped(dir: &Path, lang: Option<&str>, max_mb: Option<u64>) -> Result<LoadedEval> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let lang = match lang {
        Some(l) => l.to_string(),
        None => {
            // The most common extension of register-marked files.
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for n in &names {
                let p: Vec<&str> = n.split('.').collect();
                if p.len() >= 3 && (p[p.len() - 2] == "formal" || p[p.len() - 2] == "informal") {
                    *counts.entry(p[p.len() - 1].to_string()).or_default() += 1;
                }
            }
            match counts.into_iter().max_by_key(|(_, c)| *c) {
                Some((l, _)) => l,
                None => bail!("{}: no `*.formal.<lang>` or `*.informal.<lang>` files; is this a submissions folder?", dir.display()),
            }
        }
    };
    let annotated_suffix = |reg: &str| format!(".{reg}.annotated.{lang}");
    let Some(stem) = names.iter().find_map(|n| {
        n.strip_suffix(&annotated_suffix("formal"))
            .map(str::to_string)
    }) else {
        bail!(
            "{}: no annotated formal reference `<test>.formal.annotated.{lang}` found (needed to tell references from submissions)",
            dir.display()
        );
    };
    let path = |n: String| -> Result<PathBuf> {
        let p = dir.join(&n);
        if p.is_file() {
            Ok(p)
        } else {
            bail!(
                "{}: expected {n} next to {stem}.formal.annotated.{lang}",
                dir.display()
            )
        }
    };
    let fa = path(format!("{stem}.formal.annotated.{lang}"))?;
    let ia = path(format!("{stem}.informal.annotated.{lang}"))?;
    let src = ["en", "src"]
        .iter()
        .map(|e| dir.join(format!("{stem}.{e}")))
        .find(|p| p.is_file());
    let mut systems = Vec::new();
    let mut origins = Vec::new();
    for reg in [Register::Formal, Register::Informal] {
        let r = if reg == Register::Formal {
            "formal"
        } else {
            "informal"
        };
        let reference = path(format!("{stem}.{r}.{lang}"))?;
        let mut origin = BTreeMap::new();
        origin.insert("submissions".into(), dir.display().to_string());
        let ts = Arc::new(load_test_set(
            r.to_string(),
            &[reference],
            src.as_deref(),
            Some(&fa),
            Some(&ia),
            &mut origin,
            max_mb,
        )?);
        for n in &names {
            let Some(system) = n.strip_suffix(&format!(".{r}.{lang}")) else {
                continue;
            };
            if system == stem || system.ends_with(".annotated") {
                continue;
            }
            let p = dir.join(n);
            let mut o = origin.clone();
            o.insert("hyp".into(), p.display().to_string());
            check_file(&p, max_mb)?;
            systems.push(EvalSystem {
                name: n.clone(),
                hyp: p,
                register: Some(reg),
                test_set: ts.clone(),
            });
            origins.push(o);
        }
    }
    if systems.is_empty() {
        bail!("{}: no submissions `<system>.formal.{lang}` / `<system>.informal.{lang}` besides the references", dir.display());
    }
    Ok(LoadedEval {
        systems,
        origins,
        lang: Some(lang),
        max_input_mb: max_mb,
    })
}

/// ISO 639-1 codes: the languages `--lang` may name (it picks tokenizers and M-Acc matching, and is stored with
/// every run, so a typo would be kept forever).
const ISO_639_1: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy \
    da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii \
    ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr \
    ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl \
    sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";

/// The most bootstrap samples / randomization trials accepted: the bootstrap holds samples × segments indices.
pub const MAX_SIG_SAMPLES: usize = 1_000_000;
/// Fewer samples than this cannot give a 95% interval or a p-value worth printing.
pub const MIN_SIG_SAMPLES: usize = 10;

/// Rejects options that would print nonsense instead of failing: a negative or non-finite smoothing value, an
/// unknown language code, a significance test with too few or too many samples. [`run_eval_with`] calls it, so
/// the CLI and the app refuse the same things with the same words.
pub fn validate_config(cfg: &EvalConfig) -> Result<()> {
    use registro_metrics::Smooth;
    match cfg.bleu.smooth {
        Smooth::Floor(v) | Smooth::AddK(v) if !(v.is_finite() && v >= 0.0) => {
            let name = if matches!(cfg.bleu.smooth, Smooth::Floor(_)) { "floor" } else { "add-k" };
            bail!("BLEU smoothing {name}:{v} is invalid: the value must be a number ≥ 0 (e.g. {name}:{})", if name == "floor" { "0.1" } else { "1" });
        }
        _ => {}
    }
    if !cfg.lang.is_empty() && !ISO_639_1.split_whitespace().any(|c| c == cfg.lang) {
        bail!(
            "unknown language {:?}: give the target language as an ISO 639-1 code (de, es, fr, hi, it, ja, …)",
            cfg.lang
        );
    }
    let (what, flag, n) = match cfg.significance {
        Some(SigTest::Bootstrap(n)) => ("bootstrap samples", "--paired-bs", n),
        Some(SigTest::Randomization(n)) => ("randomization trials", "--paired-ar", n),
        None => return Ok(()),
    };
    if !(MIN_SIG_SAMPLES..=MAX_SIG_SAMPLES).contains(&n) {
        bail!("{flag} {n}: the number of {what} must be between {MIN_SIG_SAMPLES} and {MAX_SIG_SAMPLES} (sacrebleu uses 1000 for --paired-bs, 10000 for --paired-ar)");
    }
    Ok(())
}

/// Bootstrap samples of `registro eval --paired-bs` given without a number (sacrebleu's default).
pub const DEFAULT_PAIRED_BS: usize = 1000;
/// Randomization trials of `--paired-ar` given without a number (sacrebleu's default).
pub const DEFAULT_PAIRED_AR: usize = 10_000;

/// What an evaluation is asked to do, whichever face asks: `registro eval`'s flags and the window's "Import a
/// folder…" both build one. Every default is [`Default`]'s, every limit is [`EvalRequest::validate`]'s, and
/// [`eval_config`] turns it into the metric engine's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct EvalRequest {
    /// Metric keys or aliases from the metric table (`registro_metrics::descriptor`); empty: BLEU, chrF and TER,
    /// plus M-Acc when annotated references are there.
    #[ts(optional = nullable)]
    pub metrics: Vec<String>,
    /// BLEU tokenizer; none: the per-language rule (`registro_metrics::bleu_tokenizer`: 13a, ja-mecab for
    /// Japanese — an error naming the fix when its dictionary is missing, never a silent fallback —, char for
    /// Chinese).
    #[ts(optional = nullable)]
    pub tokenize: Option<String>,
    /// Case-insensitive BLEU and chrF.
    #[ts(optional = nullable)]
    pub lowercase: bool,
    /// BLEU smoothing: `exp`, `floor[:v]`, `add-k[:v]`, `none`.
    #[ts(optional = nullable)]
    pub smooth: String,
    /// Seed of the significance tests (sacrebleu's 12345).
    #[ts(optional = nullable)]
    pub seed: u64,
    /// Paired bootstrap resampling against the first system, with this many samples.
    #[ts(optional = nullable)]
    pub paired_bs: Option<usize>,
    /// Paired approximate randomization against the first system, with this many trials.
    #[ts(optional = nullable)]
    pub paired_ar: Option<usize>,
}

impl Default for EvalRequest {
    fn default() -> Self {
        EvalRequest {
            metrics: Vec::new(),
            tokenize: None,
            lowercase: false,
            smooth: "exp".into(),
            seed: registro_metrics::significance::DEFAULT_SEED,
            paired_bs: None,
            paired_ar: None,
        }
    }
}

/// The name the faces used before the request moved into core.
pub type EvalSettings = EvalRequest;

impl EvalRequest {
    /// The request's own limits, checked before any file is read: known metric names, a smoothing that parses, one
    /// significance test at most, with [`MIN_SIG_SAMPLES`]..=[`MAX_SIG_SAMPLES`] samples. [`eval_config`] checks
    /// the rest (the language, the tokenizer) with the configuration it makes.
    pub fn validate(&self) -> Result<()> {
        self.metric_names()?;
        registro_metrics::Smooth::parse(&self.smooth).map_err(anyhow::Error::msg)?;
        if self.paired_bs.is_some() && self.paired_ar.is_some() {
            bail!("--paired-bs and --paired-ar: choose one significance test");
        }
        Ok(())
    }

    /// The metrics asked for (none: the default set).
    pub fn metric_names(&self) -> Result<Vec<MetricName>> {
        MetricName::parse_list(&self.metrics.join(",")).map_err(anyhow::Error::msg)
    }

    pub fn significance(&self) -> Option<SigTest> {
        match (self.paired_bs, self.paired_ar) {
            (Some(n), _) => Some(SigTest::Bootstrap(n)),
            (_, Some(n)) => Some(SigTest::Randomization(n)),
            _ => None,
        }
    }
}

/// The evaluation configuration for `loaded` in language `lang`: one function, so the CLI and the app score the
/// same files the same way. Validated before any file is scored.
pub fn eval_config(lang: &str, loaded: &LoadedEval, request: &EvalRequest) -> Result<EvalConfig> {
    use registro_metrics::{Bleu, Smooth, Tokenizer};
    request.validate()?;
    let metrics = match request.metric_names()? {
        m if !m.is_empty() => m,
        _ => {
            let mut m = vec![MetricName::Bleu, MetricName::Chrf, MetricName::Ter];
            if loaded.systems.iter().any(|s| s.test_set.formal_annotated.is_some()) {
                m.push(MetricName::MAcc);
            }
            m
        }
    };
    // The one per-language rule, which the Dashboard applies too.
    let tokenizer: Tokenizer = match &request.tokenize {
        Some(t) => t.parse().map_err(anyhow::Error::msg)?,
        None => registro_metrics::bleu_tokenizer(lang).map_err(anyhow::Error::msg)?,
    };
    let smooth = Smooth::parse(&request.smooth).map_err(anyhow::Error::msg)?;
    let mut cfg = EvalConfig {
        metrics,
        bleu: Bleu { tokenizer, lowercase: request.lowercase, smooth, ..Bleu::default() },
        lang: lang.to_string(),
        significance: request.significance(),
        seed: request.seed,
        ..EvalConfig::default()
    };
    cfg.chrf.lowercase = request.lowercase;
    validate_config(&cfg)?;
    Ok(cfg)
}

/// Scores, and stores one run per system when a store is given.
pub struct EvalOutcome {
    pub reports: Vec<SystemReport>,
    pub run_ids: Vec<RunId>,
}

/// What both faces run: `request` checked and turned into the configuration for `loaded` in language `lang`
/// ([`eval_config`]), scored with the model-based scorers in `providers` (Acc, Sim, PP; `registro-core` loads
/// them for the metrics asked), and stored with every run as `params.request`, so a run says what it was asked.
#[allow(clippy::too_many_arguments)]
pub fn run_eval_request_with(
    store: Option<&mut Store>,
    project: &str,
    loaded: &LoadedEval,
    cfg: &EvalConfig,
    request: &EvalRequest,
    providers: &Providers,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> Result<EvalOutcome> {
    run_eval_inner(store, project, loaded, cfg, Some(request), providers, cancel, progress)
}

/// Scores `loaded` with `cfg`; model-based formality / similarity / fluency scorers in `providers` (loaded by
/// `registro-core`) add Acc, Sim, PP and Pang & Gimpel's GM to every system.
pub fn run_eval_with(
    store: Option<&mut Store>,
    project: &str,
    loaded: &LoadedEval,
    cfg: &EvalConfig,
    providers: &Providers,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> Result<EvalOutcome> {
    run_eval_inner(store, project, loaded, cfg, None, providers, cancel, progress)
}

#[allow(clippy::too_many_arguments)]
fn run_eval_inner(
    store: Option<&mut Store>,
    project: &str,
    loaded: &LoadedEval,
    cfg: &EvalConfig,
    request: Option<&EvalRequest>,
    providers: &Providers,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> Result<EvalOutcome> {
    validate_config(cfg)?;
    let total = loaded.systems.len() as u64;
    progress(Progress {
        done: 0,
        total,
        message: format!("scoring {total} system(s)"),
    });
    let model_scorers = providers.formality.is_some() || providers.similarity.is_some() || providers.fluency.is_some();
    let reports = if stream::streams(cfg, model_scorers) {
        stream::score(loaded, cfg, cancel)?
    } else {
        evaluate_with(&stream::read_inputs(loaded)?, cfg, providers)?
    };
    if cancel.is_cancelled() {
        bail!("cancelled");
    }
    let mut run_ids = Vec::new();
    if let Some(store) = store {
        let project = match store.find_project(project) {
            Ok(p) => p,
            Err(registro_store::StoreError::NotFound { .. }) => store.create_project(project)?,
            Err(e) => return Err(e.into()),
        };
        let mut docs: BTreeMap<usize, Option<i64>> = BTreeMap::new();
        for (k, (sys, rep)) in loaded.systems.iter().zip(&reports).enumerate() {
            if cancel.is_cancelled() {
                bail!(
                    "cancelled after storing {} of {} runs",
                    run_ids.len(),
                    total
                );
            }
            let ts_ptr = Arc::as_ptr(&sys.test_set) as usize;
            let doc = match docs.get(&ts_ptr) {
                Some(&d) => d,
                None => {
                    let d = store_document(
                        store,
                        project.id,
                        &sys.test_set,
                        loaded.lang.as_deref().or(Some(cfg.lang.as_str())),
                        loaded.max_input_mb,
                    )?;
                    docs.insert(ts_ptr, d);
                    d
                }
            };
            let id = store_run(store, project.id, doc, sys, rep, &loaded.origins[k], cfg, request, loaded.max_input_mb)?;
            run_ids.push(id);
            progress(Progress {
                done: k as u64 + 1,
                total,
                message: format!("stored run {id} for {}", sys.name),
            });
        }
        // The Dashboard's statistics of each run, stored now so that comparing the runs only aggregates them.
        crate::report::store_run_statistics(store, &run_ids, cancel, progress);
    }
    Ok(EvalOutcome { reports, run_ids })
}

/// The format of an eval document stored without a source file: its segments are empty and the test set is
/// identified by its references alone. The Dashboard compares runs over one such document, never across two.
pub const REFERENCES_ONLY: &str = "eval-refs";

/// Stores the test set as a document, or reuses the one in the project with exactly the same segments and
/// references (by content hash: two test sets may share a file name and a line count). Without a source file the
/// segments are empty and the references identify the test set, so runs scored against the same references can
/// still be compared. `None` when there is nothing to store (no source and no references).
fn store_document(
    store: &mut Store,
    project: i64,
    ts: &EvalTestSet,
    lang: Option<&str>,
    max_mb: Option<u64>,
) -> Result<Option<i64>> {
    let mut refs: Vec<(String, &Path)> = ts.refs.iter().map(|(n, p)| (n.clone(), p.as_path())).collect();
    if let Some(f) = &ts.formal_annotated {
        refs.push(("formal.annotated".into(), f.as_path()));
    }
    if let Some(i) = &ts.informal_annotated {
        refs.push(("informal.annotated".into(), i.as_path()));
    }
    let (name, format) = match &ts.source {
        Some(_) => (format!("eval: {}", ts.key), "eval"),
        None => (format!("eval: {} (references only)", ts.key), REFERENCES_ONLY),
    };
    // The source, else the first reference, sets the segments; a shorter reference leaves later segments without it.
    let Some(lead) = ts.source.as_deref().or(refs.first().map(|r| r.1)) else {
        return Ok(None);
    };
    if ts.source.is_none() && std::fs::metadata(lead).is_ok_and(|m| m.len() == 0) {
        return Ok(None);
    }
    let mut lead = LineReader::open(lead, max_mb)?;
    let mut readers: Vec<(String, LineReader)> =
        refs.into_iter().map(|(n, p)| Ok((n, LineReader::open(p, max_mb)?))).collect::<Result<_>>()?;
    let with_source = ts.source.is_some();
    let mut next = move || -> Result<Option<NewSegment>> {
        let Some(first) = lead.next_line()? else {
            return Ok(None);
        };
        let mut references = Vec::with_capacity(readers.len());
        for (n, r) in &mut readers {
            if let Some(l) = r.next_line()? {
                references.push((n.clone(), l));
            }
        }
        Ok(Some(NewSegment {
            text: if with_source { first } else { String::new() },
            references,
        }))
    };
    let mut segments = std::iter::from_fn(|| next().map_err(|e| StoreError::Invalid(format!("{e:#}"))).transpose());
    let doc = NewDocument {
        name,
        source_lang: "en".into(),
        target_lang: lang.filter(|l| !l.is_empty()).map(str::to_string),
        origin: None,
        format: format.into(),
        segments: Vec::new(),
    };
    Ok(Some(store.insert_document_streamed(project, &doc, &mut segments)?))
}

fn sig_detail(s: &Option<registro_metrics::evaluate::Significance>) -> serde_json::Value {
    s.as_ref().map_or(serde_json::Value::Null, |s| {
        serde_json::to_value(s).unwrap_or_default()
    })
}

/// The metric rows stored for one system: corpus results (with signatures and details) and segment values.
pub fn metric_rows(rep: &SystemReport) -> Vec<NewMetric> {
    let mut rows = corpus_rows(rep);
    rows.extend(segment_rows(rep));
    rows
}

fn reference_of(rep: &SystemReport) -> Option<String> {
    Some(rep.references.join("+")).filter(|r| !r.is_empty())
}

fn corpus_row(reference: &Option<String>, metric: &str, value: f64, signature: Option<String>, detail: serde_json::Value) -> NewMetric {
    NewMetric { metric: metric.into(), reference: reference.clone(), segment_index: None, value, signature, detail }
}

/// The corpus results of one system, with signatures and details.
fn corpus_rows(rep: &SystemReport) -> Vec<NewMetric> {
    let reference = reference_of(rep);
    let corpus = |metric: &str, value: f64, signature: Option<String>, detail: serde_json::Value| {
        corpus_row(&reference, metric, value, signature, detail)
    };
    let mut rows = Vec::new();
    if let Some(b) = &rep.bleu {
        rows.push(corpus(
            "BLEU",
            b.score,
            Some(b.signature.clone()),
            json!({"counts": b.counts, "totals": b.totals, "sys_len": b.sys_len, "ref_len": b.ref_len,
                   "precisions": b.precisions, "bp": b.bp, "significance": sig_detail(&b.significance)}),
        ));
    }
    for s in [&rep.chrf, &rep.chrf_pp, &rep.ter].into_iter().flatten().chain(rep.metrics.values()) {
        rows.push(corpus(
            &s.name,
            s.score,
            Some(s.signature.clone()),
            json!({"significance": sig_detail(&s.significance)}),
        ));
    }
    if let Some(m) = &rep.m_acc {
        rows.push(corpus(
            "M-Acc",
            m.score,
            None,
            json!({"formal": m.result.formal, "informal": m.result.informal, "counts": m.result.counts,
                   "register": m.register, "significance": sig_detail(&m.significance)}),
        ));
    }
    if let Some(st) = &rep.style {
        let plain = [
            ("self-BLEU", st.self_bleu),
            ("LeD", st.led),
            ("distinct-1", st.distinct_1),
            ("distinct-2", st.distinct_2),
            ("length-ratio", st.length_ratio),
        ];
        for (n, v) in plain {
            if let Some(v) = v {
                rows.push(corpus(n, v, None, serde_json::Value::Null));
            }
        }
        if let Some(d) = &st.char_levenshtein {
            rows.push(corpus(
                "char-levenshtein",
                d.mean,
                None,
                serde_json::to_value(d).unwrap_or_default(),
            ));
        }
        if let Some(b) = &st.length_buckets {
            rows.push(corpus(
                "length-bucketed-BLEU",
                b.iter().map(|x| x.bleu).sum::<f64>() / b.len().max(1) as f64,
                None,
                json!({"buckets": b}),
            ));
        }
        if let Some(e) = &st.edit_types {
            rows.push(corpus(
                "edit-types",
                e.values().sum::<usize>() as f64,
                None,
                json!(e),
            ));
        }
        if let Some(m) = &st.model {
            // Pang & Gimpel's scores carry what measured them (which scorer, which language model, which t).
            for (n, v) in [("Acc", m.acc), ("Sim", m.sim), ("Sim-chrF", m.sim_chrf), ("PP", m.pp), ("GM", m.gm)] {
                if let Some(v) = v {
                    rows.push(corpus(n, v, Some(m.signature.clone()), serde_json::Value::Null));
                }
            }
        }
    }
    rows
}

/// One column of segment values a report carries.
#[derive(Clone, Copy)]
enum Column<'a> {
    Scores(&'a [f64]),
    Distances(&'a [usize]),
    /// M-Acc labels, and the one that counts as a hit.
    Labels(&'a [Label], Label),
}

impl Column<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Scores(v) => v.len(),
            Self::Distances(v) => v.len(),
            Self::Labels(v, _) => v.len(),
        }
    }

    fn value(&self, i: usize) -> (f64, serde_json::Value) {
        match self {
            Self::Scores(v) => (v[i], serde_json::Value::Null),
            Self::Distances(v) => (v[i] as f64, serde_json::Value::Null),
            Self::Labels(v, hit) => (if v[i] == *hit { 1.0 } else { 0.0 }, json!({"label": v[i]})),
        }
    }
}

/// The segment values of one system, made one at a time: a million-segment run would otherwise hold millions of
/// rows before the first insert.
fn segment_rows(rep: &SystemReport) -> impl Iterator<Item = NewMetric> + '_ {
    let mut columns: Vec<(String, Column)> = Vec::new();
    if let Some(s) = &rep.sentences {
        if let Some(v) = &s.bleu {
            columns.push(("BLEU".into(), Column::Scores(v)));
        }
        if let (Some(v), Some(c)) = (&s.chrf, &rep.chrf) {
            columns.push((c.name.clone(), Column::Scores(v)));
        }
        if let (Some(v), Some(c)) = (&s.chrf_pp, &rep.chrf_pp) {
            columns.push((c.name.clone(), Column::Scores(v)));
        }
        if let Some(v) = &s.ter {
            columns.push(("TER".into(), Column::Scores(v)));
        }
        if let Some(v) = &s.char_levenshtein {
            columns.push(("char-levenshtein".into(), Column::Distances(v)));
        }
        for (key, v) in &s.metrics {
            if let Some(c) = rep.metrics.get(key) {
                columns.push((c.name.clone(), Column::Scores(v)));
            }
        }
        if let (Some(labels), Some(m)) = (&s.m_acc, &rep.m_acc) {
            let hit = if m.register == Register::Formal { Label::Formal } else { Label::Informal };
            columns.push(("M-Acc".into(), Column::Labels(labels, hit)));
        }
    }
    let reference = reference_of(rep);
    columns.into_iter().flat_map(move |(name, col)| {
        let reference = reference.clone();
        (0..col.len()).map(move |i| {
            let (value, detail) = col.value(i);
            NewMetric { segment_index: Some(i as i64), ..corpus_row(&reference, &name, value, None, detail) }
        })
    })
}

/// Rows written per transaction when a run is stored: each batch is a few MB, however long the test set.
const STORE_BATCH: usize = 20_000;

#[allow(clippy::too_many_arguments)]
fn store_run(
    store: &mut Store,
    project: i64,
    doc: Option<i64>,
    sys: &EvalSystem,
    rep: &SystemReport,
    origin: &BTreeMap<String, String>,
    cfg: &EvalConfig,
    request: Option<&EvalRequest>,
    max_mb: Option<u64>,
) -> Result<RunId> {
    let mut run = NewRun::new(project, Task::Eval, sys.name.clone());
    run.document_id = doc;
    run.source_lang = Some("en".into());
    run.target_lang = Some(cfg.lang.clone()).filter(|l| !l.is_empty());
    run.register = sys.register.map(|r| {
        if r == Register::Formal {
            "formal".into()
        } else {
            "informal".into()
        }
    });
    run.total_segments = Some(rep.segments as i64);
    run.params = json!({
        "metrics": cfg.metrics,
        "files": origin,
        "test_set": sys.test_set.key,
        "significance": cfg.significance,
        "seed": cfg.seed,
    });
    if let Some(r) = request {
        run.params["request"] = serde_json::to_value(r)?;
    }
    let id = store.create_run(&run)?;
    let result = (|| -> Result<()> {
        store.start_run(id)?;
        // The outputs are the hypothesis file read again, a batch per transaction.
        let mut hyp = LineReader::open(&sys.hyp, max_mb)?;
        let mut batch = Vec::with_capacity(STORE_BATCH);
        let mut n = 0usize;
        while let Some(text) = hyp.next_line()? {
            n += 1;
            if n > rep.segments {
                break;
            }
            batch.push(Output { segment_index: n as i64 - 1, text, ..Default::default() });
            if batch.len() == STORE_BATCH {
                store.put_outputs(id, &batch)?;
                batch.clear();
            }
        }
        if n != rep.segments {
            bail!("{} changed after it was scored ({} lines scored)", sys.hyp.display(), rep.segments);
        }
        store.put_outputs(id, &batch)?;
        store.put_metric_results(id, &corpus_rows(rep))?;
        let mut rows = segment_rows(rep).peekable();
        while rows.peek().is_some() {
            let batch: Vec<NewMetric> = rows.by_ref().take(STORE_BATCH).collect();
            store.put_metric_results(id, &batch)?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => store.finish_run(id, RunStatus::Done, None)?,
        Err(e) => {
            let _ = store.finish_run(id, RunStatus::Failed, Some(&format!("{e:#}")));
            return Err(e.context(format!("storing run for {}", sys.name)));
        }
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metrics these tests ask for need no model.
    fn run_eval(store: Option<&mut Store>, project: &str, loaded: &LoadedEval, cfg: &EvalConfig, cancel: &CancelToken, progress: ProgressFn) -> Result<EvalOutcome> {
        run_eval_with(store, project, loaded, cfg, &Providers::default(), cancel, progress)
    }

    fn shared(rel: &str) -> Option<PathBuf> {
        // `.cargo/config.toml` sets REGISTRO_SHARED_DATA for `cargo test` in a checkout.
        let p = PathBuf::from(std::env::var_os("REGISTRO_SHARED_DATA").unwrap_or_default()).join(rel);
        if p.exists() {
            Some(p)
        } else {
            println!(
                "skipped: {} not found (set REGISTRO_SHARED_DATA)",
                p.display()
            );
            None
        }
    }

    #[test]
    fn submissions_folder_becomes_ten_stored_runs() {
        let Some(dir) = shared("iwslt2022-umd/en-de") else {
            return;
        };
        let loaded = discover_submissions(&dir, None).unwrap();
        assert_eq!(loaded.lang.as_deref(), Some("de"));
        assert_eq!(loaded.systems.len(), 10);
        let mut store = Store::open_in_memory().unwrap();
        let cfg = EvalConfig {
            metrics: vec![MetricName::Bleu, MetricName::Chrf, MetricName::MAcc],
            lang: "de".into(),
            significance: Some(SigTest::Bootstrap(100)),
            ..EvalConfig::default()
        };
        let out = run_eval(
            Some(&mut store),
            "iwslt",
            &loaded,
            &cfg,
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(out.run_ids.len(), 10);
        let first = &out.reports[0];
        assert_eq!(first.system, "formality-control-1.formal.de");
        assert!((first.bleu.as_ref().unwrap().score - 36.9983).abs() < 5e-5);
        assert_eq!(first.m_acc.as_ref().unwrap().result.counts.formal, 466);
        // The informal systems are compared with the first informal system, against the informal reference.
        let inf = out
            .reports
            .iter()
            .find(|r| r.system == "formality-control-2.informal.de")
            .unwrap();
        assert_eq!(
            inf.bleu
                .as_ref()
                .unwrap()
                .significance
                .as_ref()
                .unwrap()
                .baseline,
            "formality-control-1.informal.de"
        );
        assert!((inf.bleu.as_ref().unwrap().score - 21.6719).abs() < 5e-5);
        let run = store.run(out.run_ids[0]).unwrap();
        assert_eq!(run.status, RunStatus::Done);
        assert_eq!(run.completed_segments, 600);
        let corpus = store.corpus_metrics(out.run_ids[0]).unwrap();
        let bleu = corpus.iter().find(|m| m.metric == "BLEU").unwrap();
        assert_eq!(
            bleu.signature.as_deref(),
            Some("nrefs:1|bs:100|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0")
        );
        assert_eq!(
            store
                .segment_metrics(out.run_ids[0], "BLEU", None)
                .unwrap()
                .len(),
            600
        );
        assert_eq!(
            store
                .segment_metrics(out.run_ids[0], "M-Acc", None)
                .unwrap()
                .len(),
            600
        );
    }

    #[test]
    fn run_eval_refuses_nonsense_options_for_every_caller() {
        let dir = std::env::temp_dir().join(format!("registro-eval-options-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("r"), "a b\n").unwrap();
        let files = EvalFiles { hyps: vec![dir.join("r")], refs: vec![dir.join("r")], ..Default::default() };
        let loaded = load_files(&files).unwrap();
        let bad = [
            (EvalConfig { bleu: registro_metrics::Bleu { smooth: registro_metrics::Smooth::AddK(-5.0), ..Default::default() }, ..Default::default() }, "add-k:-5 is invalid"),
            (EvalConfig { lang: "xx".into(), ..Default::default() }, "unknown language \"xx\""),
            (EvalConfig { significance: Some(SigTest::Bootstrap(0)), ..Default::default() }, "--paired-bs 0"),
            (EvalConfig { significance: Some(SigTest::Randomization(usize::MAX)), ..Default::default() }, "--paired-ar"),
        ];
        for (cfg, want) in bad {
            let err = run_eval(None, "p", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).err().expect("refused");
            assert!(err.to_string().contains(want), "{err}");
        }
        let cfg = EvalConfig { lang: "de".into(), significance: Some(SigTest::Bootstrap(1000)), ..Default::default() };
        assert!(run_eval(None, "p", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn mismatched_files_give_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("registro-eval-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hyp.txt"), "a\nb\n").unwrap();
        std::fs::write(dir.join("ref.txt"), "a\nb\nc\n").unwrap();
        std::fs::write(dir.join("bad.txt"), b"ok\n\xff\xfe\n").unwrap();
        let files = EvalFiles {
            hyps: vec![dir.join("hyp.txt")],
            refs: vec![dir.join("ref.txt")],
            ..Default::default()
        };
        let loaded = load_files(&files).unwrap();
        let err = run_eval(
            None,
            "p",
            &loaded,
            &EvalConfig::default(),
            &CancelToken::new(),
            &mut |_| {},
        )
        .err()
        .unwrap();
        let err = format!("{err:#}");
        assert!(err.starts_with("system hyp.txt vs references: expected 3 lines, got 2 ("), "{err}");
        assert!(err.contains("hyp.txt has 2") && err.contains("ref.txt has 3"), "{err}");
        let err = read_lines(&dir.join("bad.txt")).unwrap_err().to_string();
        assert!(err.contains("bad.txt: not valid UTF-8 (line 2"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
