//! The Rewrite view: rewrite pasted text or a stored document (rules, round-trip MT, LLM) as a stored run, score
//! the formality of the accepted sentences, export the accepted document, and reopen a stored run with the writer's
//! decisions, kept as they are made. Each command is one call into `registro_core::rewrite`.

use registro_core::progress::Progress;
use registro_core::rewrite::{
    self as core, Lang, Method, Options, RewriteChoice, RewriteOutcome, RewriteRequest, ScorerChoice, SentenceResult, StoredRewrite, Weights,
};
use registro_store::{DocumentId, ProjectId, RunId};
use tauri::ipc::Channel;
use tauri::AppHandle;

use super::files;
use crate::error::{CmdError, CmdResult};
use crate::state::blocking;

#[derive(serde::Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct RewriteArgs {
    /// Pasted text, one sentence per line (ignored when `document_id` is set).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub text: String,
    pub document_id: Option<DocumentId>,
    pub lang: String,
    pub method: String,
    #[serde(default = "default_n")]
    #[ts(optional = nullable)]
    pub n: usize,
    pub model: Option<String>,
    pub weights: Option<Weights>,
    pub scorer: Option<String>,
    #[serde(default = "yes")]
    #[ts(optional = nullable)]
    pub fluency: bool,
    /// With the LLM method, also offer a round trip through another language.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub roundtrip: bool,
    /// Words every rewrite must keep.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub keep: Vec<String>,
}

fn default_n() -> usize {
    1
}
fn yes() -> bool {
    true
}

fn lang(s: &str) -> CmdResult<Lang> {
    s.parse::<Lang>().map_err(|e| CmdError::msg(e.to_string()))
}

fn scorer(s: Option<&str>) -> CmdResult<ScorerChoice> {
    files::scorer(s)
}

/// Rewrites and stores the run in `project_id`. Progress per sentence, and each sentence on `on_sentence` as it is
/// done (in order); `cancel_operation(op_id)` stops between batches of sentences and keeps the sentences done so far
/// in a `cancelled` run. A local model is the app's resident LLM (loaded on the first click, kept for the next),
/// with the rewrite's prompt caches and sentence encoder kept beside it.
#[tauri::command]
pub async fn rewrite_text(
    app: AppHandle,
    project_id: ProjectId,
    args: RewriteArgs,
    op_id: String,
    on_progress: Channel<Progress>,
    on_sentence: Channel<SentenceResult>,
) -> CmdResult<RewriteOutcome> {
    let lang = lang(&args.lang)?;
    let method: Method = args.method.parse().map_err(CmdError::msg)?;
    let scorer = scorer(args.scorer.as_deref())?;
    let picked = args.model.as_deref().map(str::trim).filter(|m| !m.is_empty());
    // The backend connected in Settings → Backends, picked by its `remote:` id, or a local model.
    let remote = picked.and_then(super::backends::backend_for).transpose()?;
    let model = match picked {
        Some(m) if remote.is_none() => Some(files::model_id(m)?),
        _ => None,
    };
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut store = state.open_store()?;
        let sentences = match args.document_id {
            Some(doc) => store.segment_texts(doc)?,
            None => args.text.lines().map(str::to_string).collect(),
        };
        if sentences.iter().all(|s| s.trim().is_empty()) {
            return Err(CmdError::msg("nothing to rewrite: paste some text or pick a document"));
        }
        let total = sentences.len() as u64;
        let mut req = RewriteRequest {
            sentences,
            options: Options {
                n: args.n,
                weights: args.weights.unwrap_or_default(),
                fluency: args.fluency,
                roundtrip: args.roundtrip,
                keep: args.keep,
                ..Options::new(lang, method)
            },
            model: None,
            scorer,
            project: Some(project_id.to_string()),
            document_id: args.document_id,
        };
        // Refused before a model loads (core's rule; the run would refuse it too).
        req.validate()?;
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        let mut run = |neural: Option<&mut dyn core::Neural>, req: &RewriteRequest| -> CmdResult<RewriteOutcome> {
            Ok(core::rewrite_streamed(Some(&mut store), req, neural, &op.token, &mut progress, &mut |_, s| drop(on_sentence.send(s.clone())))?)
        };
        match (remote, core::local_model(method, model.as_deref())) {
            (Some(cfg), _) => {
                let (mut neural, id) = core::open_neural(method, model.as_deref(), Some(cfg))?;
                req.model = id;
                run(neural.as_mut().map(|n| &mut **n as &mut dyn core::Neural), &req)
            }
            (None, None) => run(None, &req),
            (None, Some(id)) => {
                req.model = Some(id.clone());
                let loading = Progress { done: 0, total, message: format!("loading model {id}…") };
                let notify = on_progress.clone();
                state.with_llm(&id, move || drop(notify.send(loading)), |g| {
                    let mut neural = core::LlmBackend::with_model(g.model().clone(), state.take_rewrite_caches());
                    let out = run(Some(&mut neural), &req);
                    state.keep_rewrite_caches(neural.into_resident());
                    out
                })
            }
        }
    })
    .await
}

/// Formality (PT16 scale, −3 … 3) of each sentence: the view re-scores the document as edits are accepted.
#[tauri::command(async)]
pub fn score_formality(sentences: Vec<String>, lang: String, scorer: Option<String>) -> CmdResult<Vec<f32>> {
    let lang = self::lang(&lang)?;
    let mut s = core::load_formality(&self::scorer(scorer.as_deref())?)?;
    sentences.iter().map(|t| s.formality(t, lang).map_err(CmdError::msg)).collect()
}

/// Writes the accepted document to the file the user picked in the save dialog (`file`: its token).
#[tauri::command]
pub async fn export_rewrite(app: AppHandle, file: String, text: String) -> CmdResult<String> {
    blocking(app, move |state| super::write_text(&state.files.redeem(&file, files::SAVE_TEXT)?, &text)).await
}

/// A stored rewrite run as the view showed it, with the writer's decisions on it.
#[tauri::command]
pub async fn open_rewrite_run(app: AppHandle, run_id: RunId) -> CmdResult<StoredRewrite> {
    blocking(app, move |state| Ok(core::open_rewrite(&state.open_store()?, run_id)?)).await
}

/// Keeps the writer's decisions on sentences of a stored rewrite run: (segment index, decision) pairs.
#[tauri::command]
pub async fn save_rewrite_choices(app: AppHandle, run_id: RunId, choices: Vec<(i64, RewriteChoice)>) -> CmdResult<()> {
    blocking(app, move |state| Ok(core::save_choices(&mut state.open_store()?, run_id, &choices)?)).await
}
