//! The setup card of a first start and Settings → Models: the catalogue with what is on disk, and Download (the
//! same fetch as `registro models fetch`: resumable, sha256-checked), Verify, Remove and Import of a GGUF file the
//! user chose in a dialog. Each command is one call into `registro_core::models`; models are named by id, and the
//! imported file by the token of the dialog the backend opened.
use registro_core::models::{self, DownloadProgress, Downloaded, FirstStart, ModelSummary, Removed, Verified};
use tauri::ipc::Channel;
use tauri::AppHandle;

use super::files;
use crate::error::CmdResult;
use crate::state::blocking;

/// Whether the window opens on the setup card, and the default model it offers.
#[tauri::command(async)]
pub fn first_start() -> CmdResult<FirstStart> {
    Ok(models::first_start())
}

/// Every catalogue model with its state on disk (nothing is hashed).
#[tauri::command(async)]
pub fn list_models() -> CmdResult<Vec<ModelSummary>> {
    Ok(models::summaries())
}

/// Downloads model `id`, continuing what an earlier try left; `cancel_operation(op_id)` stops it and keeps the
/// bytes for the next Download.
#[tauri::command]
pub async fn download_model(app: AppHandle, id: String, op_id: String, on_progress: Channel<DownloadProgress>) -> CmdResult<Downloaded> {
    let id = files::model_id(&id)?;
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        Ok(models::download(&id, &mut |p| drop(on_progress.send(p)), &op.token)?)
    })
    .await
}

/// Rehashes every file of `id`; a damaged one is refused until Download replaces it.
#[tauri::command]
pub async fn verify_model(app: AppHandle, id: String, op_id: String, on_progress: Channel<DownloadProgress>) -> CmdResult<Verified> {
    let id = files::model_id(&id)?;
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        Ok(models::verify_model(&id, &mut |p| drop(on_progress.send(p)), &op.token)?)
    })
    .await
}

/// Deletes the model's folder from the cache (its files and any unfinished download).
#[tauri::command]
pub async fn remove_model(app: AppHandle, id: String) -> CmdResult<Removed> {
    let id = files::model_id(&id)?;
    blocking(app, move |_| Ok(models::remove_model(&id)?)).await
}

/// Copies the GGUF file chosen in the dialog (`file`: its token from `choose_file('import-model')`) into the cache.
#[tauri::command]
pub async fn import_model(app: AppHandle, file: String, op_id: String, on_progress: Channel<DownloadProgress>) -> CmdResult<ModelSummary> {
    blocking(app, move |state| {
        let path = state.files.redeem(&file, files::IMPORT_MODEL)?;
        let op = state.ops.start(&op_id);
        Ok(models::import_model(&path, &mut |p| drop(on_progress.send(p)), &op.token)?)
    })
    .await
}
