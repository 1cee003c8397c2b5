//! Paired folders, where a source file and its references are parallel files aligned by line.
//!
//! - CoCoA-MT / IWSLT 2022 layout: a source `S.en` (or a file `S` with no language suffix, as in the CoCoA-MT test
//!   split) and references `S.<name>[.<lang>]`, where `<name>` is `formal`, `informal`, optionally followed by
//!   `.annotated` and/or `.feminine` (e.g. `S.formal.annotated.de`). Each reference keeps that name.
//! - XFORMAL / GYAFC layout: `informal` with `formal.ref0`…`formal.ref3` (and/or `formal` with `informal.ref0`…);
//!   the references are named `ref0`…`ref3`.
//!
//! A folder holding several sources (e.g. the three CoCoA-MT test domains) gives **one document per source file**,
//! named after the source's stem; files that are neither a source nor a reference (e.g. system outputs such as
//! `formality-control-1.formal.de`) are reported as ignored, not imported.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{lines, Format, ImportOptions};
use crate::{ImportError, NewDocument, NewSegment};

const REGISTER_WORDS: &[&str] = &["formal", "informal"];
const VARIANT_WORDS: &[&str] = &["annotated", "feminine", "masculine"];

/// Whether `name` is a reference name this importer produces (`formal`, `informal.annotated`, `ref2`, …).
pub fn is_reference_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    let first_ok = REGISTER_WORDS.contains(&parts[0]) || is_ref_n(parts[0]);
    first_ok && parts[1..].iter().all(|p| VARIANT_WORDS.contains(p) || is_ref_n(p))
}

fn is_ref_n(p: &str) -> bool {
    p.len() > 3 && p.starts_with("ref") && p[3..].chars().all(|c| c.is_ascii_digit())
}

fn is_lang_code(p: &str) -> bool {
    (2..=3).contains(&p.len()) && p.chars().all(|c| c.is_ascii_lowercase()) && !is_reference_name(p)
}

/// Splits a reference suffix such as `formal.annotated.de` into (`formal.annotated`, `Some("de")`).
fn parse_ref_suffix(rest: &str) -> Option<(String, Option<String>)> {
    let (name, lang) = match rest.rsplit_once('.') {
        Some((head, last)) if is_lang_code(last) => (head, Some(last.to_string())),
        _ => (rest, None),
    };
    is_reference_name(name).then(|| (name.to_string(), lang))
}

/// A language pair token like `en-de` among the dot-separated parts of a name.
fn lang_pair(name: &str) -> Option<(String, String)> {
    name.split('.').find_map(|p| {
        let (a, b) = p.split_once('-')?;
        (a.len() == 2 && b.len() == 2 && (a.to_owned() + b).chars().all(|c| c.is_ascii_lowercase()))
            .then(|| (a.to_string(), b.to_string()))
    })
}

struct Plan {
    name: String,
    source: PathBuf,
    refs: Vec<(String, PathBuf)>,
    source_lang: String,
    target_lang: Option<String>,
    format: Format,
}

pub(super) fn parse(
    dir: &Path,
    only: Option<&str>,
    layout: Option<Format>,
    opts: &ImportOptions,
) -> Result<(Vec<NewDocument>, Vec<PathBuf>), ImportError> {
    let io = |source| ImportError::Io { path: dir.to_path_buf(), source };
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && entry.path().is_file() {
            names.insert(name);
        }
    }
    let cap = opts.max_input_mb;
    parse_names(dir, names, only, layout, opts, &mut |p| lines::read_lines_capped(p, cap))
}

/// The folder parse over a known set of file names; `read` gives the checked lines of one file (from disk, or from
/// memory for tests and fuzzing).
pub(super) fn parse_names(
    dir: &Path,
    names: BTreeSet<String>,
    only: Option<&str>,
    layout: Option<Format>,
    opts: &ImportOptions,
    read: &mut dyn FnMut(&Path) -> Result<Vec<String>, ImportError>,
) -> Result<(Vec<NewDocument>, Vec<PathBuf>), ImportError> {
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut used = BTreeSet::new();
    let mut plans = Vec::new();

    if layout != Some(Format::Cocoa) {
        for (src, ref_base) in [("informal", "formal"), ("formal", "informal")] {
            let refs: Vec<(String, PathBuf)> = names
                .iter()
                .filter_map(|n| n.strip_prefix(ref_base)?.strip_prefix('.').filter(|r| is_ref_n(r)).map(|r| (r.to_string(), dir.join(n))))
                .collect();
            if names.contains(src) && !refs.is_empty() {
                used.insert(src.to_string());
                used.extend(refs.iter().map(|(r, _)| format!("{ref_base}.{r}")));
                let lang = opts.source_lang.clone().unwrap_or_else(|| "en".into());
                plans.push(Plan {
                    name: if dir_name.is_empty() { src.to_string() } else { format!("{dir_name}/{src}") },
                    source: dir.join(src),
                    refs,
                    target_lang: Some(opts.target_lang.clone().unwrap_or_else(|| lang.clone())),
                    source_lang: lang,
                    format: Format::Xformal,
                });
            }
        }
    }

    if layout != Some(Format::Xformal) {
        let src_suffix = format!(".{}", opts.source_lang.as_deref().unwrap_or("en"));
        for name in &names {
            if used.contains(name) {
                continue;
            }
            let refs_of = |stem: &str| -> Vec<(String, Option<String>, String)> {
                names
                    .iter()
                    .filter(|n| *n != name && !used.contains(*n))
                    .filter_map(|n| {
                        let rest = n.strip_prefix(stem)?.strip_prefix('.')?;
                        let (ref_name, lang) = parse_ref_suffix(rest)?;
                        Some((ref_name, lang, n.clone()))
                    })
                    .collect()
            };
            let mut stem = name.as_str();
            let mut refs = refs_of(stem);
            if refs.is_empty() {
                if let Some(s) = name.strip_suffix(&src_suffix) {
                    stem = s;
                    refs = refs_of(stem);
                }
            }
            if refs.is_empty() {
                continue;
            }
            let pair = lang_pair(stem).or_else(|| lang_pair(&dir_name));
            let source_lang = opts
                .source_lang
                .clone()
                .or_else(|| pair.as_ref().map(|p| p.0.clone()))
                .unwrap_or_else(|| "en".into());
            let target_lang = opts
                .target_lang
                .clone()
                .or_else(|| refs.iter().find_map(|r| r.1.clone()))
                .or_else(|| pair.as_ref().map(|p| p.1.clone()));
            used.insert(name.clone());
            used.extend(refs.iter().map(|r| r.2.clone()));
            plans.push(Plan {
                name: stem.to_string(),
                source: dir.join(name),
                refs: refs.into_iter().map(|(n, _, file)| (n, dir.join(file))).collect(),
                source_lang,
                target_lang,
                format: Format::Cocoa,
            });
        }
    }

    if let Some(only) = only {
        plans.retain(|p| p.source.file_name().is_some_and(|n| n == only));
        if plans.is_empty() {
            return Err(ImportError::Layout {
                path: dir.join(only),
                message: "has no reference files beside it (expected e.g. NAME.formal.xx / NAME.informal.xx)".into(),
            });
        }
    }
    if plans.is_empty() {
        return Err(ImportError::Layout {
            path: dir.to_path_buf(),
            message: "no paired files found: expected the CoCoA-MT/IWSLT layout (NAME.en with NAME.formal.xx, \
                      NAME.informal.xx, …) or the XFORMAL/GYAFC layout (informal with formal.ref0 … formal.ref3)"
                .into(),
        });
    }

    let mut docs = Vec::with_capacity(plans.len());
    for plan in plans {
        docs.push(read_plan(plan, opts, read)?);
    }
    let ignored = if only.is_some() {
        Vec::new()
    } else {
        names.iter().filter(|n| !used.contains(*n)).map(|n| dir.join(n)).collect()
    };
    Ok((docs, ignored))
}

fn read_plan(
    plan: Plan,
    opts: &ImportOptions,
    read: &mut dyn FnMut(&Path) -> Result<Vec<String>, ImportError>,
) -> Result<NewDocument, ImportError> {
    let sources = read(&plan.source)?;
    let mut segments: Vec<NewSegment> =
        sources.into_iter().map(|text| NewSegment { text, references: Vec::new() }).collect();
    for (name, path) in &plan.refs {
        let refs = read(path)?;
        if refs.len() != segments.len() {
            return Err(ImportError::LineCountMismatch {
                source_path: plan.source.clone(),
                source_lines: segments.len(),
                other_path: path.clone(),
                other_lines: refs.len(),
            });
        }
        for (seg, text) in segments.iter_mut().zip(refs) {
            // An empty line means "no reference for this segment", not an empty reference.
            if !text.trim().is_empty() {
                seg.references.push((name.clone(), text));
            }
        }
    }
    Ok(NewDocument {
        name: opts.name.clone().map(|n| format!("{n}/{}", plan.name)).unwrap_or(plan.name),
        source_lang: plan.source_lang,
        target_lang: plan.target_lang,
        origin: Some(plan.source.display().to_string()),
        format: plan.format.as_str().into(),
        segments,
    })
}
