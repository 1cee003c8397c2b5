//! The Translate view's QA panel: the register consistency, standard checks and terms of a stored translation
//! run, and "Make consistent" (`fix`). One call into `registro_core::qa`.

use registro_core::qa::{self, QaOutcome};
use registro_store::RunId;
use tauri::AppHandle;

use super::files;
use crate::error::CmdResult;
use crate::state::blocking;

/// Checks run `run_id`, with the termbase the user picked (`termbase`: its token from `choose_file("import")`);
/// with `fix`, repairs the deviating segments in place first.
#[tauri::command]
pub async fn qa_run(
    app: AppHandle,
    run_id: RunId,
    termbase: Option<String>,
    fix: bool,
) -> CmdResult<QaOutcome> {
    blocking(app, move |state| {
        let path = termbase
            .as_deref()
            .map(|t| state.files.redeem(t, files::IMPORT))
            .transpose()?;
        state.with_store(|s| qa::qa_run(s, run_id, path.as_deref(), fix))
    })
    .await
}
