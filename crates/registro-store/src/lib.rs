//! registro-store: Registro's single SQLite database (bundled SQLite, WAL, foreign keys on, versioned migrations)
//! plus the importers that turn files into documents and the exporters that turn runs into files.
//!
//! One `Store` wraps one connection. It is `Send` (not `Sync`): the app keeps it behind a `Mutex` or opens one per
//! command; several processes (app + CLI) may use the same file at once, WAL and the busy timeout make that safe.
//!
//! Invariants:
//! - every multi-row write (a document with its segments and references, a batch of outputs, metric results or
//!   judgments) is one transaction: after a crash a batch is either fully there or absent;
//! - deleting a project removes its documents and runs; deleting a document removes its runs; deleting a run
//!   removes its outputs, metric results and judgments (foreign-key cascades);
//! - a run left `running` by a process that no longer exists is marked `failed` with an `interrupted: …` error
//!   when a store is opened (see [`Store::recover_interrupted_runs`]); its stored outputs stay, and
//!   [`Store::resume_run`] returns the segments still to do.
#![forbid(unsafe_code)]

mod documents;
mod error;
pub mod export;
pub mod import;
mod judgments;
mod metrics;
mod model;
mod outputs;
mod overrides;
mod ownership;
mod projects;
mod resegment;
mod runs;
mod schema;
mod stats_cache;
mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

pub use error::{ImportError, StoreError};
pub use judgments::JudgmentFilter;
pub use model::*;
pub use documents::content_hash;
pub use overrides::{NewOverride, OverrideKind, ReviewOverride};
pub use ownership::{peek_schema_version, APPLICATION_ID};
pub use resegment::Resegment;
pub use runs::{RunNarrowing, RunPageQuery, RunSort};
pub use schema::SCHEMA_VERSION;
pub use stats_cache::{fingerprint, SegmentTable};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// SQL expression for "now" in the format every `*_at` column uses.
pub(crate) const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

/// How long a writer waits for another connection's lock before giving up with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Names the database for the in-process registry of executing runs (see `worker.rs`): the canonical path,
    /// or a unique name per in-memory store.
    key: String,
    /// Runs this store started and has not finished. Dropping the store ends them `failed`: the operation that
    /// owned it returned or panicked without finishing them, so nothing executes them any more.
    started: std::cell::RefCell<std::collections::BTreeSet<RunId>>,
    /// Unique per `Store` value in this process: which store the registry says executes a run.
    token: u64,
}

impl Drop for Store {
    fn drop(&mut self) {
        let why = if std::thread::panicking() {
            "crashed: the operation writing this run panicked (an internal error in Registro)"
        } else {
            "interrupted: the operation writing this run ended without finishing it"
        };
        for id in std::mem::take(self.started.get_mut()) {
            if !worker::unregister(&self.key, id, Some(self.token)) {
                continue;
            }
            // Best effort: a drop cannot report errors, and the next open's recovery catches what this misses.
            let _ = self.conn.execute(
                &format!(
                    "UPDATE runs SET status = 'failed', worker = NULL, finished_at = {NOW},
                        error = printf('%s; %d of %d segments were saved', ?2,
                                       (SELECT count(*) FROM outputs o WHERE o.run_id = runs.id), total_segments)
                     WHERE id = ?1 AND status = 'running' AND worker IS ?3"
                ),
                rusqlite::params![id, why, worker::current()],
            );
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// The database path used when neither `--db` nor `REGISTRO_DB` is given: `<data dir>/registro/registro.db`
/// (`~/.local/share/registro/registro.db` on Linux, `~/Library/Application Support/registro/registro.db` on macOS).
pub fn default_db_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("REGISTRO_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dir = dirs::data_dir().ok_or(StoreError::NoDataDir)?;
    Ok(dir.join("registro").join("registro.db"))
}

impl Store {
    /// Opens (creating if needed) the database at `path`, applies pending migrations and recovers runs left
    /// `running` by a dead process. A file that is not a Registro store (another application's database, a newer
    /// or damaged store, not SQLite at all) is refused before anything is written to it, so it stays
    /// byte-identical; the error says what the file is.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: dir.to_path_buf(), source })?;
        }
        ownership::check(&path)?;
        let conn = Connection::open(&path).map_err(|source| StoreError::Open { path: path.clone(), source })?;
        Self::setup(conn, path, true)
    }

    /// Opens `path` if given, else `REGISTRO_DB`, else the platform default ([`default_db_path`]).
    pub fn open_or_default(path: Option<&Path>) -> Result<Store> {
        match path {
            Some(p) => Store::open(p),
            None => Store::open(default_db_path()?),
        }
    }

    /// Opens `REGISTRO_DB` or the platform default.
    pub fn open_default() -> Result<Store> {
        Store::open_or_default(None)
    }

    /// A private in-memory store (for tests and throwaway evaluations).
    pub fn open_in_memory() -> Result<Store> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open { path: path.clone(), source })?;
        Self::setup(conn, path, false)
    }

    fn setup(mut conn: Connection, path: PathBuf, wal: bool) -> Result<Store> {
        static IN_MEMORY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let key = if wal {
            std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()).display().to_string()
        } else {
            format!(":memory:{}", IN_MEMORY.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
        };
        let open_err = |source| StoreError::Open { path: path.clone(), source };
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
        if wal {
            // journal_mode returns a row, so it cannot go through execute_batch's no-rows path.
            let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(open_err)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Invalid(format!("{}: cannot switch to WAL mode (got {mode})", path.display())));
            }
        }
        // NORMAL is durable against process crashes in WAL mode; only an OS crash can lose the last commits.
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;").map_err(open_err)?;
        // The runs table sorts names as people read them: system-32 before system-319.
        conn.create_collation(runs::NATURAL, runs::natural_cmp).map_err(open_err)?;
        schema::migrate(&mut conn, &path)?;
        static TOKENS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let token = TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let store = Store { conn, path, key, started: Default::default(), token };
        store.recover_interrupted_runs()?;
        Ok(store)
    }

    /// The file this store lives in (`:memory:` for in-memory stores).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw connection, for read-only ad-hoc queries (reports, tests). Writes should go through the typed API
    /// so the invariants above hold.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Every row `sql` selects with `params`, read by `from_row`.
    pub(crate) fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        from_row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map(params, from_row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The one row `sql` selects with `?1` bound to `id`, read by `from_row`; `NotFound` names it as the `what`
    /// `id` when there is none.
    pub(crate) fn row_by_id<T>(
        &self,
        sql: &str,
        id: i64,
        what: &'static str,
        from_row: impl FnOnce(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<T> {
        use rusqlite::OptionalExtension;
        self.conn.query_row(sql, [id], from_row).optional()?.ok_or_else(|| StoreError::NotFound { what, id: id.to_string() })
    }

    /// Runs `PRAGMA integrity_check` and `PRAGMA foreign_key_check`; returns `"ok"` or the problems found.
    pub fn integrity_check(&self) -> Result<String> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let rows: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let mut report = rows.join("\n");
        let mut fk = self.conn.prepare("PRAGMA foreign_key_check")?;
        let violations: Vec<String> = fk
            .query_map([], |r| Ok(format!("foreign key violation in {} row {:?}", r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?)))?
            .collect::<Result<_, _>>()?;
        if !violations.is_empty() {
            report = if report == "ok" { violations.join("\n") } else { format!("{report}\n{}", violations.join("\n")) };
        }
        Ok(report)
    }
}
