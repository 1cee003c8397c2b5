//! Tauri commands, one module per view/concern. Each module's commands are listed in `generate_handler!` in
//! `lib.rs`. Shared plumbing (app info, cancelling a long operation) lives here.

pub mod about;
pub mod backends;
pub mod dashboard;
pub mod files;
pub mod models;
pub mod projects;
pub mod qa;
pub mod rewrite;
pub mod translate;

use serde::Serialize;
use tauri::State;

use crate::error::CmdResult;
use crate::startup::{self, Problem};
use crate::state::AppState;

#[derive(Serialize, ts_rs::TS)]
pub struct AppInfo {
    pub version: &'static str,
    /// The database file in use (shown in the status bar so users know where their data is).
    pub db_path: String,
}

#[tauri::command(async)]
pub fn app_info(state: State<'_, AppState>) -> CmdResult<AppInfo> {
    Ok(AppInfo { version: env!("CARGO_PKG_VERSION"), db_path: state.db_path().display().to_string() })
}

/// Asks the long operation `op_id` to stop at its next check; returns false when it is no longer running.
#[tauri::command(async)]
pub fn cancel_operation(state: State<'_, AppState>, op_id: String) -> CmdResult<bool> {
    Ok(state.ops.cancel(&op_id))
}

/// What went wrong at start-up (the database, the default model, test settings), for the window to show before
/// anything else; empty when all is well.
#[tauri::command(async)]
pub fn startup_status(state: State<'_, AppState>) -> CmdResult<Vec<Problem>> {
    let mut problems = state.startup_problems().to_vec();
    let models = registro_core::models::manager(&[]);
    problems.extend(startup::catalogue_problems(&models));
    if let Some(p) = startup::model_problem(&models, &registro_core::models::default_model()) {
        problems.push(p);
    }
    Ok(problems)
}

/// Writes an exported document to the file the user chose; returns the path for the page to show.
fn write_text(path: &std::path::Path, text: &str) -> CmdResult<String> {
    std::fs::write(path, text).map_err(|e| crate::error::CmdError::msg(format!("cannot write {}: {e}", path.display())))?;
    Ok(path.display().to_string())
}
