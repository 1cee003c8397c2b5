//! Export of a run's outputs as TSV or JSONL, one row per stored output, in segment order, with the source text
//! when the run has a document.
//!
//! TSV columns: `index, source, output, register, flagged, flag_reason, candidates` with a header row; tabs,
//! newlines and backslashes inside fields are escaped as `\t`, `\n`, `\r`, `\\` so each row stays one line;
//! `candidates` is compact JSON. JSONL objects carry the same fields with `candidates` as real JSON plus `timings`.

use std::io::Write;

use serde::Serialize;

use crate::{Result, RunId, Store, StoreError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Tsv,
    Jsonl,
}

impl std::str::FromStr for ExportFormat {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "tsv" => Ok(ExportFormat::Tsv),
            "jsonl" | "ndjson" => Ok(ExportFormat::Jsonl),
            other => Err(StoreError::Invalid(format!("export format {other:?}; expected tsv or jsonl"))),
        }
    }
}

/// One exported row (the JSONL object).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportRow {
    pub index: i64,
    pub source: Option<String>,
    pub output: String,
    pub register: Option<String>,
    pub flagged: bool,
    pub flag_reason: Option<String>,
    pub candidates: serde_json::Value,
    pub timings: serde_json::Value,
}

/// The rows of a run, in segment order.
pub fn run_rows(store: &Store, run: RunId) -> Result<Vec<ExportRow>> {
    let r = store.run(run)?;
    let sources = match r.document_id {
        Some(doc) => store.segment_texts(doc)?,
        None => Vec::new(),
    };
    Ok(store
        .outputs(run)?
        .into_iter()
        .map(|o| ExportRow {
            index: o.segment_index,
            source: sources.get(o.segment_index as usize).cloned(),
            output: o.text,
            register: o.detected_register,
            flagged: o.flagged,
            flag_reason: o.flag_reason,
            candidates: o.candidates,
            timings: o.timings,
        })
        .collect())
}

/// Writes a run to `out`; returns the number of rows written.
pub fn export_run(store: &Store, run: RunId, format: ExportFormat, out: &mut dyn Write) -> Result<usize> {
    let rows = run_rows(store, run)?;
    let io = |source| StoreError::Io { path: "<export>".into(), source };
    match format {
        ExportFormat::Tsv => {
            writeln!(out, "index\tsource\toutput\tregister\tflagged\tflag_reason\tcandidates").map_err(io)?;
            for r in &rows {
                let candidates = if r.candidates.is_null() { String::new() } else { serde_json::to_string(&r.candidates)? };
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    r.index,
                    escape(r.source.as_deref().unwrap_or("")),
                    escape(&r.output),
                    escape(r.register.as_deref().unwrap_or("")),
                    r.flagged,
                    escape(r.flag_reason.as_deref().unwrap_or("")),
                    escape(&candidates)
                )
                .map_err(io)?;
            }
        }
        ExportFormat::Jsonl => {
            for r in &rows {
                serde_json::to_writer(&mut *out, r)?;
                writeln!(out).map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)?;
    Ok(rows.len())
}

fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            c => o.push(c),
        }
    }
    o
}
