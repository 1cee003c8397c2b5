//! Informal → formal rewriting as a use case: rules, round-trip MT or LLM candidates per sentence (through
//! `registro_rewrite::pipeline`), formality / meaning / fluency scores, and every rewrite stored as a run with its
//! outputs, candidates and metric results. Also: evaluation on an XFORMAL-layout folder and scorer retraining.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use registro_store::{NewMetric, NewRun, Output, RunId, RunStatus, Store, Task};
use serde::Serialize;

pub use registro_rewrite::pipeline::{CandidateView, Formality, Method, Neural, Options, Piece, SentenceResult};
pub use registro_rewrite::rerank::{Candidate, Scores, Weights};
pub use registro_rewrite::scorer::{load_pt16, Scorer, Variant};
pub use registro_rewrite::{bench, formalize, Edit, EditKind, Formalized, Formalizer, Lang, UnknownLang};

use crate::progress::{CancelToken, Progress, ProgressFn};

mod history;
mod neural;
mod remote;

pub use history::{open_rewrite, save_choices, RewriteChoice, StoredRewrite};
pub use neural::{LlmBackend, Resident};
pub use remote::RemoteNeural;

/// Which formality scorer judges candidates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase", tag = "kind", content = "value")]
pub enum ScorerChoice {
    /// The shipped surface regressor (zero-shot for every language).
    #[default]
    Surface,
    /// The shipped English lexical regressor (falls back to surface features for other languages).
    Lexical,
    /// The shipped surface + all-MiniLM-L6-v2 embedding regressor (English; the best on PT16 tune; loads MiniLM).
    Embedding,
    /// A weights file written by `registro rewrite train-scorer` (the embedding variant loads MiniLM too).
    File(#[ts(type = "string")] PathBuf),
    /// A downloaded XLM-R formality classifier, by model id or folder (`xlmr:<id>`).
    Xlmr(String),
}

impl std::str::FromStr for ScorerChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "surface" => Ok(ScorerChoice::Surface),
            "lexical" => Ok(ScorerChoice::Lexical),
            "embedding" => Ok(ScorerChoice::Embedding),
            p if p.ends_with(".json") => Ok(ScorerChoice::File(PathBuf::from(p))),
            p if p.starts_with("xlmr:") && p.len() > 5 => Ok(ScorerChoice::Xlmr(p[5..].to_string())),
            _ => Err(format!("scorer {s:?}: expected surface, lexical, embedding, a weights file (*.json) or xlmr:<model>")),
        }
    }
}

/// The regressor behind a choice (not the XLM-R classifier; see [`load_formality`]).
pub fn load_scorer(choice: &ScorerChoice) -> anyhow::Result<Scorer> {
    Ok(match choice {
        ScorerChoice::Surface => Scorer::builtin(Variant::Surface)?,
        ScorerChoice::Lexical => Scorer::builtin(Variant::Lexical)?,
        ScorerChoice::Embedding => Scorer::builtin(Variant::Embedding)?,
        ScorerChoice::File(p) => Scorer::load(p)?,
        ScorerChoice::Xlmr(id) => bail!("xlmr:{id} is a classifier, not a regressor weights file"),
    })
}

/// Any formality judge: the regressors, the embedding variant (loads all-MiniLM-L6-v2 through the engine) or an
/// XLM-R classifier.
pub fn load_formality(choice: &ScorerChoice) -> anyhow::Result<Box<dyn Formality>> {
    Ok(match choice {
        ScorerChoice::Xlmr(id) => Box::new(neural::XlmrFormality::load(id)?),
        ScorerChoice::Embedding => Box::new(neural::EmbeddingFormality::with_scorer(Scorer::builtin(Variant::Embedding)?)?),
        ScorerChoice::File(p) => {
            let s = Scorer::load(p)?;
            if s.model.variant == Variant::Embedding {
                Box::new(neural::EmbeddingFormality::load(p)?)
            } else {
                Box::new(s)
            }
        }
        other => Box::new(load_scorer(other)?),
    })
}

pub use registro_generate::models::DEFAULT_MODEL;

/// A rewrite as both faces ask for it: what to rewrite (the sentences, where to store the run) and how — every
/// option with its default ([`Default`]: the rules, one paraphrase, the tuned weights 1/0.5/0.5/6, the surface
/// scorer), its limits ([`RewriteRequest::validate`]) and, as serialised, the run's stored parameters
/// (`params.request`), which `runs resume` reads back ([`RewriteRequest::of_run`]). The sentences, project and
/// document are not part of that form: a stored run has them as its outputs' inputs and its document. The CLI fills
/// one from its flags, the window from its form, which starts from these defaults (the `rewrite_defaults` command).
/// Adding an option is one field here or in the pipeline's [`Options`] (flattened into it).
#[derive(Clone, Debug, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RewriteRequest {
    /// One sentence per entry (not stored with the request: the run's outputs keep each input).
    #[serde(skip)]
    #[ts(skip)]
    pub sentences: Vec<String>,
    /// Language, method, paraphrases, the joint score's weights, fluency, round trip, locked words.
    #[serde(flatten)]
    pub options: Options,
    /// Model id for round trip / LLM (the engine's model manager resolves it); none: the default model where the
    /// method needs one (`REGISTRO_DEFAULT_MODEL`), none at all for the rules. A stored run records the model that
    /// ran (a server's `remote:<model>@<API base>`).
    pub model: Option<String>,
    pub scorer: ScorerChoice,
    /// Project to store the run in (created when missing); `None` = do not store.
    #[serde(skip)]
    #[ts(skip)]
    pub project: Option<String>,
    /// The stored document these sentences are the segments of, if any (links the run to it).
    #[serde(skip)]
    #[ts(skip)]
    pub document_id: Option<i64>,
}

impl Default for RewriteRequest {
    fn default() -> Self {
        RewriteRequest {
            sentences: Vec::new(),
            options: Options::new(Lang::En, Method::Rules),
            model: None,
            scorer: ScorerChoice::default(),
            project: None,
            document_id: None,
        }
    }
}

/// What a rewrite in the window rewrites: pasted text, one sentence per line, or a stored document's segments.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RewriteSource {
    /// Pasted text, one sentence per line (ignored when `document_id` is set).
    pub text: String,
    pub document_id: Option<i64>,
}

impl RewriteSource {
    /// The sentences to rewrite; refuses nothing to rewrite before anything loads.
    pub fn sentences(&self, store: &Store) -> anyhow::Result<Vec<String>> {
        let sentences: Vec<String> = match self.document_id {
            Some(doc) => store.segment_texts(doc)?,
            None => self.text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect(),
        };
        anyhow::ensure!(!sentences.iter().all(|s| s.trim().is_empty()), "nothing to rewrite: paste some text or pick a document");
        Ok(sentences)
    }
}

/// The most LLM paraphrases per sentence a rewrite may ask for (besides the minimal edit and a round trip): the
/// CLI's `--n` and the window's field both stop here, as each one is another sampled generation per sentence.
pub const MAX_PARAPHRASES: usize = 8;

impl RewriteRequest {
    /// The defaults for `lang` by `method`.
    pub fn new(lang: Lang, method: Method) -> Self {
        RewriteRequest { options: Options::new(lang, method), ..Default::default() }
    }

    /// The request's limits, checked once here for every face before anything is loaded or stored: the paraphrases
    /// per sentence, weights a joint score can use (finite, not negative, not all zero: the window's fields are
    /// numbers anyone can type), and no empty locked word.
    pub fn validate(&self) -> anyhow::Result<()> {
        let o = &self.options;
        anyhow::ensure!(o.n <= MAX_PARAPHRASES, "{} paraphrases per sentence: choose 0 to {MAX_PARAPHRASES}", o.n);
        let w = [o.weights.formality, o.weights.meaning, o.weights.fluency, o.weights.consensus];
        anyhow::ensure!(
            w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().sum::<f64>() > 0.0,
            "weights formality {}, meaning {}, fluency {}, agreement {}: each must be a number of 0 or more, and not all 0",
            w[0],
            w[1],
            w[2],
            w[3]
        );
        anyhow::ensure!(o.keep.iter().all(|k| !k.trim().is_empty()), "an empty word to keep: name each word, or none");
        Ok(())
    }

    /// The request run `run` was started with: its stored `params.request`, or, for a run stored before runs kept
    /// their request, rebuilt from the parameters it stored then (`scorer_choice` and one key per option).
    pub fn of_run(run: &registro_store::Run) -> anyhow::Result<RewriteRequest> {
        let req: RewriteRequest = match run.params.get("request") {
            Some(v) => serde_json::from_value(v.clone()).with_context(|| format!("run {}: its stored request", run.id))?,
            None => {
                let p = &run.params;
                let key = |k: &str| p.get(k).cloned().with_context(|| format!("run {} has no {k:?} parameter to resume with", run.id));
                let code = run.source_lang.as_deref().unwrap_or_default();
                let lang = Lang::ALL.into_iter().find(|l| l.code() == code).with_context(|| format!("run {}: unknown language {code:?}", run.id))?;
                let method: Method = serde_json::from_value(key("method")?).with_context(|| format!("run {}: parameter \"method\"", run.id))?;
                let options = Options {
                    n: serde_json::from_value(key("n")?)?,
                    weights: serde_json::from_value(key("weights")?)?,
                    fluency: serde_json::from_value(key("fluency")?)?,
                    // Runs stored before these options existed had neither.
                    roundtrip: p.get("roundtrip").and_then(|v| v.as_bool()).unwrap_or(false),
                    keep: p.get("keep").map(|v| serde_json::from_value(v.clone())).transpose()?.unwrap_or_default(),
                    ..Options::new(lang, method)
                };
                let scorer = serde_json::from_value(key("scorer_choice")?).with_context(|| format!("run {}: parameter \"scorer_choice\"", run.id))?;
                // The model the run recorded (none for the rules, which then resume without a fluency model).
                RewriteRequest { options, model: run.model_id.clone(), scorer, ..Default::default() }
            }
        };
        Ok(req)
    }
}

#[derive(Clone, Debug, Default, Serialize, ts_rs::TS)]
pub struct Summary {
    pub sentences: usize,
    pub formality_before: f64,
    pub formality_after: f64,
    /// chrF of the chosen rewrite against the input.
    pub chrf_to_input: f64,
    /// Geometric mean of per-sentence perplexities, when a fluency model scored them.
    pub perplexity: Option<f64>,
    pub gm: f64,
    pub seconds_per_sentence: f64,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct RewriteOutcome {
    pub run_id: Option<RunId>,
    pub lang: Lang,
    pub method: Method,
    pub model: Option<String>,
    pub scorer: String,
    pub weights: Weights,
    pub sentences: Vec<SentenceResult>,
    pub summary: Summary,
}

impl RewriteOutcome {
    /// The chosen (best) rewrite of every sentence.
    pub fn best_texts(&self) -> Vec<String> {
        self.sentences.iter().map(|s| s.candidates.first().map_or_else(|| s.input.clone(), |c| c.candidate.text.clone())).collect()
    }
}

/// The engine-backed [`Neural`] implementation for round trip / LLM, resolved from a model id.
/// Returns a clear error while no engine model can serve the method. With the rules a model is optional and only
/// scores fluency (perplexity), so the three methods can be compared on the same metrics.
pub fn neural_backend(method: Method, model: Option<&str>) -> anyhow::Result<Option<Box<dyn Neural>>> {
    match local_model(method, model) {
        None => Ok(None),
        Some(id) => neural::backend(method, &id).map(Some),
    }
}

/// The model a method runs on when no server is given: `model`, else the default chat model for round trip and
/// LLM; none for the rules without a model.
pub fn local_model(method: Method, model: Option<&str>) -> Option<String> {
    match (method, model) {
        (Method::Rules, None) => None,
        (_, Some(m)) => Some(m.to_string()),
        (Method::Roundtrip | Method::Llm, None) => Some(registro_generate::models::default_model()),
    }
}

/// The model behind a method: on the OpenAI-compatible server `backend` when one is given, else the local engine
/// ([`neural_backend`]). Also returns the model id the run records: a server's `remote:<model>@<API base>`, so a
/// stored run resumes on the same server.
pub fn open_neural(
    method: Method,
    model: Option<&str>,
    backend: Option<registro_generate::remote::Config>,
) -> anyhow::Result<(Option<Box<dyn Neural>>, Option<String>)> {
    match backend {
        Some(cfg) if method != Method::Rules || model.is_some() => {
            let n = RemoteNeural::connect(cfg)?;
            let id = n.id();
            Ok((Some(Box::new(n)), Some(id)))
        }
        _ => Ok((neural_backend(method, model)?, model.map(str::to_string))),
    }
}

fn summarize(sentences: &[SentenceResult], seconds: f64) -> Summary {
    let n = sentences.len().max(1) as f64;
    let best: Vec<&Candidate> = sentences.iter().filter_map(|s| s.candidates.first().map(|c| &c.candidate)).collect();
    let ppl: Vec<f64> = best.iter().filter_map(|c| c.scores.perplexity).collect();
    Summary {
        sentences: sentences.len(),
        formality_before: sentences.iter().map(|s| s.formality_before as f64).sum::<f64>() / n,
        formality_after: best.iter().map(|c| c.scores.formality as f64).sum::<f64>() / n,
        chrf_to_input: best.iter().map(|c| c.scores.meaning).sum::<f64>() / n,
        perplexity: (!ppl.is_empty()).then(|| (ppl.iter().map(|p| p.max(1.0).ln()).sum::<f64>() / ppl.len() as f64).exp()),
        gm: best.iter().map(|c| c.scores.gm).sum::<f64>() / n,
        seconds_per_sentence: seconds / n,
    }
}

/// Rewrites every sentence; stores a run when `store` and `req.project` are given. Cancellation stops between
/// batches of sentences and leaves a `cancelled` run with the outputs done so far.
pub fn rewrite(
    store: Option<&mut Store>,
    req: &RewriteRequest,
    neural: Option<&mut dyn Neural>,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> anyhow::Result<RewriteOutcome> {
    rewrite_streamed(store, req, neural, cancel, progress, &mut |_, _| {})
}

/// [`rewrite`], showing each sentence to `on_sentence` (with its index) as soon as it is done and stored.
pub fn rewrite_streamed(
    store: Option<&mut Store>,
    req: &RewriteRequest,
    neural: Option<&mut dyn Neural>,
    cancel: &CancelToken,
    progress: ProgressFn,
    on_sentence: &mut dyn FnMut(usize, &SentenceResult),
) -> anyhow::Result<RewriteOutcome> {
    let mut scorer = load_formality(&req.scorer)?;
    rewrite_each(store, req, scorer.as_mut(), neural, cancel, progress, on_sentence)
}

/// [`rewrite`] with a caller-provided formality judge (e.g. the engine's XLM-R classifier).
pub fn rewrite_with(
    store: Option<&mut Store>,
    req: &RewriteRequest,
    formality: &mut dyn Formality,
    neural: Option<&mut dyn Neural>,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> anyhow::Result<RewriteOutcome> {
    rewrite_each(store, req, formality, neural, cancel, progress, &mut |_, _| {})
}

/// The loop behind the above. Sentences go to the pipeline in batches of the backend's
/// [`Neural::batch_size`] (each model step taken for the whole batch, see
/// [`registro_rewrite::pipeline::rewrite_batch`]); each sentence of a batch is then stored, reported and counted in
/// order, so a run stopped by a cancel or an error keeps every sentence before it.
fn rewrite_each(
    mut store: Option<&mut Store>,
    req: &RewriteRequest,
    formality: &mut dyn Formality,
    mut neural: Option<&mut dyn Neural>,
    cancel: &CancelToken,
    progress: ProgressFn,
    on_sentence: &mut dyn FnMut(usize, &SentenceResult),
) -> anyhow::Result<RewriteOutcome> {
    req.validate()?;
    let opts = &req.options;
    if opts.method != Method::Rules && neural.is_none() {
        bail!("--method {} needs a model; none was loaded", opts.method.name());
    }
    let run_id = match (store.as_deref_mut(), &req.project) {
        (Some(st), Some(project)) => Some(start_run(st, req, project, &formality.name())?),
        _ => None,
    };
    let total = req.sentences.len() as u64;
    let batch = neural.as_deref().map_or(1, |n| n.batch_size()).max(1);
    let t0 = std::time::Instant::now();
    let mut formalizer = Formalizer::new();
    let mut results = Vec::with_capacity(req.sentences.len());
    let mut failure: Option<anyhow::Error> = None;
    // A panic or a store error must not leave the run `running`: both end it `failed` below.
    let looped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> anyhow::Result<()> {
        for (b, chunk) in req.sentences.chunks(batch).enumerate() {
            if cancel.is_cancelled() {
                break;
            }
            let inputs: Vec<&str> = chunk.iter().map(String::as_str).collect();
            let done = registro_rewrite::pipeline::rewrite_batch(&inputs, opts, &mut formalizer, formality, neural.as_mut().map(|n| &mut **n as &mut dyn Neural));
            for (k, r) in done.into_iter().enumerate() {
                let i = b * batch + k;
                let r = match r {
                    Ok(r) => r,
                    Err(e) => {
                        failure = Some(anyhow::anyhow!("sentence {}: {e}", i + 1));
                        return Ok(());
                    }
                };
                if let (Some(st), Some(run)) = (store.as_deref_mut(), run_id) {
                    st.put_output(run, &output_of(i, &r))?;
                }
                on_sentence(i, &r);
                results.push(r);
                progress(Progress { done: i as u64 + 1, total, message: format!("rewrote sentence {}/{}", i + 1, total) });
            }
        }
        Ok(())
    }));
    match looped {
        Ok(Ok(())) => {}
        Ok(Err(e)) => failure = Some(e),
        Err(p) => failure = Some(anyhow::anyhow!("sentence {}: {}", results.len() + 1, registro_run::run_state::crash_message(p.as_ref()))),
    }
    let summary = summarize(&results, t0.elapsed().as_secs_f64());
    if let (Some(st), Some(run)) = (store, run_id) {
        let (status, err) = match (&failure, cancel.is_cancelled()) {
            (Some(e), _) => (RunStatus::Failed, Some(format!("{e:#}"))),
            (None, true) => (RunStatus::Cancelled, None),
            (None, false) => (RunStatus::Done, None),
        };
        let rows = metrics_of(&results, &summary);
        if failure.is_none() {
            st.put_metric_results(run, &rows)?;
        } else {
            // Per-sentence values stay true for the sentences done; `registro runs resume` adds the rest and the
            // corpus values.
            st.put_metric_results(run, &rows.into_iter().filter(|m| m.segment_index.is_some()).collect::<Vec<_>>())?;
        }
        st.finish_run(run, status, err.as_deref())?;
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(RewriteOutcome {
        run_id,
        lang: opts.lang,
        method: opts.method,
        model: req.model.clone(),
        scorer: formality.name(),
        weights: opts.weights,
        sentences: results,
        summary,
    })
}

fn start_run(st: &mut Store, req: &RewriteRequest, project: &str, scorer: &str) -> anyhow::Result<RunId> {
    let p = st.find_or_create_project(project).with_context(|| format!("project {project:?}"))?;
    let o = &req.options;
    let system = match &req.model {
        Some(m) if o.method != Method::Rules => format!("{}:{m}", o.method.name()),
        _ => o.method.name().to_string(),
    };
    let mut run = NewRun::new(p.id, Task::Rewrite, system);
    // The model that ran, also when the user named none (the default chat model), so the run says what made it.
    run.model_id = local_model(o.method, req.model.as_deref()).filter(|_| o.method != Method::Rules);
    // The request as it ran, every option in it (what `registro runs resume` reads back): its model the one that
    // ran, also a rules run's fluency model, which `model_id` leaves out, and the default one when none was named.
    let stored = RewriteRequest {
        options: o.clone(),
        model: local_model(o.method, req.model.as_deref()),
        scorer: req.scorer.clone(),
        ..Default::default()
    };
    run.params = serde_json::json!({
        "request": stored,
        // The formality judge's name, as the outcome shows it.
        "scorer": scorer,
        "gm": "weighted geometric mean of formality (−3…3 → 0…1), meaning (chrF/100 to the input, with embedding similarity where measured), fluency 1 − ln(ppl)/ln(1000) and agreement (mean chrF/100 to the other candidates); a candidate with a content flag ranks after every one without",
    });
    run.source_lang = Some(o.lang.code().into());
    run.target_lang = Some(o.lang.code().into());
    run.register = Some("formal".into());
    run.total_segments = Some(req.sentences.len() as i64);
    run.document_id = req.document_id;
    let id = st.create_run(&run)?;
    st.start_run(id)?;
    Ok(id)
}

pub(crate) fn output_of(i: usize, r: &SentenceResult) -> Output {
    let best = r.candidates.first();
    let mut o = Output::new(i as i64, best.map_or(r.input.as_str(), |c| c.candidate.text.as_str()));
    // Everything the Rewrite view showed, so a reopened run shows the same whatever the rules or labels are by then.
    o.candidates = history::stored_sentence(r);
    o.detected_register = Some("formal".into()).filter(|_| best.is_some_and(|c| c.candidate.scores.formality > 0.0));
    o.timings = serde_json::json!({ "total_ms": (r.seconds * 1000.0).round() });
    o
}

pub(crate) fn metrics_of(results: &[SentenceResult], s: &Summary) -> Vec<NewMetric> {
    let mut m = vec![
        NewMetric::corpus("formality", s.formality_after),
        NewMetric::corpus("formality.input", s.formality_before),
        NewMetric::corpus("chrf.input", s.chrf_to_input),
        NewMetric::corpus("gm", s.gm),
        NewMetric::corpus("seconds_per_sentence", s.seconds_per_sentence),
    ];
    if let Some(p) = s.perplexity {
        m.push(NewMetric::corpus("perplexity", p));
    }
    for (i, r) in results.iter().enumerate() {
        let i = i as i64;
        m.push(NewMetric::segment("formality.input", i, r.formality_before as f64));
        if let Some(c) = r.candidates.first() {
            m.push(NewMetric::segment("formality", i, c.candidate.scores.formality as f64));
            m.push(NewMetric::segment("chrf.input", i, c.candidate.scores.meaning));
            m.push(NewMetric::segment("gm", i, c.candidate.scores.gm));
            if let Some(p) = c.candidate.scores.perplexity {
                m.push(NewMetric::segment("perplexity", i, p));
            }
        }
    }
    m
}

/// Reads sentences from a file (one per line; blank lines kept as empty sentences so line numbers still match).
pub fn read_sentences(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect())
}

#[derive(Clone, Debug, Serialize)]
pub struct XformalReport {
    pub folder: String,
    pub run_id: Option<RunId>,
    /// The chosen candidates.
    pub evaluation: registro_rewrite::xformal::Evaluation,
    /// Every step of the method on the same sentences: chosen, rules, each model candidate, and the input copied.
    pub steps: Vec<registro_rewrite::xformal::Step>,
    pub summary: Summary,
}

/// Rewrites the `informal` file of an XFORMAL/GYAFC-layout folder and scores it against `formal.ref*`.
pub fn evaluate_xformal(
    mut store: Option<&mut Store>,
    dir: &Path,
    mut req: RewriteRequest,
    neural: Option<&mut dyn Neural>,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> anyhow::Result<XformalReport> {
    let folder = registro_rewrite::xformal::load(dir)?;
    req.sentences = folder.informal.clone();
    let out = rewrite(store.as_deref_mut(), &req, neural, cancel, progress)?;
    if cancel.is_cancelled() {
        bail!("cancelled");
    }
    let steps = registro_rewrite::xformal::evaluate_steps(&folder, &out.sentences)?;
    let evaluation = steps.iter().find(|s| s.step == "chosen").map(|s| s.evaluation.clone()).context("no chosen step")?;
    if let (Some(st), Some(run)) = (store, out.run_id) {
        let mut m = vec![
            NewMetric::corpus("bleu.multi", evaluation.multi_bleu),
            NewMetric::corpus("bleu.self", evaluation.self_bleu),
            NewMetric::corpus("gm.xformal", evaluation.gm),
        ];
        if let Some(g) = evaluation.pg_gm {
            m.push(NewMetric::corpus("gm.pang_gimpel", g));
        }
        m[0].reference = Some("formal.ref*".into());
        m[0].signature = Some(evaluation.bleu_signature.clone());
        m[1].reference = Some("informal".into());
        st.put_metric_results(run, &m)?;
    }
    Ok(XformalReport { folder: dir.display().to_string(), run_id: out.run_id, evaluation, steps, summary: out.summary })
}

/// Retrains the surface and lexical scorers on PT16 (`dir` holds train.csv and tune.csv) and writes
/// `<out>/{surface,lexical}.json`; with `embedding_model`, also the embedding variant (`embedding.json`, sentence
/// embeddings through the engine). Returns the models with their tune Spearman.
pub fn train_scorers(dir: &Path, out: &Path, embedding_model: Option<&str>) -> anyhow::Result<Vec<registro_rewrite::scorer::Model>> {
    use registro_rewrite::scorer::{load_pt16, save, train};
    let tr = load_pt16(&dir.join("train.csv"))?;
    let tu = load_pt16(&dir.join("tune.csv"))?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut models = Vec::new();
    for v in [Variant::Surface, Variant::Lexical] {
        let m = train(&tr, &tu, v, None)?;
        save(&m, &out.join(format!("{}.json", v.name())))?;
        models.push(m);
    }
    if let Some(id) = embedding_model {
        let texts = |d: &[registro_rewrite::scorer::Example]| d.iter().map(|e| e.text.clone()).collect::<Vec<_>>();
        let e_tr = neural::embed_all(id, &texts(tr.as_slice())).with_context(|| format!("embedding PT16 train with {id}"))?;
        let e_tu = neural::embed_all(id, &texts(tu.as_slice()))?;
        let m = train(&tr, &tu, Variant::Embedding, Some((e_tr.as_slice(), e_tu.as_slice(), id.to_string())))?;
        save(&m, &out.join("embedding.json"))?;
        models.push(m);
    }
    Ok(models)
}
