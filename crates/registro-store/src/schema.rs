//! Versioned migrations. `PRAGMA user_version` holds the number of migrations applied and `PRAGMA application_id`
//! marks the file as Registro's (see `ownership.rs`, which checks both before anything is written). Append new
//! migrations to the end; never edit one that has shipped.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::error::StoreError;
use crate::ownership::APPLICATION_ID;

const MIGRATIONS: &[&str] = &[
    // 1: the initial schema.
    r#"
    CREATE TABLE projects (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );

    CREATE TABLE documents (
        id          INTEGER PRIMARY KEY,
        project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name        TEXT NOT NULL,
        source_lang TEXT NOT NULL,
        target_lang TEXT,
        origin      TEXT,
        format      TEXT NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );
    CREATE INDEX documents_project ON documents(project_id);

    CREATE TABLE segments (
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        idx         INTEGER NOT NULL,
        text        TEXT NOT NULL,
        lang        TEXT NOT NULL,
        PRIMARY KEY (document_id, idx)
    ) WITHOUT ROWID;

    CREATE TABLE refs (
        document_id INTEGER NOT NULL,
        segment_idx INTEGER NOT NULL,
        name        TEXT NOT NULL,
        text        TEXT NOT NULL,
        PRIMARY KEY (document_id, segment_idx, name),
        FOREIGN KEY (document_id, segment_idx) REFERENCES segments(document_id, idx) ON DELETE CASCADE
    ) WITHOUT ROWID;

    CREATE TABLE runs (
        id             INTEGER PRIMARY KEY,
        project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        document_id    INTEGER REFERENCES documents(id) ON DELETE CASCADE,
        task           TEXT NOT NULL CHECK (task IN ('rewrite','translate','import','eval')),
        system         TEXT NOT NULL,
        model_id       TEXT,
        model_sha256   TEXT,
        params         TEXT NOT NULL DEFAULT '{}',
        source_lang    TEXT,
        target_lang    TEXT,
        register       TEXT,
        status         TEXT NOT NULL DEFAULT 'queued'
                       CHECK (status IN ('queued','running','done','failed','cancelled')),
        error          TEXT,
        total_segments INTEGER NOT NULL DEFAULT 0,
        -- "pid:start-time" of the process driving a running run; lets `open` tell a crashed run from a live one.
        worker         TEXT,
        created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
        started_at     TEXT,
        finished_at    TEXT
    );
    CREATE INDEX runs_project ON runs(project_id);
    CREATE INDEX runs_document ON runs(document_id);

    CREATE TABLE outputs (
        run_id            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        segment_idx       INTEGER NOT NULL,
        text              TEXT NOT NULL,
        candidates        TEXT NOT NULL DEFAULT 'null',
        detected_register TEXT,
        flagged           INTEGER NOT NULL DEFAULT 0,
        flag_reason       TEXT,
        timings           TEXT NOT NULL DEFAULT 'null',
        created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
        PRIMARY KEY (run_id, segment_idx)
    ) WITHOUT ROWID;

    CREATE TABLE metric_results (
        id          INTEGER PRIMARY KEY,
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        metric      TEXT NOT NULL,
        reference   TEXT,
        segment_idx INTEGER,
        value       REAL NOT NULL,
        signature   TEXT,
        detail      TEXT NOT NULL DEFAULT 'null',
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );
    -- One value per (run, metric, reference, segment); NULLs are folded so corpus-level rows are unique too.
    CREATE UNIQUE INDEX metric_results_key
        ON metric_results(run_id, metric, coalesce(reference, ''), coalesce(segment_idx, -1));

    CREATE TABLE judgments (
        id          INTEGER PRIMARY KEY,
        rater       TEXT NOT NULL,
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        segment_idx INTEGER NOT NULL,
        scale       TEXT NOT NULL CHECK (scale IN ('formality','fluency','meaning','rank')),
        value       REAL NOT NULL,
        note        TEXT,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );
    CREATE INDEX judgments_run ON judgments(run_id, segment_idx);
    "#,
    // 2: documents are identified by their contents (filled for existing rows by `after_migration`).
    r#"
    ALTER TABLE documents ADD COLUMN content_hash TEXT;
    CREATE INDEX documents_content ON documents(project_id, content_hash);
    "#,
    // 3: per-segment metric statistics cached for the Dashboard (`stats_cache.rs`).
    r#"
    CREATE TABLE segment_stats (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        width       INTEGER NOT NULL,
        data        BLOB NOT NULL,
        PRIMARY KEY (run_id, key)
    ) WITHOUT ROWID;
    "#,
    // 4: review status per output (the Translate grid), and the original file of a document imported from a
    // translator's format (DOCX, XLIFF, …) so Export can write the same format back after the file has moved.
    r#"
    ALTER TABLE outputs ADD COLUMN status TEXT NOT NULL DEFAULT 'translated'
        CHECK (status IN ('draft','translated','reviewed','approved'));
    CREATE TABLE document_files (
        document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        format      TEXT NOT NULL,
        bytes       BLOB NOT NULL
    );
    "#,
    // 5: a reviewer's explicit overrides (`overrides.rs`): a segment marked reviewed/approved with its flag still
    // open, or a run exported although its quality check found errors — who, when, why, and what was overridden.
    r#"
    CREATE TABLE review_overrides (
        id          INTEGER PRIMARY KEY,
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        segment_idx INTEGER,
        kind        TEXT NOT NULL CHECK (kind IN ('flag','export')),
        what        TEXT NOT NULL,
        text        TEXT,
        reason      TEXT NOT NULL,
        who         TEXT NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );
    CREATE INDEX review_overrides_run ON review_overrides(run_id, segment_idx);
    "#,
    // 6: a writer's decisions on a rewrite output (which candidate, which edits rejected, the original kept), as
    // JSON the core owns; NULL is the machine's choice with every edit accepted, which is what older rows meant.
    r#"
    ALTER TABLE outputs ADD COLUMN choice TEXT;
    "#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Applies pending migrations and stamps Registro's application id; refuses a database written by a newer
/// Registro. All pending steps run in one IMMEDIATE transaction that re-reads the version, so two processes
/// opening a new file at once do not both migrate it, and a crash leaves the previous version intact.
pub(crate) fn migrate(conn: &mut Connection, path: &std::path::Path) -> Result<(), StoreError> {
    let read = |c: &Connection| -> rusqlite::Result<(i64, i32)> {
        Ok((c.query_row("PRAGMA user_version", [], |r| r.get(0))?, c.query_row("PRAGMA application_id", [], |r| r.get(0))?))
    };
    let (current, app) = read(conn)?;
    if current == SCHEMA_VERSION && app == APPLICATION_ID {
        return Ok(());
    }
    let step = |version: i64| move |source| StoreError::Migration { version, source };
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(step(current + 1))?;
    let (current, app) = read(&*tx)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found: current, supported: SCHEMA_VERSION });
    }
    if current < 0 {
        return Err(StoreError::Damaged {
            path: path.to_path_buf(),
            what: format!("schema version {current} (negative; Registro never writes that)"),
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let version = i as i64 + 1;
        tx.execute_batch(sql).map_err(step(version))?;
        after_migration(&tx, version).map_err(step(version))?;
    }
    // Neither pragma can take a bound parameter; both values are our own integers.
    if app != APPLICATION_ID {
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}")).map_err(step(SCHEMA_VERSION))?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}")).map_err(step(SCHEMA_VERSION))?;
    tx.commit().map_err(step(SCHEMA_VERSION))?;
    Ok(())
}

/// Data steps SQL alone cannot do.
fn after_migration(tx: &Transaction, version: i64) -> rusqlite::Result<()> {
    if version == 2 {
        crate::documents::fill_content_hashes(tx)?;
    }
    Ok(())
}
