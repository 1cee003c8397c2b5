//! Outputs of a run, one per segment. Each call writes its batch in one transaction and replaces outputs already
//! stored for the same segments, so a resumed run can rewrite a segment without duplicates.

use rusqlite::{params, OptionalExtension, Row};

use crate::runs::json_col;
use crate::{Output, Result, RunId, SegmentStatus, Store, StoreError};

const SELECT: &str =
    "SELECT segment_idx, text, candidates, detected_register, flagged, flag_reason, timings FROM outputs";

fn from_row(r: &Row) -> rusqlite::Result<Output> {
    Ok(Output {
        segment_index: r.get(0)?,
        text: r.get(1)?,
        candidates: json_col(r, 2)?,
        detected_register: r.get(3)?,
        flagged: r.get(4)?,
        flag_reason: r.get(5)?,
        timings: json_col(r, 6)?,
    })
}

impl Store {
    /// Stores a batch of outputs for `run` atomically: either all of them are saved or none.
    /// Segment indices must lie in `0..total_segments` of the run.
    pub fn put_outputs(&mut self, run: RunId, outputs: &[Output]) -> Result<()> {
        let r = self.put_outputs_here(run, outputs);
        r.map_err(|e| self.located(e, Some(run)))
    }

    fn put_outputs_here(&mut self, run: RunId, outputs: &[Output]) -> Result<()> {
        let total: i64 = self
            .conn
            .query_row("SELECT total_segments FROM runs WHERE id = ?1", [run], |r| r.get(0))
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: "run", id: run.to_string() })?;
        if let Some(o) = outputs.iter().find(|o| o.segment_index < 0 || o.segment_index >= total) {
            return Err(StoreError::Invalid(format!(
                "run {run} has {total} segments; output for segment {} is out of range",
                o.segment_index
            )));
        }
        let tx = self.conn.transaction()?;
        {
            let mut stmt = tx.prepare(
                "INSERT INTO outputs (run_id, segment_idx, text, candidates, detected_register, flagged, flag_reason, timings)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (run_id, segment_idx) DO UPDATE SET text = excluded.text,
                    candidates = excluded.candidates, detected_register = excluded.detected_register,
                    flagged = excluded.flagged, flag_reason = excluded.flag_reason, timings = excluded.timings,
                    created_at = excluded.created_at, status = 'translated', choice = NULL",
            )?;
            for o in outputs {
                stmt.execute(params![
                    run,
                    o.segment_index,
                    o.text,
                    serde_json::to_string(&o.candidates)?,
                    o.detected_register,
                    o.flagged,
                    o.flag_reason,
                    serde_json::to_string(&o.timings)?
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores a single output (its own transaction).
    pub fn put_output(&mut self, run: RunId, output: &Output) -> Result<()> {
        self.put_outputs(run, std::slice::from_ref(output))
    }

    /// All stored outputs of a run, by segment index.
    pub fn outputs(&self, run: RunId) -> Result<Vec<Output>> {
        self.run(run)?;
        self.rows(&format!("{SELECT} WHERE run_id = ?1 ORDER BY segment_idx"), [run], from_row)
    }

    pub fn output(&self, run: RunId, segment_index: i64) -> Result<Option<Output>> {
        Ok(self
            .conn
            .query_row(&format!("{SELECT} WHERE run_id = ?1 AND segment_idx = ?2"), params![run, segment_index], from_row)
            .optional()?)
    }

    /// Sets the review status of one stored output (the grid's approve/review actions).
    pub fn set_output_status(&mut self, run: RunId, segment_index: i64, status: SegmentStatus) -> Result<()> {
        let n = self.conn.execute(
            "UPDATE outputs SET status = ?3 WHERE run_id = ?1 AND segment_idx = ?2",
            params![run, segment_index, status.as_str()],
        )?;
        if n == 0 {
            self.run(run)?;
            return Err(StoreError::NotFound { what: "output", id: format!("run {run}, segment {}", segment_index + 1) });
        }
        Ok(())
    }

    /// Keeps a writer's decisions on stored outputs of `run`, (segment, decisions) pairs, all or none. The store
    /// does not read them: the core gives them their shape. A new output for the segment (a resume) drops them
    /// with the text they were about.
    pub fn set_output_choices(&mut self, run: RunId, choices: &[(i64, serde_json::Value)]) -> Result<()> {
        self.run(run)?;
        let tx = self.conn.transaction()?;
        {
            let mut stmt = tx.prepare("UPDATE outputs SET choice = ?3 WHERE run_id = ?1 AND segment_idx = ?2")?;
            for (i, c) in choices {
                if stmt.execute(params![run, i, serde_json::to_string(c)?])? == 0 {
                    return Err(StoreError::NotFound { what: "output", id: format!("run {run}, segment {}", i + 1) });
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The stored decisions of every output of `run` that has some, by segment index.
    pub fn output_choices(&self, run: RunId) -> Result<Vec<(i64, serde_json::Value)>> {
        let mut stmt =
            self.conn.prepare("SELECT segment_idx, choice FROM outputs WHERE run_id = ?1 AND choice IS NOT NULL ORDER BY segment_idx")?;
        let rows = stmt
            .query_map([run], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter().map(|(i, s)| Ok((i, serde_json::from_str(&s)?))).collect()
    }

    /// The review status of every stored output of `run`, by segment index.
    pub fn output_statuses(&self, run: RunId) -> Result<Vec<(i64, SegmentStatus)>> {
        let mut stmt = self.conn.prepare("SELECT segment_idx, status FROM outputs WHERE run_id = ?1 ORDER BY segment_idx")?;
        let rows = stmt
            .query_map([run], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter().map(|(i, s)| Ok((i, s.parse()?))).collect()
    }

    /// The approved translations into `target_lang` in `register` of `project`'s translate runs, newest first, at
    /// most `limit`: (run, segment, source, target). The source is the document's segment, or for pasted text the
    /// one the output carries (`candidates.source`). This is the project's translation memory.
    pub fn approved_translations(
        &self,
        project: crate::ProjectId,
        target_lang: &str,
        register: &str,
        limit: usize,
    ) -> Result<Vec<(RunId, i64, String, String)>> {
        let mut stmt = self.conn.prepare(
            "SELECT o.run_id, o.segment_idx, coalesce(s.text, json_extract(o.candidates, '$.source')), o.text
             FROM outputs o JOIN runs r ON r.id = o.run_id
             LEFT JOIN segments s ON s.document_id = r.document_id AND s.idx = o.segment_idx
             WHERE r.project_id = ?1 AND r.task = 'translate' AND r.target_lang = ?2 AND r.register = ?3
               AND o.status = 'approved'
             ORDER BY o.created_at DESC, o.run_id DESC, o.segment_idx LIMIT ?4",
        )?;
        let rows = stmt
            .query_map(params![project, target_lang, register, limit as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<String>>(2)?, r.get(3)?))
            })?
            .filter_map(|row| match row {
                Ok((run, idx, Some(source), target)) => Some(Ok((run, idx, source, target))),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Output texts aligned with the run's segments (`None` where missing): the hypothesis list for metrics.
    pub fn output_texts(&self, run: RunId) -> Result<Vec<Option<String>>> {
        let total = self.run(run)?.total_segments.max(0) as usize;
        // Only the texts: a whole output row (candidates, markers, timings) is ~2 KiB, which an export of a
        // 10,000-segment run used to hold all at once. The slots grow with the rows read, so a damaged
        // `total_segments` cannot make this allocate more than the rows that exist.
        let mut texts: Vec<Option<String>> = Vec::new();
        let mut stmt = self.conn.prepare("SELECT segment_idx, text FROM outputs WHERE run_id = ?1 AND segment_idx >= 0 AND segment_idx < ?2 ORDER BY segment_idx")?;
        let rows = stmt.query_map(params![run, total as i64], |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (i, text) = row?;
            if texts.len() <= i {
                texts.resize(i + 1, None);
            }
            texts[i] = Some(text);
        }
        // Unfinished segments at the end still count (the export keeps their source text), up to a million
        // beyond the last stored one: a larger claim is a damaged file, and the caller's length check says so.
        if total <= texts.len() + (1 << 20) {
            texts.resize(total.max(texts.len()), None);
        }
        Ok(texts)
    }
}
