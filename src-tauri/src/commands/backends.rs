//! Settings → Backends: an OpenAI-compatible server (vLLM, SGLang, llama.cpp) the app's translations can run on.
//! The connection lives in this process only: the API key is never written anywhere (not the store, not a run, not
//! the web view's storage), and the page gets back whether a key is set, never the key.
use std::sync::Mutex;

use registro_core::translate::remote::{self, ApiKey, BackendConfig, Capabilities};
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
    pub has_key: bool,
    pub capabilities: Capabilities,
}

/// Connects to `url`, probes what the server honours, and makes it the app's backend. A blank key falls back to
/// `REGISTRO_API_KEY`.
#[tauri::command]
pub async fn test_backend(
    app: AppHandle,
    url: String,
    model: Option<String>,
    api_key: Option<String>,
) -> CmdResult<BackendStatus> {
    blocking(app, move |_| {
        let mut cfg = BackendConfig::new(url.trim());
        cfg.model = model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty());
        cfg.api_key = api_key
            .as_deref()
            .and_then(ApiKey::new)
            .or_else(ApiKey::from_env);
        // A person is waiting on the button: fail within seconds, not minutes.
        cfg.retries = 1;
        cfg.timeout = std::time::Duration::from_secs(30);
        let gen = remote::RemoteGenerator::connect(cfg.clone())?;
        let capabilities = gen.capabilities().clone();
        cfg.model = Some(capabilities.model.clone());
        cfg.retries = BackendConfig::new("http://x").retries;
        cfg.timeout = BackendConfig::new("http://x").timeout;
        let status = BackendStatus {
            id: gen.id(),
            url: capabilities.url.clone(),
            model: capabilities.model.clone(),
            has_key: cfg.api_key.is_some(),
            capabilities,
        };
        *BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = Some((cfg, status.clone()));
        Ok(status)
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
