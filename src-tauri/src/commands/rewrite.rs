//! The Rewrite view: rewrite pasted text or a stored document (rules, round-trip MT, LLM) as a stored run, score
//! the formality of the accepted sentences, export the accepted document, and reopen a stored run with the writer's
//! decisions, kept as they are made. Each command is one call into `registro_core::rewrite`.

use registro_core::progress::Progress;
use registro_core::rewrite::{self as core, Lang, RewriteChoice, RewriteOutcome, RewriteRequest, RewriteSource, ScorerChoice, SentenceResult, StoredRewrite};
use registro_core::translate::remote::BackendConfig;
use registro_store::{ProjectId, RunId};
use tauri::ipc::Channel;
use tauri::AppHandle;

use super::files;
use crate::error::{CmdError, CmdResult};
use crate::state::blocking;

fn lang(s: &str) -> CmdResult<Lang> {
    s.parse::<Lang>().map_err(|e| CmdError::msg(e.to_string()))
}

fn scorer(s: Option<&str>) -> CmdResult<ScorerChoice> {
    files::scorer(s)
}

/// What the Rewrite form starts from: every option's default from core (the tuned weights among them), so the
/// window writes none of its own.
#[tauri::command(async)]
pub fn rewrite_defaults() -> RewriteRequest {
    RewriteRequest::default()
}

/// The request the form sends, ready to run: the model it picked checked as the window allows (none: the default
/// where the method needs one; a known model id; or the backend connected in Settings → Backends by its `remote:`
/// id, whose settings come back with it), a scorer the page may name, then core's own check. Loads nothing.
pub fn request_from_form(mut request: RewriteRequest) -> CmdResult<(RewriteRequest, Option<BackendConfig>)> {
    let picked = request.model.as_deref().map(str::trim).filter(|m| !m.is_empty()).map(str::to_string);
    let remote = picked.as_deref().and_then(super::backends::backend_for).transpose()?;
    request.model = match picked {
        Some(m) if remote.is_none() => Some(files::model_id(&m)?),
        _ => None,
    };
    request.scorer = files::scorer_choice(request.scorer)?;
    request.validate()?;
    Ok((request, remote))
}

/// Rewrites `source` as `request` asks and stores the run in `project_id`. Progress per sentence, and each sentence
/// on `on_sentence` as it is done (in order); `cancel_operation(op_id)` stops between batches of sentences and keeps
/// the sentences done so far in a `cancelled` run. A local model is the app's resident LLM (loaded on the first
/// click, kept for the next), with the rewrite's prompt caches and sentence encoder kept beside it.
#[tauri::command]
pub async fn rewrite_text(
    app: AppHandle,
    project_id: ProjectId,
    source: RewriteSource,
    request: RewriteRequest,
    op_id: String,
    on_progress: Channel<Progress>,
    on_sentence: Channel<SentenceResult>,
) -> CmdResult<RewriteOutcome> {
    let (request, remote) = request_from_form(request)?;
    let method = request.options.method;
    // The backend connected in Settings → Backends, picked by its `remote:` id, or a local model.
    let model = request.model.clone();
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut store = state.open_store()?;
        let mut req = RewriteRequest {
            sentences: source.sentences(&store)?,
            project: Some(project_id.to_string()),
            document_id: source.document_id,
            ..request
        };
        let total = req.sentences.len() as u64;
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        let mut run = |neural: Option<&mut dyn core::Neural>, req: &RewriteRequest| -> CmdResult<RewriteOutcome> {
            Ok(core::rewrite_streamed(Some(&mut store), req, neural, &op.token, &mut progress, &mut |_, s| drop(on_sentence.send(s.clone())))?)
        };
        match (remote, core::local_model(method, model.as_deref())) {
            (Some(cfg), _) => {
                let (mut neural, id) = core::open_neural(method, None, Some(cfg))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_gets_cores_defaults_and_names_no_file() {
        let form = rewrite_defaults();
        assert_eq!((form.options.weights.formality, form.options.weights.meaning, form.options.weights.fluency, form.options.weights.consensus), (1.0, 0.5, 0.5, 6.0));
        let (req, remote) = request_from_form(form.clone()).unwrap();
        assert!(remote.is_none() && req.model.is_none());
        let mut bad = form.clone();
        bad.scorer = ScorerChoice::File("/home/u/.ssh/id_rsa.json".into());
        assert!(request_from_form(bad).is_err());
        let mut bad = form;
        bad.options.n = core::MAX_PARAPHRASES + 1;
        assert!(request_from_form(bad).unwrap_err().0.contains("paraphrases per sentence"));
    }
}
