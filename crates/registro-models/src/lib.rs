//! The model manager: which models exist (manifests), what is in the cache (`$REGISTRO_MODELS` or
//! `~/.cache/registro/models/<id>/<file>`), and getting files there safely (resumable downloads, sha256 checked
//! before an atomic rename, each failed source reported before the next is tried), one fetch of a model at a time
//! (a second waits for the first), and never handing out a file that is not known to be intact: a file is hashed
//! before its first load and one that failed verification is refused until it is fetched again.
#![forbid(unsafe_code)]
mod events;
mod failure;
mod fetch;
mod gguf;
mod http;
mod lock;
mod manifest;
pub mod net;
pub mod reach;
mod resolve;

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;

pub use events::{human_bytes, FetchEvent, Stage};
pub use failure::{failure_kind, Failure, FailureKind};
pub use lock::{Lock, LockEntry};
pub use manifest::{builtin, check_id, FileSpec, Manifest, Quality, Role, Source};
pub use net::{describe_network, Network, Trust};
pub use resolve::{ModelFormat, ResolvedModel};

use fetch::{FetchCtx, Fetched};

/// File name of the manifest `import` writes for a model that no shipped manifest describes.
pub const USER_MANIFEST: &str = "manifest.toml";

/// A folder of extra manifests (`*.toml`) that join the catalogue, each replacing a shipped one with the same id:
/// a mirror on the local network, a model an organisation ships itself, or a test's local HTTP server.
pub const CATALOGUE_ENV: &str = "REGISTRO_CATALOGUE";

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    Missing,
    /// An interrupted download: `bytes` are in `<file>.part` and the next fetch continues from there.
    Partial { bytes: u64 },
    /// Present, with its hash checked (now or at fetch time, and unchanged since).
    Verified,
    /// Present with the right size but not hashed since it last changed (copied in by hand, touched, or from an
    /// older cache); it is hashed before it is loaded.
    Unverified,
    /// Present but not the manifest's size, or its hash was found wrong: never loaded until fetched again.
    Damaged { reason: String },
}

#[derive(Clone, Debug, Serialize)]
pub struct FileStatus {
    pub name: String,
    pub path: PathBuf,
    pub expected_bytes: u64,
    pub state: FileState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelState {
    Ready,
    Unverified,
    Partial,
    Missing,
    Damaged,
}

impl std::fmt::Display for ModelState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelState::Ready => "ready",
            ModelState::Unverified => "unverified",
            ModelState::Partial => "partial",
            ModelState::Missing => "missing",
            ModelState::Damaged => "damaged",
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelStatus {
    pub manifest: Manifest,
    pub dir: PathBuf,
    pub state: ModelState,
    pub files: Vec<FileStatus>,
    /// Added by `registro models import` rather than shipped with Registro.
    pub imported: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyOutcome {
    Ok,
    /// No expected hash existed (trust-on-first-download): this one is now recorded.
    Recorded,
    Missing,
    Mismatch { expected: String, actual: String },
    WrongSize { expected: u64, actual: u64 },
}

#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    pub id: String,
    pub files: Vec<(String, VerifyOutcome, String)>,
    pub bytes_hashed: u64,
    pub seconds: f64,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.files.iter().all(|(_, o, _)| matches!(o, VerifyOutcome::Ok | VerifyOutcome::Recorded))
    }
}

pub struct ModelManager {
    root: PathBuf,
    manifests: Vec<(Manifest, bool)>,
    local_dirs: Vec<PathBuf>,
    /// Certificates and proxy; the process's settings from the environment unless given.
    network: Option<Arc<Network>>,
    network_only: bool,
    /// Catalogue manifests that could not be read, in words (the others are used).
    catalogue_problems: Vec<String>,
}

impl ModelManager {
    /// The cache at `root` with the shipped manifests plus those `import` wrote there.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let mut manifests: Vec<(Manifest, bool)> = builtin().into_iter().map(|m| (m, false)).collect();
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut user: Vec<PathBuf> =
                rd.filter_map(|e| e.ok()).map(|e| e.path().join(USER_MANIFEST)).filter(|p| p.is_file()).collect();
            user.sort();
            for p in user {
                // An unreadable user manifest must not hide the others; `list` still shows its directory's id.
                if let Ok(m) = Manifest::load(&p) {
                    manifests.retain(|(b, _)| b.id != m.id);
                    manifests.push((m, true));
                }
            }
        }
        Self { root, manifests, local_dirs: Vec::new(), network: None, network_only: false, catalogue_problems: Vec::new() }
    }

    /// `$REGISTRO_MODELS` or the platform cache dir (`~/.cache/registro/models`); local directories from
    /// `$REGISTRO_WHEELHOUSE` (a path list), plus `~/.cache/registro/downloads` when it exists (where the
    /// project's fetch script leaves the PyPI wheels and npm tarballs).
    /// `$REGISTRO_CATALOGUE` adds the manifests of a folder (see [`ModelManager::with_catalogue`]).
    pub fn from_env() -> Self {
        let mut m = Self::new(default_root());
        if let Some(dir) = std::env::var_os(CATALOGUE_ENV).filter(|d| !d.is_empty()) {
            m = m.with_catalogue(Path::new(&dir));
        }
        if let Some(list) = std::env::var_os("REGISTRO_WHEELHOUSE") {
            for d in std::env::split_paths(&list).filter(|d| !d.as_os_str().is_empty()) {
                m.local_dirs.push(d);
            }
        }
        if let Some(d) = dirs::cache_dir().map(|c| c.join("registro").join("downloads")).filter(|d| d.is_dir()) {
            m.local_dirs.push(d);
        }
        m
    }

    /// Adds a directory of already-downloaded files, wheels or npm tarballs to look in before the network.
    pub fn with_local_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.local_dirs.push(dir.into());
        self
    }

    /// Adds a manifest not shipped with Registro (tests, plug-ins); it replaces a shipped one with the same id.
    pub fn with_manifest(mut self, m: Manifest) -> Self {
        self.manifests.retain(|(b, _)| b.id != m.id);
        self.manifests.push((m, true));
        self
    }

    /// Adds every `*.toml` manifest in `dir` to the catalogue, in name order, each replacing a shipped manifest with
    /// the same id (so a test or an organisation can serve a model from its own server). A manifest that cannot be
    /// read is left out and named in [`ModelManager::catalogue_problems`]; the others are used. Manifests a user
    /// imported into the cache still win: they are the files on this disk.
    pub fn with_catalogue(mut self, dir: &Path) -> Self {
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => {
                self.catalogue_problems.push(format!("the catalogue folder {} ({CATALOGUE_ENV}) cannot be read: {e}", dir.display()));
                return self;
            }
        };
        let mut files: Vec<PathBuf> =
            entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        files.sort();
        for p in files {
            match Manifest::load(&p) {
                Ok(m) if self.manifests.iter().any(|(x, user)| *user && x.id == m.id) => {
                    self.catalogue_problems.push(format!("{}: model {} was imported into the cache; the import is kept", p.display(), m.id));
                }
                Ok(m) => {
                    self.manifests.retain(|(x, _)| x.id != m.id);
                    self.manifests.push((m, false));
                }
                Err(e) => self.catalogue_problems.push(format!("{e:#}")),
            }
        }
        self
    }

    /// Catalogue manifests left out, with why (see [`ModelManager::with_catalogue`]).
    pub fn catalogue_problems(&self) -> &[String] {
        &self.catalogue_problems
    }

    /// Downloads through `network` instead of the settings read from the environment.
    pub fn with_network(mut self, network: Network) -> Self {
        self.network = Some(Arc::new(network));
        self
    }

    /// Ignores every copy already on this machine (local sources, wheelhouses, archives downloaded earlier), so a
    /// fetch proves that the download path works.
    pub fn network_only(mut self, yes: bool) -> Self {
        self.network_only = yes;
        self
    }

    /// The certificates and proxy downloads use.
    pub fn network(&self) -> Result<Arc<Network>> {
        match &self.network {
            Some(n) => Ok(n.clone()),
            None => net::global(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn local_dirs(&self) -> &[PathBuf] {
        &self.local_dirs
    }

    pub fn manifests(&self) -> impl Iterator<Item = &Manifest> {
        self.manifests.iter().map(|(m, _)| m)
    }

    pub fn manifest(&self, id: &str) -> Option<&Manifest> {
        self.manifests.iter().map(|(m, _)| m).find(|m| m.id == id)
    }

    fn known(&self, id: &str) -> Result<&Manifest> {
        self.manifest(id).ok_or_else(|| {
            let ids: Vec<&str> = self.manifests().map(|m| m.id.as_str()).collect();
            anyhow!("unknown model id {id:?}; known ids: {}", ids.join(", "))
        })
    }

    pub fn model_dir(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }

    pub fn file_path(&self, id: &str, file: &str) -> PathBuf {
        self.model_dir(id).join(file)
    }

    fn downloads_dir(&self) -> PathBuf {
        self.root.join(".downloads")
    }

    /// What is in the cache for one model, without hashing anything.
    pub fn status(&self, id: &str) -> Result<ModelStatus> {
        let m = self.known(id)?;
        let imported = self.manifests.iter().any(|(x, user)| x.id == id && *user);
        let dir = self.model_dir(id);
        let lock = Lock::load(&dir);
        let files: Vec<FileStatus> = m
            .files
            .iter()
            .map(|f| {
                let path = dir.join(&f.name);
                FileStatus { name: f.name.clone(), expected_bytes: f.bytes, state: file_state(f, &path, &lock), path }
            })
            .collect();
        let state = summarize(&files);
        Ok(ModelStatus { manifest: m.clone(), dir, state, files, imported })
    }

    /// Every known model with its cache state.
    pub fn list(&self) -> Vec<ModelStatus> {
        self.manifests().filter_map(|m| self.status(&m.id).ok()).collect()
    }

    /// Brings every file of `id` into the cache; returns the path of its main file. Files already verified are
    /// left alone; an interrupted download is continued.
    /// Two fetches of one model (two windows, two terminals) take turns: the second waits, then finds the files
    /// in place.
    pub fn fetch(&self, id: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<PathBuf> {
        let m = self.known(id)?.clone();
        let net = self.network().map_err(|e| format!("{e:#}"));
        let _turn = self.take_turn(id, sink, cancel)?;
        let dir = self.model_dir(id);
        let mut lock = Lock::load(&dir);
        let local_dirs: &[PathBuf] = if self.network_only { &[] } else { &self.local_dirs };
        for spec in &m.files {
            let dest = dir.join(&spec.name);
            if matches!(file_state(spec, &dest, &lock), FileState::Verified) {
                sink(FetchEvent::AlreadyPresent { file: spec.name.clone() });
                continue;
            }
            let recorded = lock.trusted_sha(&spec.name);
            if dest.exists() {
                // Present but unverified or damaged: hash it rather than download again.
                let sha = http::hash_existing(&dest, &spec.name, sink, cancel)?;
                let want = (!spec.sha256.is_empty()).then_some(spec.sha256.as_str()).or(recorded.as_deref());
                let size_ok = spec.bytes == 0 || std::fs::metadata(&dest).map(|md| md.len()).unwrap_or(0) == spec.bytes;
                if size_ok && want.is_none_or_eq(&sha) {
                    lock.record(&spec.name, &dest, &sha, "already in cache");
                    lock.save(&dir)?;
                    sink(FetchEvent::Done { file: spec.name.clone(), sha256: sha, bytes: spec.bytes, recorded_first_hash: want.is_none() });
                    continue;
                }
                std::fs::remove_file(&dest).with_context(|| format!("cannot replace damaged {}", dest.display()))?;
            }
            let Fetched { sha256, bytes, source } = {
                let mut ctx = FetchCtx {
                    local_dirs,
                    downloads: self.downloads_dir(),
                    sink: &mut *sink,
                    cancel,
                    net: net.clone(),
                    network_only: self.network_only,
                };
                fetch::fetch_file(&mut ctx, spec, &dest, recorded.as_deref()).with_context(|| format!("fetching model {id}"))?
            };
            lock.record(&spec.name, &dest, &sha256, &source);
            lock.save(&dir)?;
            let first = spec.sha256.is_empty() && recorded.is_none();
            sink(FetchEvent::Done { file: spec.name.clone(), sha256, bytes, recorded_first_hash: first });
        }
        for spec in &m.files {
            fetch::cleanup_downloads(&self.downloads_dir(), spec);
        }
        Ok(dir.join(&m.main_file().name))
    }

    /// Rehashes every file of `id` and compares with the manifest (or the hash recorded on first download). A
    /// mismatch is recorded: the model is then refused until `fetch` repairs it.
    pub fn verify(&self, id: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<VerifyReport> {
        self.check_files(id, false, sink, cancel)
    }

    /// Hashes the files of `id` that changed or were never hashed here (the rest keep their recorded result),
    /// so that a model is known intact before it is loaded.
    pub fn verify_pending(&self, id: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<VerifyReport> {
        self.check_files(id, true, sink, cancel)
    }

    fn check_files(&self, id: &str, pending_only: bool, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<VerifyReport> {
        let m = self.known(id)?.clone();
        let _turn = self.take_turn(id, sink, cancel)?;
        let dir = self.model_dir(id);
        let mut lock = Lock::load(&dir);
        let start = std::time::Instant::now();
        let mut hashed = 0u64;
        let mut files = Vec::new();
        for spec in &m.files {
            let path = dir.join(&spec.name);
            let shown = path.display().to_string();
            let Ok(md) = std::fs::metadata(&path) else {
                files.push((spec.name.clone(), VerifyOutcome::Missing, shown));
                continue;
            };
            if spec.bytes > 0 && md.len() != spec.bytes {
                files.push((spec.name.clone(), VerifyOutcome::WrongSize { expected: spec.bytes, actual: md.len() }, shown));
                continue;
            }
            if pending_only {
                match file_state(spec, &path, &lock) {
                    FileState::Verified => {
                        files.push((spec.name.clone(), VerifyOutcome::Ok, shown));
                        continue;
                    }
                    FileState::Unverified => {}
                    // Damaged stays damaged until fetched again; nothing to learn from hashing it.
                    _ => {
                        let (actual, expected) = lock
                            .fresh(&spec.name, &path)
                            .map(|e| (e.sha256.clone(), e.expected.clone()))
                            .unwrap_or_default();
                        files.push((spec.name.clone(), VerifyOutcome::Mismatch { expected, actual }, shown));
                        continue;
                    }
                }
            }
            let sha = http::hash_existing(&path, &spec.name, sink, cancel)?;
            hashed += md.len();
            let want = if spec.sha256.is_empty() { lock.trusted_sha(&spec.name) } else { Some(spec.sha256.clone()) };
            let outcome = match want {
                Some(w) if w.eq_ignore_ascii_case(&sha) => VerifyOutcome::Ok,
                Some(w) => VerifyOutcome::Mismatch { expected: w, actual: sha.clone() },
                None => VerifyOutcome::Recorded,
            };
            match &outcome {
                VerifyOutcome::Mismatch { expected, actual } => lock.record_failure(&spec.name, &path, actual, expected),
                _ => {
                    let source =
                        lock.files.get(&spec.name).map(|e| e.source.clone()).unwrap_or_else(|| "verified in cache".into());
                    lock.record(&spec.name, &path, &sha, &source);
                }
            }
            files.push((spec.name.clone(), outcome, shown));
        }
        lock.save(&dir)?;
        Ok(VerifyReport { id: id.to_string(), files, bytes_hashed: hashed, seconds: start.elapsed().as_secs_f64() })
    }

    /// An exclusive lock on `<cache>/.locks/<id>.lock` for as long as the returned file lives. When another
    /// process (or thread) holds it, says so and waits, checking `cancel`.
    fn take_turn(&self, id: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<ModelTurn> {
        let dir = self.root.join(".locks");
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("{id}.lock"));
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {}
                // A file system without locks (some network mounts): go ahead as before locks existed.
                Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
                    return Ok(ModelTurn(None));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("cannot lock {}", path.display()));
                }
            }
            if !told {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                sink(FetchEvent::Waiting { id: id.to_string(), holder: holder.trim().to_string(), lock: path.clone() });
                told = true;
            }
            if cancel.load(Ordering::Relaxed) {
                bail!("cancelled while waiting for another fetch of {id} to finish");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // Who holds it, for the message a waiting process shows.
        let _ = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| write!(file, "process {}", std::process::id()));
        Ok(ModelTurn(Some(file)))
    }

    /// Deletes a model's cache directory (files, partial downloads, lock, imported manifest); returns bytes freed.
    pub fn remove(&self, id: &str) -> Result<u64> {
        check_id(id)?;
        let dir = self.model_dir(id);
        if !dir.is_dir() {
            bail!("model {id} is not in the cache ({})", dir.display());
        }
        // Not while a fetch or verification of it is writing there.
        let _turn = self.take_turn(id, &mut |_| {}, &AtomicBool::new(false))?;
        let bytes = dir_size(&dir);
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
        Ok(bytes)
    }

    /// Copies a model file or directory into the cache. A file whose sha256 matches a shipped manifest becomes
    /// that model; anything else gets a manifest of its own (`<cache>/<id>/manifest.toml`) with the hashes seen.
    pub fn import(&self, path: &Path, id: Option<&str>, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<Manifest> {
        resolve::import(self, path, id, sink, cancel)
    }

    /// A model id, or a path to a `.gguf` file / model directory, ready to load. A cached model's files that were
    /// never hashed here (or changed since) are hashed first; one that fails is refused.
    pub fn resolve(&self, id_or_path: &str) -> Result<ResolvedModel> {
        self.resolve_with(id_or_path, &mut |_| {}, &AtomicBool::new(false))
    }

    /// [`resolve`](Self::resolve) reporting the hashing progress.
    pub fn resolve_with(&self, id_or_path: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<ResolvedModel> {
        resolve::resolve(self, id_or_path, sink, cancel)
    }
}

/// Holds a model's lock file (released when dropped, or when the process dies).
struct ModelTurn(#[allow(dead_code)] Option<File>);

trait OptEq {
    fn is_none_or_eq(&self, sha: &str) -> bool;
}
impl OptEq for Option<&str> {
    fn is_none_or_eq(&self, sha: &str) -> bool {
        self.map_or(true, |w| w.eq_ignore_ascii_case(sha))
    }
}

pub fn default_root() -> PathBuf {
    if let Some(p) = std::env::var_os("REGISTRO_MODELS").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    dirs::cache_dir().unwrap_or_else(|| PathBuf::from(".cache")).join("registro").join("models")
}

fn file_state(spec: &FileSpec, path: &Path, lock: &Lock) -> FileState {
    let Some((bytes, _)) = lock::stat(path) else {
        let part = fetch::part_path(path);
        return match std::fs::metadata(&part) {
            Ok(md) => FileState::Partial { bytes: md.len() },
            Err(_) => FileState::Missing,
        };
    };
    if spec.bytes > 0 && bytes != spec.bytes {
        return FileState::Damaged { reason: format!("{bytes} bytes, expected {}", spec.bytes) };
    }
    match lock.fresh(&spec.name, path) {
        Some(e) if !e.ok => {
            let want = if e.expected.is_empty() { "another" } else { e.expected.as_str() };
            FileState::Damaged { reason: format!("failed verification: sha256 {}, expected {want}", e.sha256) }
        }
        Some(e) if spec.sha256.is_empty() || e.sha256.eq_ignore_ascii_case(&spec.sha256) => FileState::Verified,
        Some(e) => FileState::Damaged { reason: format!("sha256 {} recorded, manifest expects {}", e.sha256, spec.sha256) },
        None => FileState::Unverified,
    }
}

fn summarize(files: &[FileStatus]) -> ModelState {
    let all = |f: fn(&FileState) -> bool| files.iter().all(|x| f(&x.state));
    let any = |f: fn(&FileState) -> bool| files.iter().any(|x| f(&x.state));
    if any(|s| matches!(s, FileState::Damaged { .. })) {
        ModelState::Damaged
    } else if all(|s| matches!(s, FileState::Verified)) {
        ModelState::Ready
    } else if all(|s| matches!(s, FileState::Verified | FileState::Unverified)) {
        ModelState::Unverified
    } else if all(|s| matches!(s, FileState::Missing)) {
        ModelState::Missing
    } else {
        ModelState::Partial
    }
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_size(&p)
                    } else {
                        e.metadata().map(|m| m.len()).unwrap_or(0)
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}
