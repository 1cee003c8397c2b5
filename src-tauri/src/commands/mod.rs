//! Tauri commands, one module per view/concern. Each module's commands are listed in `generate_handler!` in
//! `lib.rs`. Shared plumbing (app info, cancelling a long operation) lives here.

pub mod dashboard;
pub mod projects;
pub mod rewrite;
pub mod translate;

use serde::Serialize;
use tauri::State;

use crate::error::CmdResult;
use crate::state::AppState;

#[derive(Serialize)]
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
