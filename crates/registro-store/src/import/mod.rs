//! Importers: parse a file or folder into in-memory [`NewDocument`]s, fully validated, before anything touches
//! the database; [`crate::Store::insert_documents`] then writes them in one transaction. So a bad file produces one
//! clear [`ImportError`] and nothing half-imported.
//!
//! Formats (auto-detected from the path unless given):
//! - `text`: one segment per line; blank lines separate paragraphs and are not segments.
//! - `tsv` / `csv`: a header row; the text column is `--column` (name or 1-based number) or the first of
//!   `text, source, src, sentence, segment, input`; reference-named columns become references. Rows with an empty
//!   text cell are skipped.
//! - `jsonl`: `{"text": …}` or `{"source": …, "references": {name: text}}` per line.
//! - `cocoa` (aliases `iwslt`, `paired`) and `xformal` (alias `gyafc`): paired folders, see [`folder`]. A path to a
//!   source file inside such a folder with `--format cocoa` imports just that source.

mod folder;
pub mod fuzz;
pub mod lines;
mod jsonl;
mod table;

use std::path::{Path, PathBuf};

pub use folder::is_reference_name;
pub use lines::MAX_LINE_BYTES;

use crate::{ImportError, NewDocument, NewSegment};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(rename = "ImportFormat")]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Text,
    Tsv,
    Csv,
    Jsonl,
    Cocoa,
    Xformal,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Tsv => "tsv",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Cocoa => "cocoa",
            Format::Xformal => "xformal",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = ImportError;
    fn from_str(s: &str) -> Result<Self, ImportError> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "text" | "txt" | "plain" => Format::Text,
            "tsv" => Format::Tsv,
            "csv" => Format::Csv,
            "jsonl" | "ndjson" => Format::Jsonl,
            "cocoa" | "cocoa-mt" | "iwslt" | "paired" => Format::Cocoa,
            "xformal" | "gyafc" => Format::Xformal,
            _ => return Err(ImportError::UnknownFormat(s.to_string())),
        })
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Options of an import; all optional.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct ImportOptions {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Source language (ISO 639-1). Default: from the file names (`en-de`), else `en`.
    pub source_lang: Option<String>,
    /// Target language, when the references are translations. Default: from the file names, if any.
    pub target_lang: Option<String>,
    /// TSV/CSV text column (header name or 1-based number); JSONL text field.
    pub column: Option<String>,
    /// Document name (default: the file name, or the source stem in a folder; a prefix when a folder gives several).
    pub name: Option<String>,
    /// The largest file read, in MiB (default: `REGISTRO_MAX_INPUT_MB`, else [`lines::DEFAULT_MAX_INPUT_MB`]).
    #[serde(default)]
    pub max_input_mb: Option<u64>,
}

/// The result of parsing: documents ready to insert, and files in a folder that were not used.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ParsedImport {
    pub documents: Vec<NewDocument>,
    pub ignored: Vec<PathBuf>,
}

/// The format [`parse_path`] would use for `path`.
pub fn detect_format(path: &Path) -> Result<Format, ImportError> {
    let meta = std::fs::metadata(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })?;
    if meta.is_dir() {
        let xformal = ["formal.ref0", "informal.ref0"].iter().any(|n| path.join(n).is_file());
        return Ok(if xformal { Format::Xformal } else { Format::Cocoa });
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    Ok(match ext.as_str() {
        "tsv" | "tab" => Format::Tsv,
        "csv" => Format::Csv,
        "jsonl" | "ndjson" => Format::Jsonl,
        _ => Format::Text,
    })
}

/// Parses and validates `path` into documents without writing anything.
pub fn parse_path(path: &Path, opts: &ImportOptions) -> Result<ParsedImport, ImportError> {
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let single = |doc: NewDocument| ParsedImport { documents: vec![named(doc, opts)], ignored: Vec::new() };
    match format {
        Format::Text | Format::Tsv | Format::Csv | Format::Jsonl => {
            let bytes = lines::read_capped(path, opts.max_input_mb)?;
            Ok(single(parse_bytes(path, bytes, format, opts)?))
        }
        Format::Cocoa | Format::Xformal => {
            let (dir, only) = if path.is_dir() {
                (path.to_path_buf(), None)
            } else {
                let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                (dir.to_path_buf(), path.file_name().map(|n| n.to_string_lossy().into_owned()))
            };
            let detected = if path.is_dir() { None } else { Some(format) };
            let layout = opts.format.or(detected);
            let (documents, ignored) = folder::parse(&dir, only.as_deref(), layout, opts)?;
            Ok(ParsedImport { documents, ignored })
        }
    }
}

/// Parses the contents of one file already in memory (`path` only names it in the document and in errors), with
/// every check a file on disk gets. The paired folder formats need [`parse_paired_files`] instead.
pub fn parse_bytes(path: &Path, bytes: Vec<u8>, format: Format, opts: &ImportOptions) -> Result<NewDocument, ImportError> {
    let text = lines::check_bytes(path, bytes)?;
    match format {
        Format::Text => parse_text(path, &text, opts),
        Format::Tsv => table::parse(path, &text, opts, true),
        Format::Csv => table::parse(path, &text, opts, false),
        Format::Jsonl => jsonl::parse(path, &text, opts),
        Format::Cocoa | Format::Xformal => Err(ImportError::Layout {
            path: path.to_path_buf(),
            message: format!("the {format} format is a folder of paired files, not one file"),
        }),
    }
}

/// A paired folder (CoCoA-MT/IWSLT or XFORMAL/GYAFC layout) given as file name → contents, parsed as
/// [`parse_path`] parses the folder `dir` holding those files; returns the documents and the unused names.
pub fn parse_paired_files(
    dir: &Path,
    files: &std::collections::BTreeMap<String, Vec<u8>>,
    layout: Option<Format>,
    opts: &ImportOptions,
) -> Result<ParsedImport, ImportError> {
    let names = files.keys().filter(|n| !n.starts_with('.')).cloned().collect();
    let mut read = |p: &Path| -> Result<Vec<String>, ImportError> {
        let name = file_name(p);
        let bytes = files.get(&name).cloned().unwrap_or_default();
        Ok(lines::split_lines(&lines::check_bytes(p, bytes)?))
    };
    let (documents, ignored) = folder::parse_names(dir, names, None, layout, opts, &mut read)?;
    Ok(ParsedImport { documents, ignored })
}

fn parse_text(path: &Path, text: &str, opts: &ImportOptions) -> Result<NewDocument, ImportError> {
    let segments = document_from_text("", text, "").segments;
    file_document(path, opts, Format::Text.as_str(), segments)
}

/// The document a single imported file becomes; a file with no segment is an error naming it.
pub(crate) fn file_document(path: &Path, opts: &ImportOptions, format: &str, segments: Vec<NewSegment>) -> Result<NewDocument, ImportError> {
    if segments.is_empty() {
        return Err(ImportError::Empty { path: path.to_path_buf() });
    }
    Ok(NewDocument {
        name: file_name(path),
        source_lang: opts.source_lang.clone().unwrap_or_else(|| "en".into()),
        target_lang: opts.target_lang.clone(),
        origin: Some(path.display().to_string()),
        format: format.into(),
        segments,
    })
}

/// A document from text typed or pasted in the app: one segment per non-blank line, format `inline`.
pub fn document_from_text(name: &str, text: &str, source_lang: &str) -> NewDocument {
    NewDocument {
        name: name.to_string(),
        source_lang: source_lang.to_string(),
        target_lang: None,
        origin: None,
        format: "inline".into(),
        segments: lines::split_lines(text)
            .into_iter()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .map(|text| NewSegment { text, references: Vec::new() })
            .collect(),
    }
}

fn named(mut doc: NewDocument, opts: &ImportOptions) -> NewDocument {
    if let Some(n) = &opts.name {
        doc.name = n.clone();
    }
    doc
}

pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
