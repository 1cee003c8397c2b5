//! Listing stored runs for the Dashboard's run picker, filtered by project, task, language pair, register,
//! model and date.

use std::collections::HashMap;

use anyhow::Result;
use registro_store::{Run, RunFilter, RunStatus, Store, Task};
use serde::{Deserialize, Serialize};

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
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct RunSummary {
    #[serde(flatten)]
    pub run: Run,
    pub project: String,
    pub document: Option<String>,
}

pub fn list_runs(store: &Store, q: &RunQuery) -> Result<Vec<RunSummary>> {
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
    let filter = RunFilter {
        project_id: project.as_ref().map(|p| p.id),
        task: q.task,
        status: if q.include_unfinished { None } else { Some(RunStatus::Done) },
        target_lang: tgt,
        register: q.register.clone().filter(|r| !r.is_empty()),
        ..Default::default()
    };
    let model = q.model.as_deref().map(str::to_lowercase).filter(|m| !m.is_empty());
    let until = q.until.as_deref().map(|u| if u.len() == 10 { format!("{u}T99") } else { u.to_string() });
    let mut projects: HashMap<i64, String> = HashMap::new();
    let mut documents: HashMap<i64, String> = HashMap::new();
    let mut out = Vec::new();
    for run in store.list_runs(&filter)? {
        if let Some(s) = &src {
            if run.source_lang.as_deref().is_some_and(|l| l != s) {
                continue;
            }
        }
        if let Some(m) = &model {
            let hit = run.system.to_lowercase().contains(m) || run.model_id.as_deref().is_some_and(|x| x.to_lowercase().contains(m));
            if !hit {
                continue;
            }
        }
        if q.since.as_deref().is_some_and(|s| run.created_at.as_str() < s) {
            continue;
        }
        if until.as_deref().is_some_and(|u| run.created_at.as_str() > u) {
            continue;
        }
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
        out.push(RunSummary { project: projects[&run.project_id].clone(), document, run });
    }
    Ok(out)
}
