//! From what a user typed (a model id, a `.gguf` file, a model folder) to the files to load; and importing
//! files a user already has into the cache.
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::events::{FetchEvent, Meter, Stage};
use super::http::hex;
use super::manifest::{check_id, FileSpec, Manifest, Role, Source};
use super::{fetch, FileState, Lock, ModelManager, ModelState, USER_MANIFEST};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelFormat {
    Gguf,
    Safetensors,
    /// A tokenizer-only entry (`tokenizer.json`).
    Tokenizer,
}

#[derive(Clone, Debug, Serialize)]
pub struct ResolvedModel {
    /// Manifest id, or the file stem for a file opened by path.
    pub id: String,
    pub name: String,
    pub family: String,
    /// `general.architecture` of a GGUF file, `model_type` of a config.json, or the manifest's.
    pub architecture: String,
    pub role: Role,
    pub format: ModelFormat,
    pub dir: PathBuf,
    /// The file to load (`.gguf`, `model.safetensors`, or `tokenizer.json`).
    pub main: PathBuf,
    /// `tokenizer.json` to use when present (beside the weights, or the manifest's companion tokenizer); GGUF
    /// models can also build theirs from metadata.
    pub tokenizer_json: Option<PathBuf>,
    /// `config.json` beside safetensors weights.
    pub config_json: Option<PathBuf>,
    pub manifest: Option<Manifest>,
}

pub(super) fn resolve(mgr: &ModelManager, what: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<ResolvedModel> {
    let path = fetch::expand_home(what);
    if path.exists() {
        return resolve_path(&path);
    }
    let Some(m) = mgr.manifest(what) else {
        if what.contains('/') || what.contains('\\') || what.ends_with(".gguf") {
            bail!("{what}: no such file");
        }
        let ids: Vec<&str> = mgr.manifests().map(|m| m.id.as_str()).collect();
        bail!("{what:?} is neither a file nor a known model id (known: {})", ids.join(", "));
    };
    let status = intact(mgr, what, sink, cancel)?;
    let main = status.dir.join(&m.main_file().name);
    let format = match &m.role {
        Role::Tokenizer => ModelFormat::Tokenizer,
        _ if main.extension().is_some_and(|e| e == "gguf") => ModelFormat::Gguf,
        _ => ModelFormat::Safetensors,
    };
    let beside = status.dir.join("tokenizer.json");
    let tokenizer_json = if beside.is_file() {
        Some(beside)
    } else {
        match m.tokenizer.as_deref() {
            // The companion tokenizer is loaded too: the same rule applies to it.
            Some(t) if mgr.manifest(t).is_some() && mgr.file_path(t, "tokenizer.json").is_file() => {
                intact(mgr, t, sink, cancel).with_context(|| format!("{what} uses the tokenizer of model {t}"))?;
                Some(mgr.file_path(t, "tokenizer.json"))
            }
            _ => None,
        }
    };
    let config = status.dir.join("config.json");
    Ok(ResolvedModel {
        id: m.id.clone(),
        name: m.name.clone(),
        family: m.family.clone(),
        architecture: m.architecture.clone(),
        role: m.role.clone(),
        format,
        dir: status.dir.clone(),
        main,
        tokenizer_json,
        config_json: config.is_file().then_some(config),
        manifest: Some(m.clone()),
    })
}

/// The cache state of a model whose every file is known intact: files never hashed here (or changed since) are
/// hashed now; a damaged, partial or missing model is an error saying what to run.
fn intact(mgr: &ModelManager, id: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<super::ModelStatus> {
    let mut status = mgr.status(id)?;
    if status.state == ModelState::Unverified {
        mgr.verify_pending(id, sink, cancel)?;
        status = mgr.status(id)?;
    }
    match status.state {
        ModelState::Ready => Ok(status),
        ModelState::Damaged | ModelState::Unverified => {
            let bad: Vec<String> = status
                .files
                .iter()
                .filter_map(|f| match &f.state {
                    FileState::Damaged { reason } => Some(format!("{}: {reason}", f.path.display())),
                    FileState::Unverified => Some(format!("{}: could not be verified", f.path.display())),
                    _ => None,
                })
                .collect();
            bail!("model {id} is damaged in the cache ({}); run `registro models fetch {id}` to repair it", bad.join("; "))
        }
        _ => bail!("model {id} is not downloaded yet; run `registro models fetch {id}`"),
    }
}

fn resolve_path(path: &Path) -> Result<ResolvedModel> {
    if path.is_dir() {
        let mut ggufs: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
            .collect();
        ggufs.sort();
        if ggufs.len() == 1 {
            return resolve_path(&ggufs[0]);
        }
        if ggufs.len() > 1 {
            bail!("{}: holds several .gguf files; name one of them", path.display());
        }
        let weights = path.join("model.safetensors");
        if weights.is_file() {
            return resolve_safetensors(&weights);
        }
        bail!("{}: no .gguf file and no model.safetensors in this folder", path.display());
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("gguf") => {
            let meta = crate::gguf::identify(path)?;
            let arch = meta.architecture;
            let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let beside = dir.join("tokenizer.json");
            Ok(ResolvedModel {
                id: stem.clone(),
                name: meta.name.unwrap_or(stem),
                family: arch.clone(),
                architecture: arch,
                role: Role::Llm,
                format: ModelFormat::Gguf,
                dir,
                main: path.to_path_buf(),
                tokenizer_json: beside.is_file().then_some(beside),
                config_json: None,
                manifest: None,
            })
        }
        Some("safetensors") => resolve_safetensors(path),
        Some("json") if path.file_name().is_some_and(|n| n == "tokenizer.json") => Ok(ResolvedModel {
            id: "tokenizer".into(),
            name: path.display().to_string(),
            family: String::new(),
            architecture: "tokenizer".into(),
            role: Role::Tokenizer,
            format: ModelFormat::Tokenizer,
            dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            main: path.to_path_buf(),
            tokenizer_json: Some(path.to_path_buf()),
            config_json: None,
            manifest: None,
        }),
        _ => bail!("{}: not a model file Registro can open (expected .gguf, model.safetensors or a model folder)", path.display()),
    }
}

/// Reads `config.json` beside safetensors weights for the architecture and what the model is for.
fn config_info(config: &Path) -> Result<(String, Role)> {
    let text = std::fs::read_to_string(config).with_context(|| format!("cannot read {}", config.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", config.display()))?;
    let model_type = v["model_type"].as_str().unwrap_or("unknown").to_string();
    let archs: Vec<&str> = v["architectures"].as_array().map(|a| a.iter().filter_map(|x| x.as_str()).collect()).unwrap_or_default();
    let role = if archs.iter().any(|a| a.ends_with("ForSequenceClassification")) {
        Role::Classifier
    } else if archs.iter().any(|a| a.contains("MT") || a.ends_with("ForCausalLM") || a.ends_with("ForConditionalGeneration")) {
        Role::Llm
    } else {
        Role::Embeddings
    };
    Ok((model_type, role))
}

fn resolve_safetensors(weights: &Path) -> Result<ResolvedModel> {
    let dir = weights.parent().map(Path::to_path_buf).unwrap_or_default();
    let config = dir.join("config.json");
    if !config.is_file() {
        bail!("{}: safetensors weights need a config.json beside them", weights.display());
    }
    let (arch, role) = config_info(&config)?;
    let tok = dir.join("tokenizer.json");
    let name = dir.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    Ok(ResolvedModel {
        id: name.clone(),
        name,
        family: arch.clone(),
        architecture: arch,
        role,
        format: ModelFormat::Safetensors,
        dir,
        main: weights.to_path_buf(),
        tokenizer_json: tok.is_file().then_some(tok),
        config_json: Some(config),
        manifest: None,
    })
}

/// `abc/Qwen2.5-7B-Instruct-Q4_K_M.gguf` → `qwen2.5-7b-instruct-q4_k_m`.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c.to_ascii_lowercase() } else { '-' })
        .collect();
    s.trim_start_matches('.').to_string()
}

pub(super) fn import(
    mgr: &ModelManager,
    path: &Path,
    id: Option<&str>,
    sink: &mut dyn FnMut(FetchEvent),
    cancel: &AtomicBool,
) -> Result<Manifest> {
    if let Some(id) = id {
        check_id(id)?;
    }
    let resolved = resolve_path(path).with_context(|| format!("importing {}", path.display()))?;
    // An imported GGUF is listed as a ready model, so it must be one the engine can run: a supported decoder whose
    // layer count and sizes agree with its tensors (else the app would fail, or abort, only later on Translate).
    if resolved.format == ModelFormat::Gguf {
        registro_gguf::read_file(&resolved.main).and_then(|g| registro_gguf::check_decoder(&g))?;
    }
    // The files that make the model: one GGUF, or the folder's weights with their JSON/vocab companions.
    let files: Vec<(PathBuf, String)> = match resolved.format {
        ModelFormat::Gguf | ModelFormat::Tokenizer => {
            vec![(resolved.main.clone(), resolved.main.file_name().unwrap_or_default().to_string_lossy().to_string())]
        }
        ModelFormat::Safetensors => collect_files(&resolved.dir)?,
    };
    let staging = mgr.root().join(".import");
    std::fs::create_dir_all(&staging)?;
    let mut staged = Vec::new();
    for (src, name) in &files {
        let part = staging.join(format!("{}.part", slug(name).replace('/', "_")));
        let sha = copy_hash(src, &part, name, sink, cancel)?;
        staged.push((part, name.clone(), sha, std::fs::metadata(src)?.len(), src.clone()));
    }
    // A file matching a shipped manifest by hash is that model, whatever it is called here.
    let matched = staged.iter().find_map(|(_, _, sha, _, _)| {
        mgr.manifests().find_map(|m| m.files.iter().find(|f| !f.sha256.is_empty() && f.sha256 == *sha).map(|f| (m.clone(), f.name.clone())))
    });
    let (manifest, names): (Manifest, Vec<String>) = match (matched, id) {
        (Some((m, fname)), None) if staged.len() == 1 => (m, vec![fname]),
        (Some((m, fname)), Some(want)) if m.id == want && staged.len() == 1 => (m, vec![fname]),
        _ => {
            if let Some(existing) = id.and_then(|i| mgr.manifest(i)).filter(|m| !is_user(mgr, &m.id)) {
                // Importing under a shipped id must bring exactly that model's file, recognised by its hash.
                cleanup(&staged);
                bail!(
                    "{} does not match model {} (its sha256 is none of the manifest's); choose another --id",
                    path.display(),
                    existing.id
                );
            }
            let id = id.map(str::to_string).unwrap_or_else(|| {
                let base = match resolved.format {
                    ModelFormat::Safetensors => resolved.id.clone(),
                    _ => resolved.main.file_stem().unwrap_or_default().to_string_lossy().to_string(),
                };
                slug(&base)
            });
            check_id(&id).with_context(|| format!("derived from {}; pass --id", path.display()))?;
            let m = Manifest {
                id: id.clone(),
                name: resolved.name.clone(),
                family: resolved.family.clone(),
                architecture: resolved.architecture.clone(),
                role: resolved.role.clone(),
                licence: String::new(),
                verified: None,
                tokenizer: None,
                description: format!("imported from {}", path.display()),
                languages: Vec::new(),
                quality: Vec::new(),
                files: staged
                    .iter()
                    .map(|(_, name, sha, bytes, src)| FileSpec {
                        name: name.clone(),
                        bytes: *bytes,
                        sha256: sha.clone(),
                        sources: vec![Source::Local { path: src.canonicalize().unwrap_or(src.clone()).display().to_string() }],
                    })
                    .collect(),
            };
            let names = staged.iter().map(|s| s.1.clone()).collect();
            (m, names)
        }
    };
    let dir = mgr.model_dir(&manifest.id);
    std::fs::create_dir_all(&dir)?;
    let mut lock = Lock::load(&dir);
    for ((part, _, sha, _, src), name) in staged.iter().zip(&names) {
        let dest = dir.join(name);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(part, &dest).with_context(|| format!("cannot move {} into the cache", part.display()))?;
        lock.record(name, &dest, sha, &format!("imported from {}", src.display()));
    }
    lock.save(&dir)?;
    if is_user(mgr, &manifest.id) || mgr.manifest(&manifest.id).is_none() {
        std::fs::write(dir.join(USER_MANIFEST), manifest.to_toml()?)?;
    }
    Ok(manifest)
}

fn is_user(mgr: &ModelManager, id: &str) -> bool {
    mgr.manifests.iter().any(|(m, user)| m.id == id && *user)
}

fn cleanup(staged: &[(PathBuf, String, String, u64, PathBuf)]) {
    for s in staged {
        let _ = std::fs::remove_file(&s.0);
    }
}

fn collect_files(dir: &Path) -> Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<(PathBuf, String)>) -> Result<()> {
        for e in std::fs::read_dir(d)? {
            let p = e?.path();
            let name = p.strip_prefix(base).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            if name.split('/').any(|c| c.starts_with('.')) {
                continue;
            }
            if p.is_dir() {
                walk(base, &p, out)?;
            } else if p.extension().is_some_and(|e| matches!(e.to_str(), Some("safetensors" | "json" | "txt" | "model" | "spm"))) {
                out.push((p.clone(), name));
            }
        }
        Ok(())
    }
    walk(dir, dir, &mut out)?;
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

fn copy_hash(src: &Path, part: &Path, label: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<String> {
    use std::io::{Read, Write};
    let mut f = File::open(src).with_context(|| format!("cannot open {}", src.display()))?;
    let total = f.metadata()?.len();
    let mut out = File::create(part).with_context(|| format!("cannot write {}", part.display()))?;
    let mut hasher = Sha256::new();
    let mut meter = Meter::new(label, Stage::Copy, Some(total), 0, sink);
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            drop(out);
            let _ = std::fs::remove_file(part);
            return Err(anyhow!("import cancelled"));
        }
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n])?;
        hasher.update(&buf[..n]);
        done += n as u64;
        meter.update(done);
    }
    meter.finish(done);
    out.sync_all()?;
    Ok(hex(&hasher.finalize()))
}
