//! The Translate view: translate pasted text or a stored document into a register (the document default,
//! overridable per sentence) as a stored run, re-check a sentence after an edit or a candidate pick (stored in
//! place), repair a sentence on request, and export. Each command is one call into `registro_core::translate`.

use registro_core::progress::Progress;
use registro_core::translate::remote::BackendConfig;
use registro_core::translate::{self as core, Lang, Register, SegmentCheck, SegmentOut, TranslateRequest, TranslateSource};
use registro_core::resegment::Resegmented;
use registro_core::review::ReviewRun;
use registro_store::{ProjectId, RunId, SegmentStatus};
use tauri::ipc::Channel;
use tauri::AppHandle;

use super::files;
use crate::error::{CmdError, CmdResult};
use crate::state::blocking;

#[derive(serde::Serialize, ts_rs::TS)]
pub struct TranslateOutcome {
    pub run_id: RunId,
    pub segments: Vec<SegmentOut>,
}

fn parse<T: std::str::FromStr>(s: &str) -> CmdResult<T>
where
    T::Err: std::fmt::Display,
{
    s.parse::<T>().map_err(|e| CmdError::msg(e.to_string()))
}

/// What the Translate form starts from: every option's default from core (the model from
/// `REGISTRO_DEFAULT_MODEL`, else the shipped default), so the window writes none of its own.
#[tauri::command(async)]
pub fn translate_defaults() -> TranslateRequest {
    TranslateRequest::default()
}

/// The request the form sends, ready to run: the model it picked checked as the window allows (empty: the default
/// model; a known model id; or the backend connected in Settings → Backends by its `remote:` id, whose settings come
/// back with it), then core's own check. Loads nothing.
pub fn request_from_form(mut request: TranslateRequest) -> CmdResult<(TranslateRequest, Option<BackendConfig>)> {
    let picked = request.model.trim().to_string();
    let remote = super::backends::backend_for(&picked).transpose()?;
    request.model = match (picked.is_empty(), &remote) {
        (true, _) => registro_core::models::default_model(),
        (false, Some(_)) => picked,
        (false, None) => files::model_id(&picked)?,
    };
    request.validate()?;
    Ok((request, remote))
}

/// Translates `source` as `request` asks and stores the run in `project_id` (pasted text is kept as a document of
/// the project first, so the run can be resumed). Each segment goes to `on_segment` as it finishes (stored first),
/// progress to `on_progress` (a "loading model" step first when the model is not resident);
/// `cancel_operation(op_id)` keeps the segments done so far in a `cancelled` run. The local model stays loaded for
/// the next click.
#[tauri::command]
pub async fn translate_text(
    app: AppHandle,
    project_id: ProjectId,
    source: TranslateSource,
    request: TranslateRequest,
    op_id: String,
    on_progress: Channel<Progress>,
    on_segment: Channel<SegmentOut>,
) -> CmdResult<TranslateOutcome> {
    let (req, remote) = request_from_form(request)?;
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut store = state.open_store()?;
        let prepared = core::request::prepare(&store, &req, &source)?;
        let total = prepared.sources.len() as u64;
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        let mut run = |gen: &mut dyn core::Generator| -> CmdResult<TranslateOutcome> {
            let mut tr = core::Translator::new(gen, req.pool()?).with_meaning_check(req.meaning()?).watch(|s| drop(on_segment.send(s.clone())));
            let (run_id, segments) = core::request::run(&mut store, project_id, &mut tr, &req, &source, &prepared, &mut progress, &op.token)?;
            Ok(TranslateOutcome { run_id, segments })
        };
        match remote {
            Some(cfg) => run(core::open_generator(None, Some(cfg))?.as_mut()),
            None => {
                let model = req.model.clone();
                let loading = Progress { done: 0, total, message: format!("loading model {model}…") };
                let notify = on_progress.clone();
                // Until the first segment is done the model reads its instructions and examples: said, not a bare
                // "starting…" for as long as that takes.
                let prefix = Progress { done: 0, total, message: "computing the prompt prefix…".into() };
                let notify_prefix = on_progress.clone();
                state.with_llm(&model, move || drop(notify.send(loading)), |g| {
                    let _ = notify_prefix.send(prefix);
                    run(g)
                })
            }
        }
    })
    .await
}

/// Analyses `text` against `register` (markers for highlighting, verdict, flag) without storing anything.
#[tauri::command(async)]
pub fn check_translation(lang: String, register: String, text: String) -> CmdResult<SegmentCheck> {
    Ok(core::check(parse(&lang)?, parse(&register)?, &text))
}

/// Stores an edited or picked translation for one segment of a run, re-analysed and re-flagged.
#[tauri::command]
pub async fn save_translation_edit(
    app: AppHandle,
    run_id: RunId,
    segment: usize,
    lang: String,
    register: String,
    text: String,
) -> CmdResult<SegmentCheck> {
    let lang: Lang = parse(&lang)?;
    let register: Register = parse(&register)?;
    blocking(app, move |state| {
        // Every output check runs again on the new text; the meaning model joins in when it is installed.
        let meaning = core::qe::MeaningCheck::installed().ok().flatten();
        state.with_store(|s| registro_core::review::store_edit_checked(s, run_id, segment, lang, register, &text, meaning.as_deref()))
    })
    .await
}

/// Repairs segment `segment` of run `run_id` in place (the grid's Repair on a flagged sentence) and runs every
/// output check again on the result: the flag stays open unless they all pass.
#[tauri::command]
pub async fn repair_segment(app: AppHandle, run_id: RunId, segment: usize) -> CmdResult<registro_core::review::RepairOutcome> {
    blocking(app, move |state| {
        let meaning = core::qe::MeaningCheck::installed().ok().flatten();
        state.with_store(|s| registro_core::review::repair_segment(s, run_id, segment, meaning.as_deref()))
    })
    .await
}

/// Rule-based repair of one sentence into `register` (the view's "Repair" button on a flagged sentence).
#[tauri::command(async)]
pub fn repair_translation(lang: String, register: String, text: String) -> CmdResult<String> {
    let lang: Lang = parse(&lang)?;
    Ok(core::analyzer::repair::convert(lang, &text, parse(&register)?).text)
}

/// Writes the translated document to the file the user picked in the save dialog (`file`: its token).
#[tauri::command]
pub async fn export_translation(app: AppHandle, file: String, text: String) -> CmdResult<String> {
    blocking(app, move |state| super::write_text(&state.files.redeem(&file, files::SAVE_TEXT)?, &text)).await
}

/// A stored translate run as the review grid shows it (statuses, flags, candidates, what Export writes).
#[tauri::command]
pub async fn review_run(app: AppHandle, run_id: RunId) -> CmdResult<ReviewRun> {
    blocking(app, move |state| state.with_store(|s| registro_core::review::open_review(s, run_id))).await
}

/// Rows `from..from + count` of [`review_run`], painted first while a long run loads whole.
#[tauri::command]
pub async fn review_run_rows(app: AppHandle, run_id: RunId, from: usize, count: usize) -> CmdResult<ReviewRun> {
    blocking(app, move |state| state.with_store(|s| registro_core::review::open_review_rows(s, run_id, from, count))).await
}

/// Splits segment `segment` of run `run_id`'s document before character `at` of its source; every run over the
/// document is renumbered, and the two halves are left to translate (`resume_run`).
#[tauri::command]
pub async fn split_segment(app: AppHandle, run_id: RunId, segment: usize, at: usize) -> CmdResult<Resegmented> {
    blocking(app, move |state| state.with_store(|s| registro_core::resegment::split_segment(s, run_id, segment, at))).await
}

/// Joins segment `segment` of run `run_id`'s document with the next one (never across paragraphs, cells or cues).
#[tauri::command]
pub async fn join_segments(app: AppHandle, run_id: RunId, segment: usize) -> CmdResult<Resegmented> {
    blocking(app, move |state| state.with_store(|s| registro_core::resegment::join_segments(s, run_id, segment))).await
}

/// Marks a segment `draft`, `translated`, `reviewed` or `approved` (the grid's Ctrl+Enter approves). A segment
/// whose flag is open is signed off only with `override_reason` (stored with the user's name and the time);
/// returns the override in force, if any.
#[tauri::command]
pub async fn set_segment_status(
    app: AppHandle,
    run_id: RunId,
    segment: usize,
    status: String,
    override_reason: Option<String>,
) -> CmdResult<Option<registro_store::ReviewOverride>> {
    let status: SegmentStatus = parse(&status)?;
    let by = override_reason.map(registro_core::review::OverrideBy::current_user);
    blocking(app, move |state| state.with_store(|s| registro_core::review::set_status_overriding(s, run_id, segment, status, by.as_ref()))).await
}

/// Writes run `run_id` into the file the user picked: a document imported from DOCX, XLIFF, PO, subtitles,
/// Markdown or HTML in its own format (only the text changes; the original file is never overwritten), anything
/// else as text, one segment per line. QA errors refuse the export unless `force` (the user chose "export anyway",
/// with `reason`).
/// Each step goes to `on_progress`; `cancel_operation(op_id)` stops it and nothing is written.
#[tauri::command]
pub async fn export_document(
    app: AppHandle,
    run_id: RunId,
    file: String,
    force: Option<bool>,
    reason: Option<String>,
    op_id: String,
    on_progress: Channel<Progress>,
) -> CmdResult<String> {
    // "Export anyway" is recorded with the user's name, the time, the errors and the reason given.
    let anyway = force
        .unwrap_or(false)
        .then(|| registro_core::review::OverrideBy::current_user(reason.filter(|r| !r.trim().is_empty()).unwrap_or_else(|| "Export anyway, chosen in the window".into())));
    blocking(app, move |state| {
        let path = state.files.redeem(&file, files::SAVE_TEXT)?;
        let op = state.ops.start(&op_id);
        let mut progress = |p: Progress| drop(on_progress.send(p));
        // Its own connection: a long export does not hold up the window's quick reads.
        let mut store = state.open_store()?;
        Ok(registro_core::review::export_to_with(&mut store, run_id, &path, anyway.as_ref(), &mut progress, &op.token)?)
    })
    .await
}

/// Writes the run's approved segments as a TMX translation memory into the file the user picked.
#[tauri::command]
pub async fn export_tmx(app: AppHandle, run_id: RunId, file: String) -> CmdResult<String> {
    blocking(app, move |state| {
        let path = state.files.redeem(&file, files::SAVE_TEXT)?;
        state.with_store(|s| registro_core::review::export_tmx_to(s, run_id, &path))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_gets_cores_defaults_and_an_empty_model_means_the_default_one() {
        let mut form = translate_defaults();
        assert_eq!(form.model, registro_core::models::default_model());
        form.model = " ".into();
        let (req, remote) = request_from_form(form).unwrap();
        assert!(remote.is_none());
        assert_eq!(req.model, registro_core::models::default_model());
        let mut form = translate_defaults();
        form.model = "/tmp/evil.gguf".into();
        assert!(request_from_form(form).unwrap_err().0.contains("by id, not by path"));
        let mut form = TranslateRequest::new(Lang::It, Register::Respectful);
        form.model = String::new();
        assert!(request_from_form(form).unwrap_err().0.contains("respectful register exists for Japanese only"));
    }
}
