//! What the window keeps between commands: the store (one shared connection for quick commands), its path (long
//! operations open their own connection), the operations in flight, the files the user picked in dialogs, and
//! what went wrong at start-up, and the local LLM kept loaded between Translate and Rewrite clicks.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use registro_core::translate::EngineGenerator;
use registro_store::Store;
use tauri::{AppHandle, Manager};

use crate::error::{CmdError, CmdResult};
use crate::files::FileChoices;
use crate::ops::Operations;
use crate::startup::Problem;

pub struct AppState {
    db_path: PathBuf,
    /// The open store, or why it could not be opened: the window still opens and says so (an app started from a
    /// desktop menu has no terminal to print to).
    store: Result<Mutex<Store>, String>,
    pub ops: Operations,
    pub files: FileChoices,
    startup: Vec<Problem>,
    /// The last local LLM used, with its warmed kernels and prefix caches: loading and warming a model costs
    /// seconds, so the next click starts decoding at once. One model only (a switch replaces it, freeing the old).
    llm: Mutex<Option<EngineGenerator>>,
    /// What Rewrite keeps beside that LLM between clicks: its prompts' prefix caches and the sentence encoder.
    rewrite_caches: Mutex<registro_core::rewrite::Resident>,
}

impl AppState {
    /// Opens (creating and migrating if needed) the database before the window appears. A failure is kept and
    /// shown in the window; every command that needs the store returns it.
    pub fn open(db_path: anyhow::Result<PathBuf>, files: FileChoices, mut startup: Vec<Problem>) -> AppState {
        let (db_path, store) = match db_path {
            Ok(p) => {
                let store = Store::open(&p).with_context(|| format!("cannot open the database {}", p.display()));
                (p, store.map(Mutex::new).map_err(|e| format!("{e:#}")))
            }
            Err(e) => (PathBuf::new(), Err(format!("no database to open: {e:#}"))),
        };
        if let Err(e) = &store {
            startup.insert(0, Problem::database(e.clone()));
        }
        AppState { db_path, store, ops: Operations::default(), files, startup, llm: Mutex::new(None), rewrite_caches: Mutex::default() }
    }

    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// Problems found while starting (the model check is added by the command that reports them).
    pub fn startup_problems(&self) -> &[Problem] {
        &self.startup
    }

    /// Runs `f` on the shared connection. Keep `f` short (one query or one small transaction).
    pub fn with_store<T, E: Into<CmdError>>(&self, f: impl FnOnce(&mut Store) -> Result<T, E>) -> CmdResult<T> {
        let store = self.store.as_ref().map_err(|e| CmdError::msg(e.clone()))?;
        let mut store = store.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut store).map_err(Into::into)
    }

    /// Runs `f` with the local LLM `model` loaded, loading it first (and dropping the previous one) when it is not
    /// the one resident; `on_load` is told before a load starts. Runs that use the LLM take turns.
    pub fn with_llm<T>(&self, model: &str, on_load: impl FnOnce(), f: impl FnOnce(&mut EngineGenerator) -> CmdResult<T>) -> CmdResult<T> {
        let mut slot = self.llm.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().map(|g| registro_core::translate::Generator::id(g)) != Some(model.to_string()) {
            // Free the old model before loading the new one: two resident models could exhaust memory.
            *slot = None;
            on_load();
            *slot = Some(EngineGenerator::load(model)?.first_segment_first());
        }
        f(slot.as_mut().expect("loaded above"))
    }

    /// Rewrite's caches for a run inside [`AppState::with_llm`]; [`AppState::keep_rewrite_caches`] puts them back.
    pub fn take_rewrite_caches(&self) -> registro_core::rewrite::Resident {
        std::mem::take(&mut *self.rewrite_caches.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn keep_rewrite_caches(&self, caches: registro_core::rewrite::Resident) {
        *self.rewrite_caches.lock().unwrap_or_else(|p| p.into_inner()) = caches;
    }

    /// A fresh connection to the same database, for long operations run off the shared one.
    pub fn open_store(&self) -> CmdResult<Store> {
        if let Err(e) = &self.store {
            return Err(CmdError::msg(e.clone()));
        }
        Ok(Store::open(&self.db_path)
            .with_context(|| format!("cannot open the database {}", self.db_path.display()))?)
    }
}

/// Runs `f` on tokio's blocking pool, so a long operation neither blocks the window nor an async worker.
pub async fn blocking<T, F>(app: AppHandle, f: F) -> CmdResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState) -> CmdResult<T> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || f(&app.state::<AppState>()))
        .await
        .map_err(|e| CmdError::msg(format!("the operation stopped unexpectedly: {e}")))?
}
