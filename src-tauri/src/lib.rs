//! registro-app: the Tauri v2 window over registro-core. Commands here stay thin — they parse arguments, call a
//! use case in `registro_core` (or a read in `registro_store`) and return serializable data; logic lives in crates.
//!
//! Conventions for command modules (`commands/*.rs`, one per view/concern):
//! - commands are `#[tauri::command(async)]` (quick reads) or `async fn` + [`state::blocking`] (long work), so the
//!   window's main thread never waits on SQLite or a model;
//! - they return [`error::CmdResult`]; errors reach the UI as one readable string with its context chain;
//! - quick reads/writes use the shared connection ([`state::AppState::with_store`]); long operations open their own
//!   connection ([`state::AppState::open_store`]) so the sidebar stays responsive (WAL allows it);
//! - long operations take an `op_id: String` chosen by the UI and a `tauri::ipc::Channel<Progress>`; they register
//!   the id with [`ops::Operations::start`] and check the token between segments; `cancel_operation(op_id)` flips it.
//!
//! - commands never take a file path from the page: files come from dialogs the backend opens (`choose_file`,
//!   see [`files`]) as one-time tokens; models and scorers are named by id.
//!
//! To add a module: create `commands/<name>.rs`, add `pub mod <name>;` to `commands/mod.rs` and its commands to the
//! `generate_handler!` list below. To add a command: list it here, in `src/command_list.rs` (which `build.rs`
//! turns into an `allow-<command>` permission) and grant it in `capabilities/default.json`; a command that is not
//! granted is refused by Tauri's ACL (the `command_list` test checks the three lists agree).
#![forbid(unsafe_code)]

pub mod command_list;
pub mod commands;
pub mod error;
pub mod files;
pub mod open_with;
pub mod ops;
pub mod startup;
pub mod state;

use std::path::PathBuf;

use anyhow::Context;

/// `--db PATH` on the command line wins over `REGISTRO_DB`, which wins over the platform data dir (same order as
/// the CLI). The e2e tests pass `--db` so each test gets a fresh database.
fn db_path_from_args() -> anyhow::Result<PathBuf> {
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--db" {
            let path = args.next().context("--db needs a path")?;
            return Ok(PathBuf::from(path));
        }
        if let Some(path) = arg.to_str().and_then(|a| a.strip_prefix("--db=")) {
            return Ok(PathBuf::from(path));
        }
    }
    Ok(registro_store::default_db_path()?)
}

pub fn run() -> anyhow::Result<()> {
    let mut startup = Vec::new();
    let answers = files::dialog_answers_from_args().unwrap_or_else(|e| {
        startup.push(startup::Problem {
            level: startup::Level::Error,
            message: format!("{e:#}"),
            fix: "Fix the --e2e-dialog-answers file; until then every file dialog is refused.".into(),
        });
        Some(Vec::new())
    });
    if answers.is_some() {
        eprintln!("registro-app: file dialogs are pre-answered (--e2e-dialog-answers / REGISTRO_E2E_DIALOG_ANSWERS)");
        startup.push(startup::Problem {
            level: startup::Level::Info,
            message: "Test mode: file dialogs are answered from --e2e-dialog-answers.".into(),
            fix: "Start Registro without --e2e-dialog-answers (and REGISTRO_E2E_DIALOG_ANSWERS) to use the real dialogs.".into(),
        });
    }
    // REGISTRO_DEVICE picks where models run, as for the CLI; a bad value or an unusable GPU is a banner, not a crash.
    if let Some(w) = registro_core::device::choose_from_env("REGISTRO_DEVICE") {
        startup.push(startup::Problem { level: startup::Level::Warning, message: w, fix: "Set REGISTRO_DEVICE to auto, cpu, cuda[:N] or metal (or unset it).".into() });
    }
    // The data installed with the app (translation example pools) is found through Tauri's resource directory,
    // whatever the binary's own path; a missing pool is a banner that says how to fix it, and translating into
    // that language fails saying so rather than quietly translating without examples.
    let context = tauri::generate_context!();
    if let Ok(dir) = tauri::utils::platform::resource_dir(context.package_info(), &tauri::Env::default()) {
        registro_core::set_resource_dir(dir);
    }
    // Only whether each pool's folder is there: reading the pools (as About does) would cost every start the
    // parsing of 4 MB that a translation reads anyway when it needs it.
    let missing: Vec<&str> = registro_core::translate::Lang::ALL
        .into_iter()
        .filter(|&l| registro_core::translate::analyzer::data::example_set(l).is_some())
        .filter(|&l| registro_core::translate::analyzer::data::examples_dir(l).is_err())
        .map(|l| l.name())
        .collect();
    if !missing.is_empty() {
        startup.push(startup::Problem {
            level: startup::Level::Warning,
            message: format!("Translation examples are missing for {}: translating into these languages will fail.", missing.join(", ")),
            fix: "Reinstall Registro, or set REGISTRO_DATA to a folder that holds examples/ (Settings → About lists what was found).".into(),
        });
    }
    let files = files::FileChoices::new(files::TOKEN_TTL, answers);
    // "Open with Registro": a file named on the command line becomes an import token for the page (open_with.rs).
    let opened = open_with::StartupFile::from_args(&files, &mut startup);
    // A database that cannot be opened still opens the window, which shows why (see `startup_status`).
    let state = state::AppState::open(db_path_from_args(), files, startup);
    if let Some(p) = state.startup_problems().first().filter(|p| p.level == startup::Level::Error) {
        eprintln!("registro-app: {}", p.message);
    }

    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(state)
        .manage(opened)
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                use tauri::{Emitter, Manager};
                let chosen = window.state::<state::AppState>().files.dropped(paths);
                // The page imports them as if picked in the Import dialog (`registro://files-dropped` in main.ts).
                if let Err(e) = window.emit("registro://files-dropped", chosen) {
                    eprintln!("registro-app: could not hand the dropped files to the window: {e}");
                }
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::about::about_report,
            commands::startup_status,
            open_with::startup_file,
            commands::cancel_operation,
            commands::files::choose_file,
            commands::projects::list_projects,
            commands::projects::create_project,
            commands::projects::rename_project,
            commands::projects::delete_project,
            commands::projects::list_documents,
            commands::projects::get_document,
            commands::projects::document_segments,
            commands::projects::delete_document,
            commands::projects::import_document,
            commands::projects::list_runs,
            commands::projects::get_run,
            commands::projects::delete_run,
            commands::projects::resume_run,
            commands::dashboard::dashboard_list_runs,
            commands::dashboard::dashboard_import_submissions,
            commands::dashboard::dashboard_compare,
            commands::dashboard::dashboard_drilldown,
            commands::dashboard::dashboard_rating_items,
            commands::dashboard::dashboard_save_ratings,
            commands::dashboard::dashboard_human_summary,
            commands::dashboard::dashboard_export,
            commands::dashboard::dashboard_save_chart,
            commands::dashboard::dashboard_chart_svg,
            commands::dashboard::dashboard_table,
            commands::dashboard::dashboard_defaults,
            commands::rewrite::rewrite_defaults,
            commands::rewrite::rewrite_text,
            commands::rewrite::score_formality,
            commands::rewrite::export_rewrite,
            commands::rewrite::open_rewrite_run,
            commands::rewrite::save_rewrite_choices,
            commands::translate::translate_defaults,
            commands::translate::translate_text,
            commands::translate::check_translation,
            commands::translate::save_translation_edit,
            commands::translate::repair_translation,
            commands::translate::repair_segment,
            commands::translate::export_translation,
            commands::translate::review_run,
            commands::translate::review_run_rows,
            commands::translate::set_segment_status,
            commands::translate::split_segment,
            commands::translate::join_segments,
            commands::translate::export_document,
            commands::translate::export_tmx,
            commands::qa::qa_run,
            commands::backends::test_backend,
            commands::backends::backend_status,
            commands::backends::clear_backend,
            commands::backends::forget_backend_key,
            commands::models::first_start,
            commands::models::list_models,
            commands::models::download_model,
            commands::models::verify_model,
            commands::models::remove_model,
            commands::models::import_model,
        ])
        .run(context)
        .context("the Registro window failed")?;
    Ok(())
}
