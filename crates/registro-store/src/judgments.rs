//! Human judgments of run outputs (formality, fluency, meaning preservation, rank), per rater and segment.

use rusqlite::{params, Row, ToSql};
use serde::{Deserialize, Serialize};

use crate::{Judgment, NewJudgment, ProjectId, Result, RunId, Scale, Store, StoreError};

/// Filters for `Store::judgments`; `None` means any.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgmentFilter {
    pub project_id: Option<ProjectId>,
    pub run_id: Option<RunId>,
    pub rater: Option<String>,
    pub scale: Option<Scale>,
}

fn from_row(r: &Row) -> rusqlite::Result<Judgment> {
    let scale: String = r.get(4)?;
    Ok(Judgment {
        id: r.get(0)?,
        rater: r.get(1)?,
        run_id: r.get(2)?,
        segment_index: r.get(3)?,
        scale: scale.parse().map_err(|_| rusqlite::Error::InvalidColumnType(4, scale, rusqlite::types::Type::Text))?,
        value: r.get(5)?,
        note: r.get(6)?,
        created_at: r.get(7)?,
    })
}

impl Store {
    /// Stores judgments in one transaction; returns their ids. A rater judging the same (run, segment, scale)
    /// again adds a new row: the latest one counts (see `judgments`, which returns them oldest first).
    pub fn add_judgments(&mut self, judgments: &[NewJudgment]) -> Result<Vec<i64>> {
        for j in judgments {
            if j.rater.trim().is_empty() {
                return Err(StoreError::Invalid("a judgment needs a rater".into()));
            }
            if !j.value.is_finite() {
                return Err(StoreError::Invalid(format!("judgment value must be a finite number, got {}", j.value)));
            }
        }
        let tx = self.conn.transaction()?;
        let mut ids = Vec::with_capacity(judgments.len());
        {
            let mut ins = tx.prepare(
                "INSERT INTO judgments (rater, run_id, segment_idx, scale, value, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for j in judgments {
                ins.execute(params![j.rater.trim(), j.run_id, j.segment_index, j.scale.as_str(), j.value, j.note])
                    .map_err(|e| match e {
                        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                            StoreError::NotFound { what: "run", id: j.run_id.to_string() }
                        }
                        e => e.into(),
                    })?;
                ids.push(tx.last_insert_rowid());
            }
        }
        tx.commit()?;
        Ok(ids)
    }

    pub fn add_judgment(&mut self, judgment: &NewJudgment) -> Result<i64> {
        Ok(self.add_judgments(std::slice::from_ref(judgment))?[0])
    }

    /// Judgments matching `filter`, oldest first.
    pub fn judgments(&self, filter: &JudgmentFilter) -> Result<Vec<Judgment>> {
        let mut sql = "SELECT j.id, j.rater, j.run_id, j.segment_idx, j.scale, j.value, j.note, j.created_at
                       FROM judgments j JOIN runs r ON r.id = j.run_id WHERE 1"
            .to_string();
        let mut args: Vec<Box<dyn ToSql>> = Vec::new();
        if let Some(p) = filter.project_id {
            args.push(Box::new(p));
            sql += &format!(" AND r.project_id = ?{}", args.len());
        }
        if let Some(run) = filter.run_id {
            args.push(Box::new(run));
            sql += &format!(" AND j.run_id = ?{}", args.len());
        }
        if let Some(rater) = &filter.rater {
            args.push(Box::new(rater.clone()));
            sql += &format!(" AND j.rater = ?{}", args.len());
        }
        if let Some(scale) = filter.scale {
            args.push(Box::new(scale.as_str()));
            sql += &format!(" AND j.scale = ?{}", args.len());
        }
        sql += " ORDER BY j.id";
        let refs: Vec<&dyn ToSql> = args.iter().map(|b| b.as_ref()).collect();
        self.rows(&sql, refs.as_slice(), from_row)
    }

    pub fn delete_judgment(&self, id: i64) -> Result<()> {
        if self.conn.execute("DELETE FROM judgments WHERE id = ?1", [id])? == 0 {
            return Err(StoreError::NotFound { what: "judgment", id: id.to_string() });
        }
        Ok(())
    }
}
