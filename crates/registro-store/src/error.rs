//! Typed errors. Every variant carries the context a user needs to fix the problem (file, line, byte offset,
//! counts), because the CLI and the app show these messages verbatim.

use std::path::PathBuf;

/// Errors of the database layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}{}", open_hint(path, source))]
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
    #[error("{}", sqlite_message(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// SQLite could not write the store's file or its journal: the disk is full (or refuses writes). SQLite rolled
    /// the failed transaction back, so what was stored before is intact.
    #[error(
        "cannot write to the store {path}: the disk holding it is full or refuses writes ({source}); what was \
         already stored is intact. Free some space on that disk (or move the store elsewhere with --db / \
         REGISTRO_DB), then {}",
        resume_hint(*.run)
    )]
    DiskFull { path: PathBuf, run: Option<crate::RunId>, source: rusqlite::Error },
    /// The store's file, or the folder its journal files (`-wal`, `-shm`) live in, is read-only.
    #[error(
        "the store {path} is read-only ({source}): Registro writes the file and its journal files beside it \
         (-wal, -shm), so the file and its folder must be writable. Make them writable (or choose another store \
         with --db / REGISTRO_DB), then {}",
        resume_hint(*.run)
    )]
    ReadOnly { path: PathBuf, run: Option<crate::RunId>, source: rusqlite::Error },
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    #[error("I/O error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Why a store SQLite could not open may be a read-only file or folder (after a crash SQLite must write the journal
/// files beside the store to read it): where it is, says so and what to do.
fn open_hint(path: &std::path::Path, e: &rusqlite::Error) -> String {
    use rusqlite::ffi::ErrorCode;
    let rusqlite::Error::SqliteFailure(f, _) = e else { return String::new() };
    if !matches!(f.code, ErrorCode::CannotOpen | ErrorCode::ReadOnly) {
        return String::new();
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let problem = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .err()
        .and_then(|e| match e.kind() {
            std::io::ErrorKind::ReadOnlyFilesystem => Some(format!("{} is on a read-only file system", path.display())),
            std::io::ErrorKind::PermissionDenied => Some(format!("{} is read-only (no write permission)", path.display())),
            _ => None,
        })
        .or_else(|| {
            std::fs::metadata(dir)
                .is_ok_and(|m| m.permissions().readonly())
                .then(|| format!("its folder {} is read-only (no write permission)", dir.display()))
        });
    match problem {
        Some(p) => format!(
            "; {p}: Registro writes the store and its journal files beside it (-wal, -shm), so the file and its folder \
             must be writable. Make them writable (or choose another store with --db / REGISTRO_DB) and try again"
        ),
        None => String::new(),
    }
}

/// What to do once the store can be written again.
fn resume_hint(run: Option<crate::RunId>) -> String {
    match run {
        Some(id) => format!("finish run {id} with `registro runs resume {id}` (or Resume in the app)"),
        None => "try again".into(),
    }
}

/// The kind of write failure an SQLite error is: a full disk (or a file size limit), a read-only file or folder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WriteFailure {
    Full,
    ReadOnly,
}

fn write_failure(e: &rusqlite::Error) -> Option<WriteFailure> {
    use rusqlite::ffi;
    let rusqlite::Error::SqliteFailure(f, _) = e else { return None };
    match f.code {
        ffi::ErrorCode::DiskFull => Some(WriteFailure::Full),
        ffi::ErrorCode::ReadOnly => Some(WriteFailure::ReadOnly),
        // A write cut short by the process's file size limit (EFBIG) or a disk that stopped taking writes.
        ffi::ErrorCode::SystemIoFailure
            if matches!(
                f.extended_code,
                ffi::SQLITE_IOERR_WRITE | ffi::SQLITE_IOERR_TRUNCATE | ffi::SQLITE_IOERR_FSYNC | ffi::SQLITE_IOERR_SHMSIZE
            ) =>
        {
            Some(WriteFailure::Full)
        }
        _ => None,
    }
}

/// A database error where no store path is at hand; a full disk or a read-only store still says what to do.
fn sqlite_message(e: &rusqlite::Error) -> String {
    match write_failure(e) {
        Some(WriteFailure::Full) => format!(
            "cannot write to the store: the disk holding it is full or refuses writes ({e}); what was already stored \
             is intact. Free some space on that disk (or move the store with --db / REGISTRO_DB) and try again"
        ),
        Some(WriteFailure::ReadOnly) => format!(
            "the store is read-only ({e}): its file and folder must be writable (or choose another store with --db / \
             REGISTRO_DB)"
        ),
        None => format!("database error: {e}"),
    }
}

impl StoreError {
    /// This error with the store's path (and the run being written, to say how to finish it) where it is a full disk
    /// or a read-only store; any other error unchanged.
    pub(crate) fn at(self, path: &std::path::Path, run: Option<crate::RunId>) -> StoreError {
        match self {
            StoreError::Sqlite(source) => match write_failure(&source) {
                Some(WriteFailure::Full) => StoreError::DiskFull { path: path.to_path_buf(), run, source },
                Some(WriteFailure::ReadOnly) => StoreError::ReadOnly { path: path.to_path_buf(), run, source },
                None => StoreError::Sqlite(source),
            },
            other => other,
        }
    }

    /// Whether this is a full disk (or a file size limit), as opposed to any other failure.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::DiskFull { .. } => true,
            StoreError::Sqlite(e) => write_failure(e) == Some(WriteFailure::Full),
            _ => false,
        }
    }

    /// Whether the store could not be written because it is read-only.
    pub fn is_read_only(&self) -> bool {
        match self {
            StoreError::ReadOnly { .. } => true,
            StoreError::Sqlite(e) => write_failure(e) == Some(WriteFailure::ReadOnly),
            _ => false,
        }
    }
}

impl crate::Store {
    /// `e` with this store's path, for a write of `run`: see [`StoreError::at`].
    pub(crate) fn located(&self, e: StoreError, run: Option<crate::RunId>) -> StoreError {
        e.at(&self.path, run)
    }
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
