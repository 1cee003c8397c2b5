//! What the window keeps between commands: the store (one shared connection for quick commands), its path (long
//! operations open their own connection) and the operations in flight.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use registro_store::Store;
use tauri::{AppHandle, Manager};

use crate::error::{CmdError, CmdResult};
use crate::ops::Operations;

pub struct AppState {
    db_path: PathBuf,
    store: Mutex<Store>,
    pub ops: Operations,
}

impl AppState {
    /// Opens (creating and migrating if needed) the database before the window appears, so a broken or locked
    /// database is reported on the terminal with its path instead of as an empty window.
    pub fn open(db_path: PathBuf) -> anyhow::Result<AppState> {
        let store = Store::open(&db_path).with_context(|| format!("cannot open the database {}", db_path.display()))?;
        Ok(AppState { db_path, store: Mutex::new(store), ops: Operations::default() })
    }

    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// Runs `f` on the shared connection. Keep `f` short (one query or one small transaction).
    pub fn with_store<T, E: Into<CmdError>>(&self, f: impl FnOnce(&mut Store) -> Result<T, E>) -> CmdResult<T> {
        let mut store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut store).map_err(Into::into)
    }

    /// A fresh connection to the same database, for long operations run off the shared one.
    pub fn open_store(&self) -> CmdResult<Store> {
        Ok(Store::open(&self.db_path).with_context(|| format!("cannot open the database {}", self.db_path.display()))?)
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
