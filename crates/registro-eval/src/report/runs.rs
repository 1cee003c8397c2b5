//! The Dashboard's runs table: one page of the stored runs, filtered by project, task, language pair, register,
//! model and date, in a chosen order, with the number of runs that match. Filtering, ordering and paging are the
//! store's query, so a page costs the same with ten runs or ten thousand.

use std::collections::HashMap;

use anyhow::Result;
use registro_store::{Run, RunFilter, RunNarrowing, RunPageQuery, RunSort, RunStatus, Store, Task};
use serde::{Deserialize, Serialize};

/// Rows per page when the query names none, and the most a page may hold.
pub const DEFAULT_PAGE: usize = 50;
pub const MAX_PAGE: usize = 500;

#[derive(Debug, Clone, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
#[serde(default)]
pub struct RunQuery {
    /// Project name or id.
    pub project: Option<String>,
    pub task: Option<Task>,
    /// `en-de` style pair, or just a target language (`de`).
    pub language_pair: Option<String>,
    pub register: Option<String>,
    /// Substring of the model id or the system name.
    pub model: Option<String>,
    /// ISO date or date-time; runs created on or after it.
    pub since: Option<String>,
    /// ISO date or date-time; runs created on or before it (a bare date includes that whole day).
    pub until: Option<String>,
    /// Only finished runs by default; `include_unfinished` lists running/failed ones too.
    #[ts(optional = nullable)]
    pub include_unfinished: bool,
    /// Order of the rows (newest first by default); ties go by id.
    pub sort: Option<RunSort>,
    #[ts(optional = nullable)]
    pub ascending: bool,
    /// First row of the page (0-based) and rows per page (0: [`DEFAULT_PAGE`]; at most [`MAX_PAGE`]).
    #[ts(optional = nullable)]
    pub offset: usize,
    #[ts(optional = nullable)]
    pub limit: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct RunSummary {
    #[serde(flatten)]
    pub run: Run,
    pub project: String,
    pub document: Option<String>,
}

/// One page of the runs table.
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct RunPage {
    pub runs: Vec<RunSummary>,
    /// Runs matching the query, on every page.
    pub total: usize,
    pub offset: usize,
    pub limit: usize,
}

pub fn list_runs(store: &Store, q: &RunQuery) -> Result<RunPage> {
    let project = match &q.project {
        Some(p) if !p.trim().is_empty() => Some(store.find_project(p.trim())?),
        _ => None,
    };
    let (src, tgt) = match q.language_pair.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(p) => match p.split_once('-') {
            Some((s, t)) => (Some(s.to_string()), Some(t.to_string())),
            None => (None, Some(p.to_string())),
        },
        None => (None, None),
    };
    let nonempty = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    let limit = if q.limit == 0 { DEFAULT_PAGE } else { q.limit.min(MAX_PAGE) };
    let query = RunPageQuery {
        filter: RunFilter {
            project_id: project.as_ref().map(|p| p.id),
            task: q.task,
            status: if q.include_unfinished { None } else { Some(RunStatus::Done) },
            target_lang: tgt,
            register: nonempty(&q.register),
            ..Default::default()
        },
        narrowing: RunNarrowing {
            source_lang: src,
            text: nonempty(&q.model),
            created_from: nonempty(&q.since),
            // Stored times are `YYYY-MM-DDTHH:…`: a bare date's whole day sorts before `YYYY-MM-DDT99`.
            created_to: nonempty(&q.until).map(|u| if u.len() == 10 { format!("{u}T99") } else { u }),
        },
        sort: q.sort.unwrap_or_default(),
        ascending: q.ascending,
        offset: i64::try_from(q.offset).unwrap_or(i64::MAX),
        limit: limit as i64,
    };
    let (page, total) = store.page_runs(&query)?;
    let mut projects: HashMap<i64, String> = HashMap::new();
    let mut documents: HashMap<i64, String> = HashMap::new();
    let mut runs = Vec::with_capacity(page.len());
    for run in page {
        if !projects.contains_key(&run.project_id) {
            projects.insert(run.project_id, store.project(run.project_id)?.name);
        }
        let document = match run.document_id {
            Some(d) => {
                if !documents.contains_key(&d) {
                    documents.insert(d, store.document(d)?.name);
                }
                documents.get(&d).cloned()
            }
            None => None,
        };
        runs.push(RunSummary { project: projects[&run.project_id].clone(), document, run });
    }
    Ok(RunPage { runs, total: total as usize, offset: q.offset, limit })
}
