//! Projects, documents and runs: the sidebar and the document/run lists every view shows. Each command is one call
//! into `registro_core::projects`.

use registro_core::progress::Progress;
use registro_core::resume::{ResumeOutcome, Watch};
use registro_core::run_state::{RunRow, RunState};
use registro_core::translate::SegmentOut;
use registro_core::projects::{self as core, ImportOptions, ImportSummary, RunDetail, SegmentRow};
use registro_store::{Document, DocumentId, Project, ProjectId, RunFilter, RunId};
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use super::files;
use crate::error::{CmdError, CmdResult};
use crate::state::{blocking, AppState};

#[tauri::command(async)]
pub fn list_projects(state: State<'_, AppState>) -> CmdResult<Vec<Project>> {
    state.with_store(|s| core::list_projects(s))
}

#[tauri::command(async)]
pub fn create_project(state: State<'_, AppState>, name: String) -> CmdResult<Project> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CmdError::msg("a project needs a name"));
    }
    state.with_store(|s| core::create_project(s, name))
}

#[tauri::command(async)]
pub fn rename_project(state: State<'_, AppState>, id: ProjectId, name: String) -> CmdResult<Project> {
    state.with_store(|s| {
        s.rename_project(id, name.trim())?;
        s.project(id)
    })
}

/// Deletes the project with all its documents and runs; the UI asks for confirmation first.
#[tauri::command(async)]
pub fn delete_project(state: State<'_, AppState>, id: ProjectId) -> CmdResult<()> {
    state.with_store(|s| core::delete_project(s, id))
}

#[tauri::command(async)]
pub fn list_documents(state: State<'_, AppState>, project_id: ProjectId) -> CmdResult<Vec<Document>> {
    state.with_store(|s| core::list_documents(s, project_id))
}

#[tauri::command(async)]
pub fn get_document(state: State<'_, AppState>, id: DocumentId) -> CmdResult<Document> {
    state.with_store(|s| s.document(id))
}

/// One page of a document's segments with their references (the UI pages large documents).
#[tauri::command(async)]
pub fn document_segments(
    state: State<'_, AppState>,
    id: DocumentId,
    offset: Option<i64>,
    limit: Option<i64>,
) -> CmdResult<Vec<SegmentRow>> {
    state.with_store(|s| core::document_segments(s, id, offset.unwrap_or(0), limit.unwrap_or(200)))
}

#[tauri::command(async)]
pub fn delete_document(state: State<'_, AppState>, id: DocumentId) -> CmdResult<()> {
    state.with_store(|s| core::delete_document(s, id))
}

/// Imports the file or paired folder the user picked in the dialog (`file`: the token `choose_file` returned)
/// into `project_id`. Progress goes to `on_progress`; `cancel_operation(op_id)` stops it before the commit,
/// leaving the store untouched.
#[tauri::command]
pub async fn import_document(
    app: AppHandle,
    project_id: ProjectId,
    file: String,
    options: Option<ImportOptions>,
    op_id: String,
    on_progress: Channel<Progress>,
) -> CmdResult<ImportSummary> {
    blocking(app, move |state| {
        let path = state.files.redeem(&file, files::IMPORT)?;
        let op = state.ops.start(&op_id);
        let mut store = state.open_store()?;
        let opts = options.unwrap_or_default();
        // A closed window drops the channel; the import itself should still finish or fail on its own.
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        Ok(core::import_path(&mut store, project_id, &path, &opts, &mut progress, &op.token)?)
    })
    .await
}

#[derive(serde::Deserialize, Default, ts_rs::TS)]
#[ts(rename = "ProjectRunQuery", optional_fields = nullable)]
#[serde(rename_all = "camelCase")]
pub struct RunQuery {
    pub document_id: Option<DocumentId>,
    pub task: Option<String>,
    pub limit: Option<i64>,
}

/// The project's runs, newest first, each with its state (`registro_core::run_state`) and document name.
#[tauri::command(async)]
pub fn list_runs(state: State<'_, AppState>, project_id: ProjectId, query: Option<RunQuery>) -> CmdResult<Vec<RunRow>> {
    let query = query.unwrap_or_default();
    let task = query.task.as_deref().map(str::parse).transpose()?;
    let filter = RunFilter {
        project_id: Some(project_id),
        document_id: query.document_id,
        task,
        limit: query.limit,
        ..Default::default()
    };
    state.with_store(|s| registro_core::run_state::run_rows(s, &filter))
}

#[tauri::command(async)]
pub fn get_run(state: State<'_, AppState>, id: RunId) -> CmdResult<RunDetail> {
    state.with_store(|s| core::get_run(s, id))
}

/// Finishes a failed, cancelled or interrupted rewrite/translate run over a stored document (what `registro runs
/// resume ID` does): only the missing segments are produced, the finished ones are kept. The run's state goes to
/// `on_state` as it changes (starting: what it is doing; running n of m of the whole run; how it ended), each
/// translated segment to `on_segment` as it is stored. The run's model is loaded by id only, like every model the
/// app loads, whatever the database says.
#[tauri::command]
pub async fn resume_run(
    app: AppHandle,
    id: RunId,
    op_id: String,
    on_state: Channel<RunState>,
    on_segment: Channel<SegmentOut>,
) -> CmdResult<ResumeOutcome> {
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut store = state.open_store()?;
        // A run made on an OpenAI-compatible server reconnects to the server it recorded; a local model is named by
        // an id the model manager knows.
        if let Some(model) = store.run(id).map_err(CmdError::from)?.model_id.as_deref() {
            if registro_core::translate::remote::parse_id(model).is_none() {
                files::model_id(model)?;
            }
        }
        // A closed window drops the channels; the resume itself finishes or fails on its own.
        let watch = Watch { state: &mut |s| drop(on_state.send(s)), segment: &mut |s| drop(on_segment.send(s.clone())) };
        Ok(registro_core::resume::resume_run_watched(&mut store, id, watch, &op.token)?)
    })
    .await
}

#[tauri::command(async)]
pub fn delete_run(state: State<'_, AppState>, id: RunId) -> CmdResult<()> {
    state.with_store(|s| core::delete_run(s, id))
}
