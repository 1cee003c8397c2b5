//! Metric results (corpus and segment level). Storing a result replaces an earlier one with the same
//! (run, metric, reference, segment), so re-scoring a run never duplicates rows.

use rusqlite::{params, Row};

use crate::runs::json_col;
use crate::{MetricResult, NewMetric, Result, RunId, Store};

const SELECT: &str =
    "SELECT id, run_id, metric, reference, segment_idx, value, signature, detail, created_at FROM metric_results";

fn from_row(r: &Row) -> rusqlite::Result<MetricResult> {
    Ok(MetricResult {
        id: r.get(0)?,
        run_id: r.get(1)?,
        metric: r.get(2)?,
        reference: r.get(3)?,
        segment_index: r.get(4)?,
        value: r.get(5)?,
        signature: r.get(6)?,
        detail: json_col(r, 7)?,
        created_at: r.get(8)?,
    })
}

impl Store {
    /// Stores metric results for a run in one transaction, replacing earlier values for the same key.
    pub fn put_metric_results(&mut self, run: RunId, results: &[NewMetric]) -> Result<()> {
        self.run(run)?;
        let tx = self.conn.transaction()?;
        {
            let mut del = tx.prepare(
                "DELETE FROM metric_results WHERE run_id = ?1 AND metric = ?2
                 AND coalesce(reference, '') = coalesce(?3, '') AND coalesce(segment_idx, -1) = coalesce(?4, -1)",
            )?;
            let mut ins = tx.prepare(
                "INSERT INTO metric_results (run_id, metric, reference, segment_idx, value, signature, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for m in results {
                del.execute(params![run, m.metric, m.reference, m.segment_index])?;
                ins.execute(params![
                    run,
                    m.metric,
                    m.reference,
                    m.segment_index,
                    m.value,
                    m.signature,
                    serde_json::to_string(&m.detail)?
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// All metric results of a run: corpus-level first, then by metric, reference and segment.
    pub fn metric_results(&self, run: RunId) -> Result<Vec<MetricResult>> {
        self.rows(
            &format!("{SELECT} WHERE run_id = ?1 ORDER BY segment_idx IS NOT NULL, metric, reference, segment_idx"),
            [run],
            from_row,
        )
    }

    /// Corpus-level results only (what the dashboard's tables show).
    pub fn corpus_metrics(&self, run: RunId) -> Result<Vec<MetricResult>> {
        self.rows(&format!("{SELECT} WHERE run_id = ?1 AND segment_idx IS NULL ORDER BY metric, reference"), [run], from_row)
    }

    /// Segment-level values of one metric (and reference, if given) for a run, by segment.
    pub fn segment_metrics(&self, run: RunId, metric: &str, reference: Option<&str>) -> Result<Vec<MetricResult>> {
        self.rows(
            &format!(
                "{SELECT} WHERE run_id = ?1 AND metric = ?2 AND segment_idx IS NOT NULL
             AND (?3 IS NULL OR reference = ?3) ORDER BY segment_idx"
            ),
            params![run, metric, reference],
            from_row,
        )
    }

    /// Deletes a run's results for `metric` (all metrics when `None`); returns how many rows went.
    pub fn delete_metric_results(&self, run: RunId, metric: Option<&str>) -> Result<usize> {
        Ok(self
            .conn
            .execute("DELETE FROM metric_results WHERE run_id = ?1 AND (?2 IS NULL OR metric = ?2)", params![run, metric])?)
    }
}
