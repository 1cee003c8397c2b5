//! What a run is doing, in one model every face renders the same way (issue 44, "state that never lies"): a run
//! is *starting* (saying what it is doing: loading the model, computing the prompt prefix), *running* with n of m
//! segments stored, *cancelled* with n of m, *failed* with the reason and n of m, or *done*. A stored run's state
//! comes from its row ([`RunState::of_run`]); a run being produced or resumed reports its state as it changes
//! ([`RunState::starting`], [`RunState::running`]), so a list showing it never says "cancelled 3/9" while it is
//! being finished. The words (`label`) are written here once, so the Translate, Rewrite and Documents views, and
//! the CLI, say the same thing.

use anyhow::{Context, Result};
use registro_store::{Run, RunId, RunStatus, Store, Task};
use serde::Serialize;

/// The phase of a run's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunPhase {
    /// Nothing new stored yet: loading the model, computing the prompt prefix, waiting to start.
    Starting,
    /// Segments are being stored.
    Running,
    /// Stopped by the user with `done` of `total` segments stored.
    Cancelled,
    /// Stopped by an error (or by the process that wrote it stopping), with `done` of `total` stored.
    Failed,
    /// Every segment is stored.
    Done,
}

/// A run's state as every face shows it.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct RunState {
    pub run_id: RunId,
    pub phase: RunPhase,
    /// Segments stored.
    pub done: u64,
    /// Segments the run has.
    pub total: u64,
    /// What a starting or running run is doing now ("loading the model …", "computing the prompt prefix",
    /// "segment 4").
    pub doing: Option<String>,
    /// Why a failed run stopped.
    pub reason: Option<String>,
    /// Whether Resume can finish it: it stopped before its last segment and it can be resumed.
    pub resumable: bool,
    /// The words shown: "starting: loading the model …", "running 3/9", "cancelled 3/9", "failed 3/9: …",
    /// "done 9/9".
    pub label: String,
}

impl RunState {
    fn new(run_id: RunId, phase: RunPhase, done: u64, total: u64, doing: Option<String>, reason: Option<String>, resumable: bool) -> RunState {
        let n = format!("{done}/{total}");
        let label = match phase {
            RunPhase::Starting => match &doing {
                Some(d) if done > 0 => format!("starting ({n} stored): {d}"),
                Some(d) => format!("starting: {d}"),
                None => "starting".to_string(),
            },
            RunPhase::Running => format!("running {n}"),
            RunPhase::Cancelled => format!("cancelled {n}"),
            RunPhase::Failed => match &reason {
                Some(r) => format!("failed {n}: {r}"),
                None => format!("failed {n}"),
            },
            RunPhase::Done => format!("done {n}"),
        };
        RunState { run_id, phase, done, total, doing, reason, resumable, label }
    }

    /// The state of a stored run as its row says. A `running` row is one being written now (the store marks a
    /// run whose writer died `failed`, "interrupted", when it is opened); a `queued` one has not started.
    pub fn of_run(run: &Run) -> RunState {
        let done = run.completed_segments.max(0) as u64;
        let total = run.total_segments.max(0) as u64;
        let stopped_early = done < total || total == 0;
        let resumable = |run: &Run| stopped_early && matches!(run.task, Task::Rewrite | Task::Translate) && resume_blocker(run).is_none();
        match run.status {
            RunStatus::Queued => RunState::new(run.id, RunPhase::Starting, done, total, Some("queued".into()), None, false),
            RunStatus::Running if done == 0 => RunState::new(run.id, RunPhase::Starting, done, total, None, None, false),
            RunStatus::Running => RunState::new(run.id, RunPhase::Running, done, total, None, None, false),
            RunStatus::Cancelled => RunState::new(run.id, RunPhase::Cancelled, done, total, None, None, resumable(run)),
            RunStatus::Failed => {
                let reason = run.error.clone().filter(|e| !e.trim().is_empty());
                RunState::new(run.id, RunPhase::Failed, done, total, None, reason, resumable(run))
            }
            // A run marked done with segments missing (a split left two halves to translate) is not finished.
            RunStatus::Done if done < total => {
                RunState::new(run.id, RunPhase::Cancelled, done, total, None, None, resumable(run))
            }
            RunStatus::Done => RunState::new(run.id, RunPhase::Done, done, total, None, None, false),
        }
    }

    /// A run being started or resumed that has stored `done` of `total` segments and is doing `doing` before it
    /// stores the next one (loading the model, computing the prompt prefix).
    pub fn starting(run_id: RunId, done: u64, total: u64, doing: impl Into<String>) -> RunState {
        RunState::new(run_id, RunPhase::Starting, done, total, Some(doing.into()), None, false)
    }

    /// A run storing its segments: `done` of `total` are stored, the last being `doing` ("segment 4").
    pub fn running(run_id: RunId, done: u64, total: u64, doing: impl Into<String>) -> RunState {
        RunState::new(run_id, RunPhase::Running, done, total, Some(doing.into()), None, false)
    }

    /// Whether the run stopped before its last segment (cancelled or failed, or done with segments missing).
    pub fn incomplete(&self) -> bool {
        self.done < self.total || matches!(self.phase, RunPhase::Cancelled | RunPhase::Failed)
    }
}

/// A run as the runs lists show it: the stored row, its state and the name of its document.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct RunRow {
    #[serde(flatten)]
    pub run: Run,
    pub state: RunState,
    /// The name of the document the run was made over (`None` for pasted text and eval runs).
    pub document_name: Option<String>,
}

/// The runs `filter` selects, newest first, each with its state and document name.
pub fn run_rows(store: &registro_store::Store, filter: &registro_store::RunFilter) -> anyhow::Result<Vec<RunRow>> {
    let runs = store.list_runs(filter)?;
    let mut names: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
    if let Some(project) = filter.project_id {
        for d in store.list_documents(project)? {
            names.insert(d.id, d.name);
        }
    }
    let mut rows = Vec::with_capacity(runs.len());
    for run in runs {
        let document_name = match run.document_id {
            None => None,
            Some(d) => match names.get(&d) {
                Some(n) => Some(n.clone()),
                None => store.document(d).ok().map(|d| d.name),
            },
        };
        rows.push(RunRow { state: RunState::of_run(&run), document_name, run });
    }
    Ok(rows)
}

/// Why `run` cannot be resumed, or `None` when it can (its missing segments may still be none).
pub fn resume_blocker(run: &Run) -> Option<String> {
    match run.task {
        Task::Rewrite | Task::Translate => {}
        Task::Eval | Task::Import => {
            return Some(format!("{} runs are stored in one step, not segment by segment: run it again", run.task))
        }
    }
    if run.document_id.is_none() {
        return Some("its input was not a stored document, so its source text was not kept: run it again".into());
    }
    if run.task == Task::Rewrite && run.params.get("request").is_none() && run.params.get("scorer_choice").is_none() {
        return Some("it was stored before Registro recorded its formality scorer: run it again".into());
    }
    None
}

/// Runs `body`, the execution of run `id` (already started), so that a panic inside it cannot leave the run
/// `running`: the run ends `failed` with the panic's message and the caller gets an error instead of the panic
/// (the app stays up; the segments stored so far stay). A body that returns normally has finished the run itself.
pub fn catch_run_panic<T>(store: &mut Store, id: RunId, body: impl FnOnce(&mut Store) -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *store))) {
        Ok(result) => result,
        Err(payload) => {
            let error = crash_message(payload.as_ref());
            store.finish_run(id, RunStatus::Failed, Some(&error)).with_context(|| format!("run {id} {error}"))?;
            anyhow::bail!("run {id} {error}")
        }
    }
}

/// What a run's error says when its execution panicked (`payload` from `catch_unwind`).
pub fn crash_message(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("crashed: {message} (an internal error in Registro; the segments saved so far are kept)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: RunStatus, done: i64, total: i64, error: Option<&str>) -> Run {
        Run {
            id: 7,
            project_id: 1,
            document_id: Some(3),
            task: Task::Translate,
            system: "registro-prompt".into(),
            model_id: Some("m".into()),
            model_sha256: None,
            params: serde_json::json!({}),
            source_lang: Some("en".into()),
            target_lang: Some("de".into()),
            register: Some("formal".into()),
            status,
            error: error.map(str::to_string),
            total_segments: total,
            completed_segments: done,
            created_at: String::new(),
            started_at: None,
            finished_at: None,
        }
    }

    #[test]
    fn every_stored_status_has_one_state_and_its_words() {
        let s = RunState::of_run(&run(RunStatus::Cancelled, 3, 9, None));
        assert_eq!((s.phase, s.label.as_str(), s.resumable), (RunPhase::Cancelled, "cancelled 3/9", true));
        let s = RunState::of_run(&run(RunStatus::Failed, 2, 9, Some("interrupted: the process stopped")));
        assert_eq!(s.label, "failed 2/9: interrupted: the process stopped");
        assert!(s.resumable && s.incomplete());
        let s = RunState::of_run(&run(RunStatus::Done, 9, 9, None));
        assert_eq!((s.phase, s.label.as_str(), s.resumable, s.incomplete()), (RunPhase::Done, "done 9/9", false, false));
        // A split left two halves untranslated: the run is not finished, whatever its row says.
        let s = RunState::of_run(&run(RunStatus::Done, 8, 9, None));
        assert!(s.incomplete() && s.resumable);
        assert_eq!(RunState::of_run(&run(RunStatus::Running, 0, 9, None)).phase, RunPhase::Starting);
        assert_eq!(RunState::of_run(&run(RunStatus::Running, 4, 9, None)).label, "running 4/9");
    }

    #[test]
    fn a_live_run_says_what_it_is_doing() {
        assert_eq!(RunState::starting(7, 0, 9, "loading the model m").label, "starting: loading the model m");
        assert_eq!(RunState::starting(7, 3, 9, "computing the prompt prefix").label, "starting (3/9 stored): computing the prompt prefix");
        assert_eq!(RunState::running(7, 4, 9, "segment 5").label, "running 4/9");
    }

    #[test]
    fn pasted_text_is_not_resumable() {
        let mut r = run(RunStatus::Cancelled, 3, 9, None);
        r.document_id = None;
        assert!(!RunState::of_run(&r).resumable);
    }
}
