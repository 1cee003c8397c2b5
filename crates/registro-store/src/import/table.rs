//! TSV and CSV with a header row. One row is one segment; the text column is chosen by name or number, and columns
//! named like references (`formal`, `informal`, `formal.annotated`, `ref0`…, or `ref:<name>`) become references.

use std::path::Path;

use super::{is_reference_name, ImportOptions};
use crate::{ImportError, NewDocument, NewSegment};

/// Header names tried, in order, when no column is given.
const TEXT_COLUMNS: &[&str] = &["text", "source", "src", "sentence", "segment", "input"];

pub(super) fn parse(path: &Path, text: &str, opts: &ImportOptions, tab: bool) -> Result<NewDocument, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(if tab { b'\t' } else { b',' })
        // TSV files carry quotes as ordinary characters; only CSV uses quoting.
        .quoting(!tab)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(path, e))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let text_col = pick_column(path, &headers, opts.column.as_deref())?;
    let ref_cols: Vec<(usize, String)> = headers
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != text_col)
        .filter_map(|(i, h)| {
            let name = h.strip_prefix("ref:").map(str::to_string).unwrap_or_else(|| h.to_lowercase());
            (h.starts_with("ref:") || is_reference_name(&name) || name == "reference").then_some((i, name))
        })
        .collect();
    let mut segments = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        let seg_text = record.get(text_col).unwrap_or("").trim();
        // A row without text is not a segment (blank lines, trailing separators).
        if seg_text.is_empty() {
            continue;
        }
        let references = ref_cols
            .iter()
            .filter_map(|(i, name)| record.get(*i).filter(|t| !t.trim().is_empty()).map(|t| (name.clone(), t.trim().to_string())))
            .collect();
        segments.push(NewSegment { text: seg_text.to_string(), references });
    }
    super::file_document(path, opts, if tab { "tsv" } else { "csv" }, segments)
}

fn pick_column(path: &Path, headers: &[String], wanted: Option<&str>) -> Result<usize, ImportError> {
    let available = || headers.iter().map(|h| format!("{h:?}")).collect::<Vec<_>>().join(", ");
    if let Some(w) = wanted {
        if let Some(i) = headers.iter().position(|h| h.eq_ignore_ascii_case(w)) {
            return Ok(i);
        }
        // A 1-based column number.
        if let Ok(n) = w.parse::<usize>() {
            if n >= 1 && n <= headers.len() {
                return Ok(n - 1);
            }
        }
        return Err(ImportError::MissingColumn { path: path.to_path_buf(), wanted: w.to_string(), available: available() });
    }
    for name in TEXT_COLUMNS {
        if let Some(i) = headers.iter().position(|h| h.eq_ignore_ascii_case(name)) {
            return Ok(i);
        }
    }
    if headers.len() == 1 {
        return Ok(0);
    }
    Err(ImportError::MissingColumn {
        path: path.to_path_buf(),
        wanted: format!("one of {}", TEXT_COLUMNS.join("/")),
        available: format!("{} (choose one with --column)", available()),
    })
}

fn csv_error(path: &Path, e: csv::Error) -> ImportError {
    let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("row has {len} fields but the header has {expected_len}")
        }
        _ => e.to_string(),
    };
    ImportError::Parse { path: path.to_path_buf(), line, message }
}
