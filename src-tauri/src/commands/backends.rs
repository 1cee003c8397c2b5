//! Settings → Backends: an OpenAI-compatible server (vLLM, SGLang, llama.cpp) the app's translations can run on.
//! The connection lives in this process only. A key typed in the page goes into the OS keyring and nowhere else (not
//! the store, not a run, not the web view's storage); the page gets back where the key comes from, never the key.
use std::sync::Mutex;

use registro_core::translate::remote::{self, key_store, BackendConfig, Capabilities};
use registro_core::translate::Generator;
use serde::Serialize;
use tauri::AppHandle;

use crate::error::{CmdError, CmdResult};
use crate::state::blocking;

/// The backend the last successful Test connection set up.
static BACKEND: Mutex<Option<(BackendConfig, BackendStatus)>> = Mutex::new(None);

/// What Settings → Backends and the model picker show of the connected backend.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct BackendStatus {
    /// The model id runs record and the model picker offers (`remote:<model>@<url>`).
    pub id: String,
    pub url: String,
    pub model: String,
    /// Where the API key requests carry comes from: `REGISTRO_API_KEY`, the OS keyring, or none.
    pub key: key_store::KeySource,
    pub capabilities: Capabilities,
}

/// Stores a key typed in the page in the OS keyring (a clear error where there is none), connects to `url`, probes
/// what the server honours, and makes it the app's backend.
#[tauri::command]
pub async fn test_backend(
    app: AppHandle,
    url: String,
    model: Option<String>,
    api_key: Option<String>,
) -> CmdResult<BackendStatus> {
    blocking(app, move |_| {
        let (gen, cfg, key) =
            remote::connect_from_settings(&url, model.as_deref(), api_key.as_deref())?;
        let capabilities = gen.capabilities().clone();
        let status = BackendStatus {
            id: gen.id(),
            url: capabilities.url.clone(),
            model: capabilities.model.clone(),
            key,
            capabilities,
        };
        *BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = Some((cfg, status.clone()));
        Ok(status)
    })
    .await
}

/// Removes the key stored in the OS keyring for `url` (`false` when none was stored) and disconnects the backend,
/// whose connection still holds the key in memory.
#[tauri::command]
pub async fn forget_backend_key(app: AppHandle, url: String) -> CmdResult<bool> {
    blocking(app, move |_| {
        let removed = key_store::clear_key(&url)?;
        *BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(removed)
    })
    .await
}

/// The connected backend, if any.
#[tauri::command]
pub fn backend_status() -> Option<BackendStatus> {
    BACKEND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|(_, s)| s.clone())
}

/// Forgets the backend (and its key).
#[tauri::command]
pub fn clear_backend() {
    *BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

/// The connected backend's settings for a model picked in a view by its `remote:` id; `None` for a local model.
pub fn backend_for(model: &str) -> Option<CmdResult<BackendConfig>> {
    if !model.starts_with(remote::ID_PREFIX) {
        return None;
    }
    let cfg = BACKEND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .filter(|(_, s)| s.id == model)
        .map(|(c, _)| c.clone());
    Some(match cfg {
        Some(cfg) => Ok(cfg),
        None => Err(CmdError::msg(
            "that backend is not connected: open Settings → Backends and press Test connection",
        )),
    })
}
