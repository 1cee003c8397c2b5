//! Typed errors. Every variant carries the context a user needs to fix the problem (file, line, byte offset,
//! counts), because the CLI and the app show these messages verbatim.

use std::path::PathBuf;

/// Errors of the database layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}")]
    Open { path: PathBuf, source: rusqlite::Error },
    #[error("cannot create the store's folder {path}: {source}")]
    CreateDir { path: PathBuf, source: std::io::Error },
    #[error("no platform data directory found; pass --db or set REGISTRO_DB")]
    NoDataDir,
    #[error(
        "the store at {path} has schema version {found}, newer than this build of Registro supports ({supported}); \
         upgrade Registro or use another --db"
    )]
    TooNew { path: PathBuf, found: i64, supported: i64 },
    #[error(
        "{path} is {what}; Registro keeps its own store and left this file untouched: choose another file \
         (--db or REGISTRO_DB)"
    )]
    NotAStore { path: PathBuf, what: String },
    #[error(
        "the store at {path} is damaged: {what}; it was left untouched: restore a backup or choose another file \
         (--db or REGISTRO_DB)"
    )]
    Damaged { path: PathBuf, what: String },
    #[error("migration to schema version {version} failed: {source}")]
    Migration { version: i64, source: rusqlite::Error },
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("a project named {0:?} already exists")]
    DuplicateProject(String),
    #[error("invalid value: {0}")]
    Invalid(String),
    #[error("cancelled; nothing was written")]
    Cancelled,
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    #[error("I/O error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Errors of parsing an input before anything is written.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path} is a {kind}; Registro reads regular files only (save the data to a file first)")]
    NotRegularFile { path: PathBuf, kind: &'static str },
    #[error(
        "{path} is larger than the input limit of {limit_mb} MiB; raise it with --max-input-mb N \
         or REGISTRO_MAX_INPUT_MB=N if the file is really meant to be read"
    )]
    TooLarge { path: PathBuf, limit_mb: u64 },
    #[error("{0} is not a valid input limit; give a whole number of MiB above 0 (e.g. 2048)")]
    BadInputLimit(String),
    #[error("{path} is empty: nothing to import")]
    Empty { path: PathBuf },
    #[error("{path} looks like a binary file (NUL byte at line {line}, byte offset {byte_offset}); expected UTF-8 text")]
    Binary { path: PathBuf, line: usize, byte_offset: usize },
    #[error("{path}: invalid UTF-8 at line {line}, byte offset {byte_offset}; re-save the file as UTF-8")]
    InvalidUtf8 { path: PathBuf, line: usize, byte_offset: usize },
    #[error("{path}: line {line} is {len} bytes long, over the 1 MB limit per segment")]
    LineTooLong { path: PathBuf, line: usize, len: usize },
    #[error(
        "line counts differ: {source_path} has {source_lines} lines but {other_path} has {other_lines}; \
         paired files must be aligned line by line"
    )]
    LineCountMismatch { source_path: PathBuf, source_lines: usize, other_path: PathBuf, other_lines: usize },
    #[error("{path}: line {line}: {message}")]
    Parse { path: PathBuf, line: usize, message: String },
    #[error("{path}: no column {wanted:?} in the header; columns are: {available}")]
    MissingColumn { path: PathBuf, wanted: String, available: String },
    #[error("{path}: {message}")]
    Layout { path: PathBuf, message: String },
    #[error("unknown import format {0:?}; use text, tsv, csv, jsonl, cocoa or xformal")]
    UnknownFormat(String),
    #[error("cancelled; nothing was imported")]
    Cancelled,
}
