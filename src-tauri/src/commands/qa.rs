//! The Translate view's QA panel: the register consistency, standard checks and terms of a stored translation
//! run, and "Make consistent" (`fix`). One call into `registro_core::qa`.

use registro_core::progress::Progress;
use registro_core::qa::{self, QaOutcome};
use registro_store::RunId;
use tauri::ipc::Channel;
use tauri::AppHandle;

use super::files;
use crate::error::CmdResult;
use crate::state::blocking;

/// Checks run `run_id`, with the termbase the user picked (`termbase`: its token from `choose_file("import")`);
/// with `fix`, repairs the deviating segments in place first. How far the check is goes to `on_progress`;
/// `cancel_operation(op_id)` stops it (a fix then writes nothing).
#[tauri::command]
pub async fn qa_run(
    app: AppHandle,
    run_id: RunId,
    termbase: Option<String>,
    fix: bool,
    op_id: String,
    on_progress: Channel<Progress>,
) -> CmdResult<QaOutcome> {
    blocking(app, move |state| {
        let path = termbase
            .as_deref()
            .map(|t| state.files.redeem(t, files::IMPORT))
            .transpose()?;
        let op = state.ops.start(&op_id);
        let mut progress = |p: Progress| drop(on_progress.send(p));
        // Its own connection: a long check does not hold up the window's quick reads.
        let mut store = state.open_store()?;
        Ok(qa::qa_run_with(&mut store, run_id, path.as_deref(), fix, &mut progress, &op.token)?)
    })
    .await
}
