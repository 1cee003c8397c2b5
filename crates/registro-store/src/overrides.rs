//! A reviewer's explicit overrides (schema 5): a segment marked reviewed or approved while its flag is still open,
//! and a run exported although its quality check found errors ("export anyway"). Each row keeps who, when, why and
//! what was overridden (the flag's text, or the errors), so the decision is shown wherever the segment or run is.
//!
//! A flag override holds for the text and flag it was given for: once the segment's text or flag changes (an
//! edit, a repair, a resegmentation), it no longer matches and the flag is open again.

use rusqlite::{params, Row};

use crate::{Result, RunId, SegmentStatus, Store, StoreError};

/// What was overridden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum OverrideKind {
    /// A segment's open flag, to mark it reviewed or approved.
    Flag,
    /// The quality check's errors, to export the run anyway.
    Export,
}

impl OverrideKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OverrideKind::Flag => "flag",
            OverrideKind::Export => "export",
        }
    }
}

/// One stored override.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct ReviewOverride {
    pub id: i64,
    pub run_id: RunId,
    /// The segment (0-based) of a flag override; `None` for an export.
    pub segment_index: Option<i64>,
    pub kind: OverrideKind,
    /// The flag's reason, or the quality check's errors, as they were when overridden.
    pub what: String,
    /// The segment's text the flag was overridden for (flag overrides).
    pub text: Option<String>,
    pub reason: String,
    pub who: String,
    pub created_at: String,
}

/// An override about to be stored.
#[derive(Clone, Debug, PartialEq)]
pub struct NewOverride {
    pub segment_index: Option<i64>,
    pub kind: OverrideKind,
    pub what: String,
    pub text: Option<String>,
    pub reason: String,
    pub who: String,
}

const SELECT: &str = "SELECT id, run_id, segment_idx, kind, what, text, reason, who, created_at FROM review_overrides";

fn from_row(r: &Row) -> rusqlite::Result<ReviewOverride> {
    let kind: String = r.get(3)?;
    Ok(ReviewOverride {
        id: r.get(0)?,
        run_id: r.get(1)?,
        segment_index: r.get(2)?,
        kind: if kind == "export" { OverrideKind::Export } else { OverrideKind::Flag },
        what: r.get(4)?,
        text: r.get(5)?,
        reason: r.get(6)?,
        who: r.get(7)?,
        created_at: r.get(8)?,
    })
}

fn validate(o: &NewOverride) -> Result<()> {
    if o.reason.trim().is_empty() {
        return Err(StoreError::Invalid("an override needs a reason".into()));
    }
    if o.who.trim().is_empty() {
        return Err(StoreError::Invalid("an override needs the name of who made it".into()));
    }
    Ok(())
}

fn insert(conn: &rusqlite::Connection, run: RunId, o: &NewOverride) -> Result<i64> {
    conn.execute(
        "INSERT INTO review_overrides (run_id, segment_idx, kind, what, text, reason, who) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![run, o.segment_index, o.kind.as_str(), o.what, o.text, o.reason.trim(), o.who.trim()],
    )?;
    Ok(conn.last_insert_rowid())
}

impl Store {
    /// Stores an override (its own transaction); returns its id.
    pub fn add_override(&mut self, run: RunId, o: &NewOverride) -> Result<i64> {
        validate(o)?;
        self.run(run)?;
        insert(&self.conn, run, o)
    }

    /// Stores a flag override and sets the segment's status in one transaction: both or neither.
    pub fn set_output_status_overriding(&mut self, run: RunId, segment_index: i64, status: SegmentStatus, o: &NewOverride) -> Result<i64> {
        validate(o)?;
        self.run(run)?;
        let tx = self.conn.transaction()?;
        let id = insert(&tx, run, o)?;
        let n = tx.execute(
            "UPDATE outputs SET status = ?3 WHERE run_id = ?1 AND segment_idx = ?2",
            params![run, segment_index, status.as_str()],
        )?;
        if n == 0 {
            return Err(StoreError::NotFound { what: "output", id: format!("run {run}, segment {}", segment_index + 1) });
        }
        tx.commit()?;
        Ok(id)
    }

    /// Every override of `run`, oldest first.
    pub fn overrides(&self, run: RunId) -> Result<Vec<ReviewOverride>> {
        self.rows(&format!("{SELECT} WHERE run_id = ?1 ORDER BY id"), [run], from_row)
    }
}
