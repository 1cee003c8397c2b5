//! Loader for CoCoA-MT / IWSLT-2022-style folders: one English source file per domain (`….en-de.en` or `….en-de`)
//! with `.formal`, `.informal` (and optional `.annotated`, `.feminine`) references beside it, with or without the
//! trailing language suffix.
use std::path::{Path, PathBuf};

use crate::{Error, Lang};

#[derive(Clone, Debug, serde::Serialize)]
pub struct Pair {
    /// Domain file stem, e.g. `telephony`.
    pub domain: String,
    /// 0-based line within its domain file.
    pub line: usize,
    pub source: String,
    pub formal: String,
    pub informal: String,
    pub formal_feminine: Option<String>,
    pub informal_feminine: Option<String>,
    pub formal_annotated: Option<String>,
    pub informal_annotated: Option<String>,
}

impl Pair {
    /// The two references differ, i.e. the source addresses someone; identical references carry no register.
    pub fn contrastive(&self) -> bool {
        self.formal.trim() != self.informal.trim()
    }
}

/// Sources held out per domain file for the translation evaluation: the last `HELD_OUT_PER_DOMAIN` lines. The
/// rest is the pool few-shot examples are retrieved from, so held-out sources never see their own references.
pub const HELD_OUT_PER_DOMAIN: usize = 50;

pub fn is_held_out(p: &Pair, domain_len: usize) -> bool {
    p.line + HELD_OUT_PER_DOMAIN >= domain_len
}

/// Splits the pairs of a training folder into (pool, held_out).
pub fn split(pairs: Vec<Pair>) -> (Vec<Pair>, Vec<Pair>) {
    let mut lens = std::collections::HashMap::new();
    for p in &pairs {
        *lens.entry(p.domain.clone()).or_insert(0usize) += 1;
    }
    pairs.into_iter().partition(|p| !is_held_out(p, lens[&p.domain]))
}

/// Where the shared *test and benchmark* data lives (CoCoA-MT and IWSLT test sets, the UMD submissions, PT16):
/// `$REGISTRO_SHARED_DATA` only (a checkout's cargo and scripts set it). Developer commands (bench, eval's
/// defaults) use it; nothing a user's translation needs is found here (see [`data_dir`]).
pub fn shared_data_dir() -> Option<PathBuf> {
    let d = PathBuf::from(std::env::var_os("REGISTRO_SHARED_DATA").filter(|d| !d.is_empty())?);
    d.is_dir().then(|| d.canonicalize().map(plain).unwrap_or(d))
}

/// The app's resource folder, told by the window at start (Tauri's resource directory), so the data installed
/// beside the app is found whatever the binary's own path is.
static RESOURCE_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Called once by the app's startup with Tauri's resource directory; later calls are ignored.
pub fn set_resource_dir(dir: PathBuf) {
    let _ = RESOURCE_DIR.set(dir);
}

/// How [`data_dir`] found Registro's run-time data.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DataDir {
    pub path: PathBuf,
    /// `REGISTRO_DATA`, `app resources` or `beside the binary`.
    pub found_by: &'static str,
}

/// The folders [`data_dir`] looks in, in order, each with how it is named: `$REGISTRO_DATA`; the app's resource
/// directory (`<res>/data`, Windows and macOS bundles); `<exe>/../share/registro` (Linux packages: the CLI in
/// /usr/bin, the data in /usr/share/registro); `<exe>/data` (a Windows install or portable zip).
pub fn data_dir_candidates() -> Vec<(PathBuf, &'static str)> {
    let mut c = Vec::new();
    if let Some(d) = std::env::var_os("REGISTRO_DATA").filter(|d| !d.is_empty()) {
        // An explicit choice is the only place looked: a wrong REGISTRO_DATA must not be papered over by an
        // installed copy the user did not mean.
        return vec![(PathBuf::from(d), "REGISTRO_DATA")];
    }
    if let Some(r) = RESOURCE_DIR.get() {
        c.push((r.join("data"), "app resources"));
        c.push((r.join("share/registro"), "app resources"));
    }
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|e| e.canonicalize().ok()).map(plain).and_then(|e| e.parent().map(Path::to_path_buf)) {
        c.push((exe_dir.join("../share/registro"), "beside the binary"));
        c.push((exe_dir.join("data"), "beside the binary"));
    }
    c
}

/// `path` without the `\\?\` prefix Windows' canonical paths carry, where it is not needed (not a UNC share), so
/// doctor and a run's parameters show `C:\…` as a user would type it.
fn plain(path: PathBuf) -> PathBuf {
    match path.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        Some(rest) if cfg!(windows) && !rest.starts_with("UNC\\") => PathBuf::from(rest),
        _ => path,
    }
}

/// Registro's run-time data folder: the first candidate that holds `examples/`.
pub fn data_dir() -> Result<DataDir, Error> {
    let candidates = data_dir_candidates();
    for (path, found_by) in &candidates {
        if path.join("examples").is_dir() {
            let path = path.canonicalize().map(plain).unwrap_or_else(|_| path.clone());
            return Ok(DataDir { path, found_by });
        }
    }
    let looked: Vec<String> = candidates.iter().map(|(p, how)| format!("{} ({how})", p.join("examples").display())).collect();
    Err(Error::Data {
        path: "examples/".into(),
        message: format!(
            "Registro's translation examples were not found; looked in: {}. Reinstall Registro, or set REGISTRO_DATA to \
             the folder that holds examples/ (in a source checkout: its data/ folder)",
            if looked.is_empty() { "nowhere (no binary path)".to_string() } else { looked.join(", ") }
        ),
    })
}

/// The data set a language's example pool comes from: CoCoA-MT's training split, IWSLT 2023's training data for
/// Korean and Vietnamese; `None` for Russian, whose pairs are compiled in.
pub fn example_set(lang: Lang) -> Option<&'static str> {
    match lang {
        Lang::Ru => None,
        Lang::Ko | Lang::Vi => Some("iwslt2023"),
        _ => Some("cocoa-mt"),
    }
}

/// The example pool's folder for `lang` (`examples/<set>/en-<code>`), or an error that names what is missing
/// and how to get it back. Russian has no folder (its pairs are compiled in).
pub fn examples_dir(lang: Lang) -> Result<PathBuf, Error> {
    let set = example_set(lang).ok_or_else(|| Error::Data {
        path: "examples".into(),
        message: format!("{} examples are built into Registro, not a folder", lang.name()),
    })?;
    let dir = data_dir()?.path.join("examples").join(set).join(format!("en-{}", lang.code()));
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Error::Data {
            path: dir.display().to_string(),
            message: format!(
                "the {} translation examples are missing from Registro's data folder. Reinstall Registro, set \
                 REGISTRO_DATA to a folder whose examples/{set}/en-{} holds them, or translate without examples (--no-examples)",
                lang.name(),
                lang.code()
            ),
        })
    }
}

/// The CoCoA-MT / IWSLT 2023 training folder for `lang`, if present: the shipped example pool.
pub fn cocoa_train_dir(lang: Lang) -> Option<PathBuf> {
    examples_dir(lang).ok()
}

fn read_lines(path: &Path) -> Result<Vec<String>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Data { path: path.display().to_string(), message: e.to_string() })?;
    Ok(text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect())
}

fn find_ref(base: &str, kind: &str, lang: Lang) -> Option<PathBuf> {
    [format!("{base}.{kind}.{}", lang.code()), format!("{base}.{kind}")].into_iter().map(PathBuf::from).find(|p| p.is_file())
}

/// Loads every domain in `dir` (sorted by file name for a stable order).
pub fn load_dir(dir: &Path, lang: Lang) -> Result<Vec<Pair>, Error> {
    let code = lang.data_code();
    let err = |m: String| Error::Data { path: dir.display().to_string(), message: m };
    let mut sources: Vec<(PathBuf, String)> = std::fs::read_dir(dir)
        .map_err(|e| err(e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let base = if let Some(b) = name.strip_suffix(&format!(".en-{code}.en")) {
                format!("{b}.en-{code}")
            } else if name.ends_with(&format!(".en-{code}")) {
                name.clone()
            } else {
                return None;
            };
            Some((p.clone(), dir.join(base).to_string_lossy().into_owned()))
        })
        .collect();
    sources.sort();
    if sources.is_empty() {
        return Err(err(format!("no English source file named *.en-{code}.en or *.en-{code}")));
    }
    let mut pairs = Vec::new();
    for (src_path, base) in sources {
        let src = read_lines(&src_path)?;
        let load = |kind: &str| -> Result<Option<Vec<String>>, Error> {
            match find_ref(&base, kind, lang) {
                Some(p) => {
                    let lines = read_lines(&p)?;
                    if lines.len() != src.len() {
                        return Err(Error::Data {
                            path: p.display().to_string(),
                            message: format!("{} lines, but the source {} has {}", lines.len(), src_path.display(), src.len()),
                        });
                    }
                    Ok(Some(lines))
                }
                None => Ok(None),
            }
        };
        let formal = load("formal")?.ok_or_else(|| err(format!("no formal reference for {base}")))?;
        let informal = load("informal")?.ok_or_else(|| err(format!("no informal reference for {base}")))?;
        let (ff, fi) = (load("formal.feminine")?, load("informal.feminine")?);
        let (af, ai) = (load("formal.annotated")?, load("informal.annotated")?);
        let domain = Path::new(&base)
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.trim_start_matches("formality-control.").trim_end_matches(&format!(".en-{code}")).to_string())
            .unwrap_or_default();
        for (i, s) in src.iter().enumerate() {
            let get = |v: &Option<Vec<String>>| v.as_ref().map(|v| v[i].clone());
            pairs.push(Pair {
                domain: domain.clone(),
                line: i,
                source: s.clone(),
                formal: formal[i].clone(),
                informal: informal[i].clone(),
                formal_feminine: get(&ff),
                informal_feminine: get(&fi),
                formal_annotated: get(&af),
                informal_annotated: get(&ai),
            });
        }
    }
    Ok(pairs)
}
