//! `registro doctor` and Settings → About: what a user pastes into a bug report. Version and commit, OS, the CPU and
//! the SIMD features that pick the engine's kernels, the GPU backends built in and the devices found, the model
//! cache and each model's state, the store file and its schema version, the network settings and (only when asked:
//! the app makes no request by surprise) whether each model source answers, and the shared data found.
//!
//! Gathering reads; it never writes: the store is looked at read-only (not created or migrated), models are not
//! hashed (their last verification is reported), and the source check sends one HEAD request per host.
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

/// How long the source check waits for any one host.
const SOURCE_TIMEOUT: Duration = Duration::from_secs(8);

#[derive(Clone, Debug, Default)]
pub struct DoctorOptions {
    /// The store the face uses (`--db`, `REGISTRO_DB`), else the platform default.
    pub db: Option<PathBuf>,
    /// Ask each model source whether it answers (network requests).
    pub check_sources: bool,
    /// The face's `REGISTRO_COMMIT` (set by its build script); empty outside a git checkout.
    pub commit: String,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct DoctorReport {
    pub version: String,
    /// "<short hash> <commit date>", or empty when built outside a git checkout.
    pub commit: String,
    pub os: String,
    pub cpu: CpuReport,
    /// GPU backends compiled into this build ("cpu", "cuda", "metal").
    pub backends: Vec<String>,
    /// The device models load on ("cpu (2 threads)", "cuda:0").
    pub device: String,
    /// Why the requested device is not the one in use (a GPU the build or machine lacks), if so.
    pub device_note: Option<String>,
    pub gpus: Vec<GpuReport>,
    pub gpu_notes: Vec<String>,
    pub models_dir: String,
    pub models: Vec<ModelReport>,
    pub store: StoreReport,
    /// "TLS trust: …; proxy: …" as downloads use them.
    pub network: String,
    /// Absent when the check was not asked for.
    pub sources: Option<Vec<SourceReport>>,
    pub shared_data: Option<SharedDataReport>,
    /// The translation example pools this install found, per language.
    pub examples: ExamplesReport,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ExamplesReport {
    /// The data folder found (`REGISTRO_DATA`, the app's resources or beside the binary), if any.
    pub data_dir: Option<String>,
    /// How it was found, or why none was.
    pub found_by: String,
    pub pools: Vec<PoolReport>,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct PoolReport {
    pub lang: String,
    pub name: String,
    /// Contrastive pairs the pool offers (0 when missing).
    pub pairs: u32,
    /// Where the pairs come from, or what is wrong.
    pub detail: String,
    pub ok: bool,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct CpuReport {
    pub model: String,
    pub arch: String,
    pub threads: usize,
    /// SIMD features that select a kernel, with whether this CPU has them.
    pub features: Vec<CpuFeature>,
    /// Which quantized matmul kernels run here.
    pub kernels: String,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct CpuFeature {
    pub name: String,
    pub present: bool,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct GpuReport {
    pub device: String,
    pub name: String,
    pub memory_bytes: Option<u64>,
    pub compute_capability: Option<String>,
    /// This build can run models on it.
    pub usable: bool,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ModelReport {
    pub id: String,
    pub role: String,
    /// ready (present, sha256 verified), unverified, partial, missing or damaged.
    pub state: String,
    pub bytes: u64,
    /// A language model's verdict per target language (`models::quality_for`); empty for other roles.
    pub quality: Vec<registro_generate::models::LangQuality>,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct StoreReport {
    pub path: String,
    /// The file's schema version; None when it does not exist yet (created on first use) or cannot be read.
    pub schema_version: Option<i64>,
    /// The version this build writes.
    pub supported_version: i64,
    /// "ok", "not created yet", or what is wrong with the file.
    pub status: String,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct SourceReport {
    pub source: String,
    pub url: String,
    pub reachable: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct SharedDataReport {
    pub path: String,
    /// Its top-level folders (cocoa-mt, iwslt2022, pt16, …).
    pub sets: Vec<String>,
}

/// Gathers the report; every part that fails says so in its own field rather than failing the whole.
pub fn gather(opts: &DoctorOptions) -> DoctorReport {
    let cpu = registro_engine::device::cpu_info();
    let gpus = registro_engine::device::probe_gpus();
    let (device, device_note) = match registro_engine::device::last_choice() {
        Some(c) => (c.using, c.fallback),
        // Nothing chosen: what `auto` gives, without opening a device a second time.
        None => match gpus.gpus.iter().find(|g| g.usable) {
            Some(g) => (g.device.clone(), None),
            None => (format!("cpu ({} threads)", cpu.threads), None),
        },
    };
    let mgr = registro_generate::models::manager(&[]);
    let models = mgr
        .list()
        .into_iter()
        .map(|m| ModelReport {
            id: m.manifest.id.clone(),
            role: format!("{:?}", m.manifest.role).to_lowercase(),
            state: m.state.to_string(),
            bytes: m.manifest.total_bytes(),
            quality: registro_generate::models::ModelSummary::quality_of(&m.manifest),
        })
        .collect();
    let sources = opts.check_sources.then(|| {
        let endpoints = registro_models::reach::endpoints(mgr.manifests().flat_map(|m| m.files.iter().flat_map(|f| &f.sources)));
        match registro_models::net::global() {
            Ok(net) => registro_models::reach::check(&net, &endpoints, SOURCE_TIMEOUT)
                .into_iter()
                .map(|r| SourceReport { source: r.source, url: r.url, reachable: r.reachable, detail: r.detail })
                .collect(),
            Err(e) => endpoints
                .into_iter()
                .map(|ep| SourceReport { source: ep.source, url: ep.url, reachable: false, detail: format!("{e:#}") })
                .collect(),
        }
    });
    DoctorReport {
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: opts.commit.clone(),
        os: os_description(),
        cpu: CpuReport {
            model: cpu.model,
            arch: cpu.arch.to_string(),
            threads: cpu.threads,
            features: cpu.features.iter().map(|(n, p)| CpuFeature { name: n.to_string(), present: *p }).collect(),
            kernels: cpu.kernels,
        },
        backends: registro_engine::device::compiled_backends().into_iter().map(String::from).collect(),
        device,
        device_note,
        gpus: gpus
            .gpus
            .into_iter()
            .map(|g| GpuReport {
                device: g.device,
                name: g.name,
                memory_bytes: g.memory_bytes,
                compute_capability: g.compute_capability,
                usable: g.usable,
            })
            .collect(),
        gpu_notes: gpus.notes,
        models_dir: mgr.root().display().to_string(),
        models,
        store: store_report(opts.db.as_deref()),
        network: registro_models::describe_network(),
        sources,
        shared_data: crate::shared_data_dir().map(|d| shared_data_report(&d)),
        examples: examples_report(),
    }
}

/// Each language's pool as a translation would load it (`Pool::default_for`), so what doctor says is what a run
/// gets: a missing or unreadable pool shows the run's own error.
pub fn examples_report() -> ExamplesReport {
    use registro_register::data;
    let (data_dir, found_by) = match data::data_dir() {
        Ok(d) => (Some(d.path.display().to_string()), d.found_by.to_string()),
        Err(e) => (None, e.to_string()),
    };
    let pools = registro_register::Lang::ALL
        .iter()
        .map(|&lang| {
            let (pairs, detail, ok) = match crate::translate::Pool::default_for(lang) {
                Ok(p) => (p.len() as u32, p.origin().to_string(), true),
                Err(e) => (0, format!("{e:#}"), false),
            };
            PoolReport { lang: lang.code().into(), name: lang.name().into(), pairs, detail, ok }
        })
        .collect();
    ExamplesReport { data_dir, found_by, pools }
}

fn store_report(db: Option<&Path>) -> StoreReport {
    let supported_version = registro_store::SCHEMA_VERSION;
    let path = match db.map(Path::to_path_buf).map(Ok).unwrap_or_else(registro_store::default_db_path) {
        Ok(p) => p,
        Err(e) => {
            return StoreReport { path: String::new(), schema_version: None, supported_version, status: format!("{e}") }
        }
    };
    let (schema_version, status) = match registro_store::peek_schema_version(&path) {
        Ok(Some(v)) if v < supported_version => (Some(v), format!("ok (migrated to {supported_version} when next opened)")),
        Ok(Some(v)) => (Some(v), "ok".to_string()),
        Ok(None) => (None, "not created yet: created on first use".to_string()),
        Err(e) => (None, e.to_string()),
    };
    StoreReport { path: path.display().to_string(), schema_version, supported_version, status }
}

fn shared_data_report(dir: &Path) -> SharedDataReport {
    let mut sets: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .take(200)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    sets.sort();
    SharedDataReport { path: dir.display().to_string(), sets }
}

/// "linux x86_64, Debian GNU/Linux 12 (bookworm)": the target, plus the distribution where os-release names it.
fn os_description() -> String {
    use std::io::Read;
    let mut text = String::new();
    let pretty = ["/etc/os-release", "/usr/lib/os-release"].iter().find_map(|p| {
        text.clear();
        std::fs::File::open(p).ok()?.take(16 * 1024).read_to_string(&mut text).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim().trim_matches('"').to_string())
    });
    let base = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    match pretty {
        Some(p) => format!("{base}, {p}"),
        None => base,
    }
}

/// The report as text, one fact per line, for a terminal or a bug report.
pub fn to_text(r: &DoctorReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let commit = if r.commit.is_empty() { "unknown commit".to_string() } else { r.commit.clone() };
    let _ = writeln!(s, "registro {} ({commit})", r.version);
    let _ = writeln!(s, "os:          {}", r.os);
    let _ = writeln!(s, "cpu:         {} ({}, {} threads)", r.cpu.model, r.cpu.arch, r.cpu.threads);
    let feats: Vec<String> =
        r.cpu.features.iter().map(|f| format!("{}{}", if f.present { "+" } else { "-" }, f.name)).collect();
    let _ = writeln!(s, "simd:        {}", if feats.is_empty() { "(none checked on this architecture)".into() } else { feats.join(" ") });
    let _ = writeln!(s, "kernels:     {}", r.cpu.kernels);
    let _ = writeln!(s, "backends:    {}", r.backends.join(", "));
    let _ = writeln!(s, "device:      {}", r.device);
    if let Some(n) = &r.device_note {
        let _ = writeln!(s, "             note: {n}");
    }
    if r.gpus.is_empty() {
        let _ = writeln!(s, "gpus:        none found");
    }
    for g in &r.gpus {
        let mem = g.memory_bytes.map(|b| format!(", {}", registro_models::human_bytes(b))).unwrap_or_default();
        let cc = g.compute_capability.as_ref().map(|c| format!(", compute {c}")).unwrap_or_default();
        let usable = if g.usable { "" } else { " (not usable by this build)" };
        let _ = writeln!(s, "gpu:         {} {}{mem}{cc}{usable}", g.device, g.name);
    }
    for n in &r.gpu_notes {
        let _ = writeln!(s, "             note: {n}");
    }
    let _ = writeln!(s, "models:      {}", r.models_dir);
    for m in r.models.iter().filter(|m| m.state != "missing") {
        let _ = writeln!(s, "  {:<34} {:<10} {:>9}  {}", m.id, m.state, registro_models::human_bytes(m.bytes), m.role);
        if !m.quality.is_empty() {
            let _ = writeln!(s, "    quality: {}", registro_generate::models::quality_line(&m.quality));
        }
    }
    let missing = r.models.iter().filter(|m| m.state == "missing").count();
    if missing > 0 {
        let _ = writeln!(s, "  ({missing} more known but not downloaded: `registro models list`)");
    }
    let v = r.store.schema_version.map(|v| format!("schema {v} of {}", r.store.supported_version));
    let _ = writeln!(s, "store:       {} ({}{})", r.store.path, v.map(|v| format!("{v}, ")).unwrap_or_default(), r.store.status);
    let _ = writeln!(s, "network:     {}", r.network);
    match &r.sources {
        None => {
            let _ = writeln!(s, "sources:     not checked (--offline)");
        }
        Some(list) => {
            for src in list {
                let ok = if src.reachable { "reachable" } else { "UNREACHABLE" };
                let _ = writeln!(s, "  {:<14} {:<34} {ok}: {}", src.source, src.url, src.detail);
            }
        }
    }
    match &r.examples.data_dir {
        Some(d) => {
            let _ = writeln!(s, "examples:    {d} ({})", r.examples.found_by);
        }
        None => {
            let _ = writeln!(s, "examples:    NOT FOUND: {}", r.examples.found_by);
        }
    }
    for p in &r.examples.pools {
        if p.ok {
            let _ = writeln!(s, "  {:<3} {:<11} {:>5} pairs  {}", p.lang, p.name, p.pairs, p.detail);
        } else {
            let _ = writeln!(s, "  {:<3} {:<11} MISSING      {}", p.lang, p.name, p.detail);
        }
    }
    match &r.shared_data {
        Some(d) => {
            let _ = writeln!(s, "shared data: {} ({})", d.path, if d.sets.is_empty() { "empty".into() } else { d.sets.join(", ") });
        }
        None => {
            let _ = writeln!(s, "shared data: not found (tests and benchmarks only; set REGISTRO_SHARED_DATA)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_that_is_not_ours_is_reported_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("notes.db");
        std::fs::write(&db, b"plain text, not SQLite").unwrap();
        let r = store_report(Some(&db));
        assert!(r.schema_version.is_none() && r.status.contains("not a SQLite database"), "{r:?}");
        assert_eq!(std::fs::read(&db).unwrap(), b"plain text, not SQLite");
        let fresh = dir.path().join("new.db");
        let r = store_report(Some(&fresh));
        assert!(r.status.starts_with("not created yet") && !fresh.exists(), "{r:?}");
    }
}
