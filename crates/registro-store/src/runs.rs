//! Runs: one execution of a system (translate, rewrite, import of a system's output file, eval) over a document
//! or ad-hoc segments, with its life cycle and crash recovery.

use rusqlite::{params, OptionalExtension, Row, ToSql};
use serde::{Deserialize, Serialize};

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

/// What the Dashboard's runs table asks for: [`RunFilter`]'s conditions, the narrowing a user types, an order and
/// a page.
#[derive(Clone, Debug, Default)]
pub struct RunPageQuery {
    pub filter: RunFilter,
    pub narrowing: RunNarrowing,
    pub sort: RunSort,
    pub ascending: bool,
    pub offset: i64,
    pub limit: i64,
}

/// Conditions beyond [`RunFilter`]'s that the runs table offers.
#[derive(Clone, Debug, Default)]
pub struct RunNarrowing {
    /// Runs with this source language, or with none recorded.
    pub source_lang: Option<String>,
    /// Substring of the system name or the model id, ignoring ASCII case (SQLite's `lower`).
    pub text: Option<String>,
    /// `created_at` on or after / on or before these ISO strings (compared as text, as they are stored).
    pub created_from: Option<String>,
    pub created_to: Option<String>,
}

/// The column a runs table is ordered by (ties by id, in the same direction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunSort {
    #[default]
    Id,
    System,
    Task,
    Pair,
    Register,
    Model,
    Created,
}

impl RunSort {
    /// SQL columns of `runs r`; a closed set, so nothing from the page reaches the statement text.
    fn columns(self) -> &'static [&'static str] {
        match self {
            RunSort::Id => &["r.id"],
            RunSort::System => &["r.system COLLATE registro_natural"],
            RunSort::Task => &["r.task"],
            RunSort::Pair => &["r.source_lang", "r.target_lang"],
            RunSort::Register => &["r.register"],
            RunSort::Model => &["r.model_id COLLATE registro_natural"],
            RunSort::Created => &["r.created_at"],
        }
    }
}

/// The collation [`RunSort`] orders names with, registered on every connection the store opens.
pub(crate) const NATURAL: &str = "registro_natural";

/// Names as people read them: runs of digits compare by their value (system-9 < system-32 < system-319), the rest
/// character by character; names equal that way fall back to plain order, so the order is total.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i].is_ascii_digit() && y[j].is_ascii_digit() {
            let (si, sj) = (i, j);
            while i < x.len() && x[i].is_ascii_digit() {
                i += 1;
            }
            while j < y.len() && y[j].is_ascii_digit() {
                j += 1;
            }
            // Without leading zeros, a longer run is a larger number; equal lengths compare digit by digit.
            let trim = |d: &[u8]| -> usize { d.iter().take_while(|c| **c == b'0').count() };
            let (dx, dy) = (&x[si..i], &y[sj..j]);
            let (dx, dy) = (&dx[trim(dx)..], &dy[trim(dy)..]);
            let o = dx.len().cmp(&dy.len()).then_with(|| dx.cmp(dy));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            // Byte order of UTF-8 is code point order, so multi-byte characters need no decoding here.
            match x[i].cmp(&y[j]) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                o => return o,
            }
        }
    }
    (x.len() - i).cmp(&(y.len() - j)).then_with(|| a.cmp(b))
}

/// ` WHERE …` (or nothing) over `runs r` for `filter` and `more`, with its numbered arguments.
fn where_clause(filter: &RunFilter, more: &RunNarrowing) -> (String, Vec<Box<dyn ToSql>>) {
    let mut clauses = Vec::new();
    let mut args: Vec<Box<dyn ToSql>> = Vec::new();
    fn arg<T: ToSql + 'static>(v: T) -> Box<dyn ToSql> {
        Box::new(v)
    }
    // Each condition that is set, with the value its `?` stands for.
    let conditions: [(&str, Option<Box<dyn ToSql>>); 11] = [
        ("r.project_id = ?", filter.project_id.map(arg)),
        ("r.document_id = ?", filter.document_id.map(arg)),
        ("r.task = ?", filter.task.map(|t| arg(t.as_str()))),
        ("r.status = ?", filter.status.map(|s| arg(s.as_str()))),
        ("instr(r.system, ?) > 0", filter.system.clone().map(arg)),
        ("r.target_lang = ?", filter.target_lang.clone().map(arg)),
        ("r.register = ?", filter.register.clone().map(arg)),
        ("(r.source_lang IS NULL OR r.source_lang = ?)", more.source_lang.clone().map(arg)),
        (
            "(instr(lower(r.system), ?) > 0 OR instr(lower(coalesce(r.model_id, '')), ?) > 0)",
            more.text.as_ref().map(|t| arg(t.to_lowercase())),
        ),
        ("r.created_at >= ?", more.created_from.clone().map(arg)),
        ("r.created_at <= ?", more.created_to.clone().map(arg)),
    ];
    for (clause, v) in conditions {
        if let Some(v) = v {
            args.push(v);
            clauses.push(clause.replace('?', &format!("?{}", args.len())));
        }
    }
    let sql = if clauses.is_empty() { String::new() } else { format!(" WHERE {}", clauses.join(" AND ")) };
    (sql, args)
}

impl Store {
    /// Records a new run in state `queued`. With a document, the run covers all its segments and must belong to the
    /// same project; without one, `total_segments` says how many outputs to expect.
    pub fn create_run(&self, new: &NewRun) -> Result<RunId> {
        let r = self.create_run_here(new);
        r.map_err(|e| self.located(e, None))
    }

    fn create_run_here(&self, new: &NewRun) -> Result<RunId> {
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
        self.row_by_id(&format!("{SELECT} WHERE r.id = ?1"), id, "run", from_row)
    }

    /// Runs matching `filter`, newest first.
    pub fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>> {
        let (where_sql, args) = where_clause(filter, &RunNarrowing::default());
        let mut sql = format!("{SELECT}{where_sql} ORDER BY r.id DESC");
        if let Some(l) = filter.limit {
            sql += &format!(" LIMIT {}", l.max(0));
        }
        let refs: Vec<&dyn ToSql> = args.iter().map(|b| b.as_ref()).collect();
        self.rows(&sql, refs.as_slice(), from_row)
    }

    /// One page of the runs matching `q` in its order, and how many match in all. Filtering, ordering and
    /// paging happen in SQL, so a page of a store with tens of thousands of runs reads only its rows (the outputs
    /// of each are counted for the page alone). `filter.limit` is ignored: `q.limit` is the page size.
    pub fn page_runs(&self, q: &RunPageQuery) -> Result<(Vec<Run>, i64)> {
        let (where_sql, args) = where_clause(&q.filter, &q.narrowing);
        let refs: Vec<&dyn ToSql> = args.iter().map(|b| b.as_ref()).collect();
        let total: i64 = self.conn.query_row(&format!("SELECT count(*) FROM runs r{where_sql}"), refs.as_slice(), |r| r.get(0))?;
        let dir = if q.ascending { "ASC" } else { "DESC" };
        let order = q.sort.columns().iter().map(|c| format!("{c} {dir}")).collect::<Vec<_>>().join(", ");
        // The page's ids first, then their rows: the outputs count is a subquery per row, which must not run for
        // every matching run before the sort.
        let sql = format!(
            "{SELECT} JOIN (SELECT r.id AS page_id FROM runs r{where_sql} ORDER BY {order}, r.id {dir} LIMIT {} OFFSET {}) page
               ON page.page_id = r.id ORDER BY {order}, r.id {dir}",
            q.limit.max(0),
            q.offset.max(0)
        );
        Ok((self.rows(&sql, refs.as_slice(), from_row)?, total))
    }

    /// Marks a run as running in this process (records the worker so a crash can be detected later).
    pub fn start_run(&self, id: RunId) -> Result<()> {
        let r = self.start_run_here(id);
        r.map_err(|e| self.located(e, Some(id)))
    }

    fn start_run_here(&self, id: RunId) -> Result<()> {
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
        let r = self.finish_run_here(id, status, error);
        r.map_err(|e| self.located(e, Some(id)))
    }

    fn finish_run_here(&self, id: RunId, status: RunStatus, error: Option<&str>) -> Result<()> {
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
        let r = self.set_run_params_here(id, params_json);
        r.map_err(|e| self.located(e, Some(id)))
    }

    fn set_run_params_here(&self, id: RunId, params_json: &serde_json::Value) -> Result<()> {
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
        /// More missing segments than any document Registro imports could have (its importers stop far earlier).
        const MAX_MISSING: i64 = 1 << 24;
        let total: i64 = self
            .conn
            .query_row("SELECT total_segments FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: "run", id: id.to_string() })?;
        let mut stmt = self.conn.prepare("SELECT segment_idx FROM outputs WHERE run_id = ?1 ORDER BY segment_idx")?;
        let done: std::collections::HashSet<i64> = stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
        // A damaged or hostile file may claim any count: listing 10^12 missing segments would exhaust memory.
        if total > done.len() as i64 + MAX_MISSING {
            return Err(StoreError::Invalid(format!(
                "run {id} claims {total} segments with {} stored: the store file is damaged (restore it from a backup)",
                done.len()
            )));
        }
        Ok((0..total).filter(|i| !done.contains(i)).collect())
    }

    /// Prepares an unfinished run (queued, failed, cancelled or interrupted) to continue: marks it running in this
    /// process and returns the segments still to do. A `done` run is left alone and returns what it lacks (usually
    /// nothing). Refuses a run another live process is driving.
    pub fn resume_run(&self, id: RunId) -> Result<Vec<i64>> {
        let r = self.resume_run_here(id);
        r.map_err(|e| self.located(e, Some(id)))
    }

    fn resume_run_here(&self, id: RunId) -> Result<Vec<i64>> {
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
        let r = self.recover_interrupted_runs_here();
        r.map_err(|e| self.located(e, None))
    }

    fn recover_interrupted_runs_here(&self) -> Result<Vec<RunId>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Task;

    /// 250 runs: systems `sys-000` … `sys-249`, every third on `Sys-Alpha` (a model id, mixed case), every other
    /// one formal; the outputs of run k number k % 4.
    fn store() -> Store {
        let mut s = Store::open_in_memory().unwrap();
        let p = s.create_project("shared task").unwrap();
        for k in 0..250 {
            let mut r = NewRun::new(p.id, if k % 5 == 0 { Task::Rewrite } else { Task::Eval }, format!("sys-{k:03}"));
            r.total_segments = Some(4);
            r.source_lang = Some("en".into());
            r.target_lang = Some(if k % 2 == 0 { "de" } else { "fr" }.into());
            r.register = Some(if k % 2 == 0 { "formal" } else { "informal" }.into());
            r.model_id = (k % 3 == 0).then(|| "Sys-Alpha".to_string());
            let id = s.create_run(&r).unwrap();
            let outs: Vec<_> = (0..k % 4).map(|i| crate::Output::new(i, "x")).collect();
            s.put_outputs(id, &outs).unwrap();
        }
        s
    }

    /// The System column sorts as people read numbers (the Dashboard listed system-32 after system-319).
    #[test]
    fn systems_sort_by_the_numbers_in_their_names() {
        let s = Store::open_in_memory().unwrap();
        let p = s.create_project("shared task").unwrap();
        for name in ["system-319", "system-32", "system-4", "system-040", "System-5", "system-32b", "sys"] {
            let mut r = NewRun::new(p.id, Task::Eval, name);
            r.total_segments = Some(1);
            s.create_run(&r).unwrap();
        }
        let q = RunPageQuery { sort: RunSort::System, ascending: true, limit: 100, ..Default::default() };
        let (rows, _) = s.page_runs(&q).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.system.as_str()).collect();
        assert_eq!(names, ["System-5", "sys", "system-4", "system-32", "system-32b", "system-040", "system-319"]);
        assert_eq!(natural_cmp("a01", "a1"), std::cmp::Ordering::Less, "equal numbers fall back to plain order");
        assert_eq!(natural_cmp("ß2", "ß10"), std::cmp::Ordering::Less);
    }

    #[test]
    fn a_page_holds_its_rows_in_order_with_the_total_of_all_matches() {
        let s = store();
        let q = RunPageQuery { limit: 100, offset: 100, ..Default::default() };
        let (rows, total) = s.page_runs(&q).unwrap();
        assert_eq!(total, 250);
        let systems: Vec<_> = rows.iter().map(|r| r.system.as_str()).collect();
        assert_eq!(systems.len(), 100);
        assert_eq!((systems[0], systems[99]), ("sys-149", "sys-050"), "newest first, the second hundred");
        assert!(rows.iter().all(|r| r.completed_segments == r.system[4..].parse::<i64>().unwrap() % 4), "each row counts its own outputs");
        let (last, _) = s.page_runs(&RunPageQuery { limit: 100, offset: 200, ..Default::default() }).unwrap();
        assert_eq!(last.len(), 50, "the last page is short");
        let (past, total) = s.page_runs(&RunPageQuery { limit: 100, offset: 1000, ..Default::default() }).unwrap();
        assert!(past.is_empty());
        assert_eq!(total, 250, "the total does not depend on the page");
    }

    #[test]
    fn filters_narrow_the_total_and_the_order_follows_the_chosen_column() {
        let s = store();
        let q = RunPageQuery {
            filter: RunFilter { task: Some(Task::Eval), register: Some("formal".into()), ..Default::default() },
            narrowing: RunNarrowing { text: Some("SYS-alpha".into()), source_lang: Some("en".into()), ..Default::default() },
            sort: RunSort::System,
            ascending: true,
            limit: 5,
            offset: 0,
        };
        let (rows, total) = s.page_runs(&q).unwrap();
        // Even k, k % 3 == 0, k % 5 != 0: multiples of 6 in 0..250 (42) minus those of 30 (9).
        assert_eq!(total, 33);
        assert_eq!(rows.iter().map(|r| r.system.as_str()).collect::<Vec<_>>(), ["sys-006", "sys-012", "sys-018", "sys-024", "sys-036"]);
        let none = RunPageQuery { narrowing: RunNarrowing { text: Some("no such system".into()), ..Default::default() }, limit: 10, ..Default::default() };
        let (rows, total) = s.page_runs(&none).unwrap();
        assert!(rows.is_empty() && total == 0);
        // A quote or a percent sign in what the user typed is text, not SQL.
        let odd = RunPageQuery { narrowing: RunNarrowing { text: Some("'; DROP TABLE runs; --%".into()), ..Default::default() }, limit: 10, ..Default::default() };
        assert_eq!(s.page_runs(&odd).unwrap().1, 0);
        assert_eq!(s.list_runs(&RunFilter::default()).unwrap().len(), 250);
    }
}
