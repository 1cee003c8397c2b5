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

/// Default location of the shared test data: `$REGISTRO_SHARED_DATA`, else `<workspace>/../shared/data`.
pub fn shared_data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("REGISTRO_SHARED_DATA") {
        return Some(PathBuf::from(d)).filter(|p| p.is_dir());
    }
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    ws.is_dir().then_some(ws)
}

/// The CoCoA-MT training folder for `lang` (IWSLT 2023's, same layout, for Korean and Vietnamese), if present.
pub fn cocoa_train_dir(lang: Lang) -> Option<PathBuf> {
    let set = if matches!(lang, Lang::Ko | Lang::Vi) { "iwslt2023/train" } else { "cocoa-mt/train" };
    shared_data_dir().map(|d| d.join(set).join(format!("en-{}", lang.code()))).filter(|p| p.is_dir())
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
