//! Settings → About: the same report as `registro doctor`, one call into `registro_core::doctor`.

use registro_core::doctor::{self, DoctorOptions, DoctorReport};
use serde::Serialize;
use tauri::AppHandle;

use crate::error::CmdResult;
use crate::state::blocking;

/// The report, and the same as text for the user to paste into a bug report.
#[derive(Serialize, ts_rs::TS)]
pub struct AboutReport {
    pub report: DoctorReport,
    pub text: String,
}

/// `check_sources` sends one request to each model source: only when the user clicks for it (no network by
/// surprise). On the blocking pool, since that check can wait seconds for a host that does not answer.
#[tauri::command]
pub async fn about_report(app: AppHandle, check_sources: bool) -> CmdResult<AboutReport> {
    blocking(app, move |state| {
        let opts = DoctorOptions {
            db: Some(state.db_path().to_path_buf()),
            check_sources,
            commit: env!("REGISTRO_COMMIT").to_string(),
        };
        let report = doctor::gather(&opts);
        Ok(AboutReport { text: doctor::to_text(&report), report })
    })
    .await
}
