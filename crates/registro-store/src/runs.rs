//! Runs: one execution of a system (translate, rewrite, import of a system's output file, eval) over a document
//! or ad-hoc segments, with its life cycle and crash recovery.

use rusqlite::{params, OptionalExtension, Row, ToSql};

use crate::{worker, NewRun, Result, Run, RunFilter, RunId, RunStatus, Store, StoreError, NOW};

const SELECT: &str = "SELECT r.id, r.project_id, r.document_id, r.task, r.system, r.model_id, r.model_sha256,
        r.params, r.source_lang, r.target_lang, r.register, r.status, r.error, r.total_segments,
        (SELECT count(*) FROM outputs o WHERE o.run_id = r.id),
        r.created_at, r.started_at, r.finished_at
    FROM runs r";

fn parse_enum<T: std::str::FromStr>(r: &Row, i: usize) -> rusqlite::Result<T> {
    let s: String = r.get(i)?;
    s.parse().map_err(|_| rusqlite::Error::InvalidColumnType(i, s, rusqlite::types::Type::Text))
}

pub(crate) fn json_col(r: &Row, i: usize) -> rusqlite::Result<serde_json::Value> {
    let s: String = r.get(i)?;
    serde_json::from_str(&s).map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
}

fn from_row(r: &Row) -> rusqlite::Result<Run> {
    Ok(Run {
        id: r.get(0)?,
        project_id: r.get(1)?,
        document_id: r.get(2)?,
        task: parse_enum(r, 3)?,
        system: r.get(4)?,
        model_id: r.get(5)?,
        model_sha256: r.get(6)?,
        params: json_col(r, 7)?,
        source_lang: r.get(8)?,
        target_lang: r.get(9)?,
        register: r.get(10)?,
        status: parse_enum(r, 11)?,
        error: r.get(12)?,
        total_segments: r.get(13)?,
        completed_segments: r.get(14)?,
        created_at: r.get(15)?,
        started_at: r.get(16)?,
        finished_at: r.get(17)?,
    })
}

impl Store {
    /// Records a new run in state `queued`. With a document, the run covers all its segments and must belong to the
    /// same project; without one, `total_segments` says how many outputs to expect.
    pub fn create_run(&self, new: &NewRun) -> Result<RunId> {
        self.project(new.project_id)?;
        let total = match new.document_id {
            Some(doc) => {
                let d = self.document(doc)?;
                if d.project_id != new.project_id {
                    return Err(StoreError::Invalid(format!(
                        "document {doc} belongs to project {}, not {}",
                        d.project_id, new.project_id
                    )));
                }
                d.segments
            }
            None => new.total_segments.ok_or_else(|| {
                StoreError::Invalid("a run without a document needs total_segments".into())
            })?,
        };
        if total < 0 {
            return Err(StoreError::Invalid(format!("total_segments must not be negative (got {total})")));
        }
        self.conn.execute(
            "INSERT INTO runs (project_id, document_id, task, system, model_id, model_sha256, params,
                               source_lang, target_lang, register, total_segments)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                new.project_id,
                new.document_id,
                new.task.as_str(),
                new.system,
                new.model_id,
                new.model_sha256,
                serde_json::to_string(&new.params)?,
                new.source_lang,
                new.target_lang,
                new.register,
                total
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn run(&self, id: RunId) -> Result<Run> {
        self.conn
            .query_row(&format!("{SELECT} WHERE r.id = ?1"), [id], from_row)
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: "run", id: id.to_string() })
    }

    /// Runs matching `filter`, newest first.
    pub fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        let mut clauses = Vec::new();
        let mut args: Vec<Box<dyn ToSql>> = Vec::new();
        let mut add = |clause: &str, v: Box<dyn ToSql>| {
            args.push(v);
            clauses.push(clause.replace('?', &format!("?{}", args.len())));
        };
        if let Some(p) = filter.project_id {
            add("r.project_id = ?", Box::new(p));
        }
        if let Some(d) = filter.document_id {
            add("r.document_id = ?", Box::new(d));
        }
        if let Some(t) = filter.task {
            add("r.task = ?", Box::new(t.as_str()));
        }
        if let Some(s) = filter.status {
            add("r.status = ?", Box::new(s.as_str()));
        }
        if let Some(s) = &filter.system {
            add("instr(r.system, ?) > 0", Box::new(s.clone()));
        }
        if let Some(l) = &filter.target_lang {
            add("r.target_lang = ?", Box::new(l.clone()));
        }
        if let Some(g) = &filter.register {
            add("r.register = ?", Box::new(g.clone()));
        }
        let mut sql = SELECT.to_string();
        if !clauses.is_empty() {
            sql += &format!(" WHERE {}", clauses.join(" AND "));
        }
        sql += " ORDER BY r.id DESC";
        if let Some(l) = filter.limit {
            sql += &format!(" LIMIT {}", l.max(0));
        }
        let mut stmt = self.conn.prepare(&sql)?;
        let refs: Vec<&dyn ToSql> = args.iter().map(|b| b.as_ref()).collect();
        let rows = stmt.query_map(refs.as_slice(), from_row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Marks a run as running in this process (records the worker so a crash can be detected later).
    pub fn start_run(&self, id: RunId) -> Result<()> {
        let n = self.conn.execute(
            &format!(
                "UPDATE runs SET status = 'running', worker = ?2, error = NULL, finished_at = NULL,
                 started_at = coalesce(started_at, {NOW}) WHERE id = ?1"
            ),
            params![id, worker::current()],
        )?;
        if n == 0 {
            return Err(StoreError::NotFound { what: "run", id: id.to_string() });
        }
        worker::register(&self.key, id, self.token);
        self.started.borrow_mut().insert(id);
        Ok(())
    }

    /// Ends a run with `status` (`done`, `failed` or `cancelled`) and an optional error message.
    pub fn finish_run(&self, id: RunId, status: RunStatus, error: Option<&str>) -> Result<()> {
        if matches!(status, RunStatus::Queued | RunStatus::Running) {
            return Err(StoreError::Invalid(format!("finish_run needs a final status, not {status}")));
        }
        let n = self.conn.execute(
            &format!("UPDATE runs SET status = ?2, error = ?3, worker = NULL, finished_at = {NOW} WHERE id = ?1"),
            params![id, status.as_str(), error],
        )?;
        worker::unregister(&self.key, id, None);
        self.started.borrow_mut().remove(&id);
        if n == 0 {
            return Err(StoreError::NotFound { what: "run", id: id.to_string() });
        }
        Ok(())
    }

    /// Replaces a run's parameters JSON (e.g. to record settings only known after loading the model).
    pub fn set_run_params(&self, id: RunId, params_json: &serde_json::Value) -> Result<()> {
        let n = self
            .conn
            .execute("UPDATE runs SET params = ?2 WHERE id = ?1", params![id, serde_json::to_string(params_json)?])?;
        if n == 0 {
            return Err(StoreError::NotFound { what: "run", id: id.to_string() });
        }
        Ok(())
    }

    /// Segment indices (0-based, ascending) of a run that have no stored output yet.
    pub fn missing_segments(&self, id: RunId) -> Result<Vec<i64>> {
        let total: i64 = self
            .conn
            .query_row("SELECT total_segments FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: "run", id: id.to_string() })?;
        let mut stmt = self.conn.prepare("SELECT segment_idx FROM outputs WHERE run_id = ?1 ORDER BY segment_idx")?;
        let done: std::collections::HashSet<i64> = stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok((0..total).filter(|i| !done.contains(i)).collect())
    }

    /// Prepares an unfinished run (queued, failed, cancelled or interrupted) to continue: marks it running in this
    /// process and returns the segments still to do. A `done` run is left alone and returns what it lacks (usually
    /// nothing). Refuses a run another live process is driving.
    pub fn resume_run(&self, id: RunId) -> Result<Vec<i64>> {
        let run = self.run(id)?;
        if run.status == RunStatus::Running {
            let w: Option<String> = self.conn.query_row("SELECT worker FROM runs WHERE id = ?1", [id], |r| r.get(0))?;
            if let Some(w) = w.filter(|w| worker::is_alive(w, &self.key, id)) {
                return Err(StoreError::Invalid(if *w == worker::current() {
                    format!("run {id} is still being written by this process; wait for it to finish or cancel it")
                } else {
                    format!("run {id} is being written by another process ({w})")
                }));
            }
        }
        if run.status != RunStatus::Done {
            self.start_run(id)?;
        }
        self.missing_segments(id)
    }

    /// Marks runs left `running` by a process that no longer exists as `failed` with an error starting
    /// `interrupted:` and saying how many segments were done. Called by `open`; returns the ids it changed.
    /// Their outputs stay; `resume_run` continues them.
    pub fn recover_interrupted_runs(&self) -> Result<Vec<RunId>> {
        let mut stmt = self.conn.prepare("SELECT id, worker FROM runs WHERE status = 'running'")?;
        let running: Vec<(RunId, Option<String>)> =
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        let mut recovered = Vec::new();
        for (id, w) in running {
            if w.as_deref().is_some_and(|w| worker::is_alive(w, &self.key, id)) {
                continue;
            }
            let run = self.run(id)?;
            let msg = format!(
                "interrupted: the process writing this run ({}) stopped; {} of {} segments were saved",
                w.as_deref().unwrap_or("unknown"),
                run.completed_segments,
                run.total_segments
            );
            // Only touch it if still running with the same worker, in case it was resumed meanwhile.
            let n = self.conn.execute(
                &format!(
                    "UPDATE runs SET status = 'failed', error = ?2, worker = NULL, finished_at = {NOW}
                     WHERE id = ?1 AND status = 'running' AND worker IS ?3"
                ),
                params![id, msg, w],
            )?;
            if n > 0 {
                recovered.push(id);
            }
        }
        Ok(recovered)
    }

    /// Deletes a run with its outputs, metric results and judgments.
    pub fn delete_run(&self, id: RunId) -> Result<()> {
        if self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])? == 0 {
            return Err(StoreError::NotFound { what: "run", id: id.to_string() });
        }
        Ok(())
    }
}
