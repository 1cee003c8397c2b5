//! Moving segment boundaries of a stored document (the review grid's Split and Join). Every run over the document
//! is keyed by segment index, so a boundary change renumbers the document's segments and every run's outputs in
//! one transaction: a crash leaves the old segmentation and the old outputs, never a mix. Derived per-segment data
//! (metric results, cached statistics) is dropped and recomputed on demand.

use rusqlite::{params, Transaction};

use crate::documents::hash_segment_texts;
use crate::{DocumentId, Output, Result, RunId, Store, StoreError};

/// A change to where one document's segments begin and end.
#[derive(Clone, Debug)]
pub enum Resegment {
    /// Segment `index` becomes two segments, `first` and `second`. The runs over the document lose their output for
    /// it: the two halves have no translation until they are translated again (`missing_segments` lists them).
    Split { index: i64, first: String, second: String },
    /// Segments `index` and `index + 1` become one segment with `text`. `outputs` are the new outputs for it per run
    /// (the two translations joined); a run without one keeps no output there.
    Join { index: i64, text: String, outputs: Vec<(RunId, Output)> },
}

/// Renumbers segments and outputs with index ≥ `from` by `delta`, through negative indices so no two rows ever
/// share a key in between.
fn shift(tx: &Transaction, doc: DocumentId, from: i64, delta: i64) -> rusqlite::Result<()> {
    tx.execute("UPDATE segments SET idx = -idx - 1 WHERE document_id = ?1 AND idx >= ?2", params![doc, from])?;
    tx.execute("UPDATE segments SET idx = -idx - 1 + ?2 WHERE document_id = ?1 AND idx < 0", params![doc, delta])?;
    let runs = "run_id IN (SELECT id FROM runs WHERE document_id = ?1)";
    tx.execute(&format!("UPDATE outputs SET segment_idx = -segment_idx - 1 WHERE {runs} AND segment_idx >= ?2"), params![doc, from])?;
    tx.execute(&format!("UPDATE outputs SET segment_idx = -segment_idx - 1 + ?2 WHERE {runs} AND segment_idx < 0"), params![doc, delta])?;
    Ok(())
}

impl Store {
    /// Applies `edit` to document `doc` and renumbers every run over it; `run_params` replaces the parameters of
    /// the runs listed (per-segment settings such as register overrides are keyed by index too). Refused for a
    /// document with references (a test set's segmentation is what its scores mean), for runs with human
    /// judgments, and while a run over the document is running.
    pub fn resegment(&mut self, doc: DocumentId, edit: &Resegment, run_params: &[(RunId, serde_json::Value)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        let count = |sql: &str| -> rusqlite::Result<i64> { tx.query_row(sql, [doc], |r| r.get(0)) };
        let segments = count("SELECT count(*) FROM segments WHERE document_id = ?1")?;
        if count("SELECT count(*) FROM documents WHERE id = ?1")? == 0 {
            return Err(StoreError::NotFound { what: "document", id: doc.to_string() });
        }
        if count("SELECT count(*) FROM refs WHERE document_id = ?1")? > 0 {
            return Err(StoreError::Invalid(format!(
                "document {doc} has references: its segments are a test set's and are not split or joined"
            )));
        }
        if count("SELECT count(*) FROM judgments WHERE run_id IN (SELECT id FROM runs WHERE document_id = ?1)")? > 0 {
            return Err(StoreError::Invalid(format!(
                "document {doc} has runs with human ratings, which are per segment: its segments are not split or joined"
            )));
        }
        if count("SELECT count(*) FROM runs WHERE document_id = ?1 AND status = 'running'")? > 0 {
            return Err(StoreError::Invalid(format!(
                "a run over document {doc} is running: split or join segments once it has finished or been cancelled"
            )));
        }
        let lang: String = tx.query_row("SELECT coalesce((SELECT lang FROM segments WHERE document_id = ?1 LIMIT 1), 'en')", [doc], |r| r.get(0))?;
        let runs_over = "run_id IN (SELECT id FROM runs WHERE document_id = ?1)";
        match edit {
            Resegment::Split { index, first, second } => {
                if !(0..segments).contains(index) {
                    return Err(StoreError::Invalid(format!("document {doc} has {segments} segments; there is no segment {}", index + 1)));
                }
                if first.trim().is_empty() || second.trim().is_empty() {
                    return Err(StoreError::Invalid(format!("splitting segment {} would leave an empty segment", index + 1)));
                }
                tx.execute(&format!("DELETE FROM outputs WHERE {runs_over} AND segment_idx = ?2"), params![doc, index])?;
                shift(&tx, doc, index + 1, 1)?;
                tx.execute("UPDATE segments SET text = ?3 WHERE document_id = ?1 AND idx = ?2", params![doc, index, first])?;
                tx.execute("INSERT INTO segments (document_id, idx, text, lang) VALUES (?1, ?2, ?3, ?4)", params![doc, index + 1, second, lang])?;
                tx.execute("UPDATE runs SET total_segments = total_segments + 1 WHERE document_id = ?1", [doc])?;
            }
            Resegment::Join { index, text, outputs } => {
                if *index < 0 || index + 1 >= segments {
                    return Err(StoreError::Invalid(format!("document {doc} has {segments} segments; segment {} has no next segment to join", index + 1)));
                }
                tx.execute(&format!("DELETE FROM outputs WHERE {runs_over} AND segment_idx IN (?2, ?2 + 1)"), params![doc, index])?;
                tx.execute("DELETE FROM segments WHERE document_id = ?1 AND idx = ?2", params![doc, index + 1])?;
                shift(&tx, doc, index + 2, -1)?;
                tx.execute("UPDATE segments SET text = ?3 WHERE document_id = ?1 AND idx = ?2", params![doc, index, text])?;
                tx.execute("UPDATE runs SET total_segments = total_segments - 1 WHERE document_id = ?1", [doc])?;
                let mut put = tx.prepare(
                    "INSERT INTO outputs (run_id, segment_idx, text, candidates, detected_register, flagged, flag_reason, timings)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM runs WHERE id = ?1 AND document_id = ?9",
                )?;
                for (run, o) in outputs {
                    let n = put.execute(params![
                        run,
                        index,
                        o.text,
                        serde_json::to_string(&o.candidates)?,
                        o.detected_register,
                        o.flagged,
                        o.flag_reason,
                        serde_json::to_string(&o.timings)?,
                        doc
                    ])?;
                    if n == 0 {
                        return Err(StoreError::Invalid(format!("run {run} is not a run over document {doc}")));
                    }
                }
            }
        }
        for (run, p) in run_params {
            let n = tx.execute("UPDATE runs SET params = ?2 WHERE id = ?1 AND document_id = ?3", params![run, serde_json::to_string(p)?, doc])?;
            if n == 0 {
                return Err(StoreError::Invalid(format!("run {run} is not a run over document {doc}")));
            }
        }
        // Per-segment results no longer line up with the segments; they are computed again when asked for.
        tx.execute(&format!("DELETE FROM metric_results WHERE {runs_over}"), [doc])?;
        tx.execute(&format!("DELETE FROM segment_stats WHERE {runs_over}"), [doc])?;
        let texts: Vec<String> =
            tx.prepare("SELECT text FROM segments WHERE document_id = ?1 ORDER BY idx")?.query_map([doc], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        tx.execute("UPDATE documents SET content_hash = ?2 WHERE id = ?1", params![doc, hash_segment_texts(&texts)])?;
        tx.commit()?;
        Ok(())
    }
}
