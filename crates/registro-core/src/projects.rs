//! Projects, documents and runs: the use cases the app's commands and the CLI share. Thin on purpose; the rules
//! live in `registro-store` (schema, transactions, import validation).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

pub use registro_store::export::ExportFormat;
pub use registro_store::import::{Format, ImportOptions};
use registro_store::{
    Document, DocumentId, MetricResult, NewRun, Output, Project, ProjectId, Run, RunFilter, RunId, RunStatus, Store,
    Task,
};

use crate::progress::{CancelToken, Progress, ProgressFn};

/// Opens the store at `db`, else `REGISTRO_DB`, else the platform data dir.
pub fn open_store(db: Option<&Path>) -> Result<Store> {
    let store = Store::open_or_default(db)?;
    Ok(store)
}

pub fn create_project(store: &Store, name: &str) -> Result<Project> {
    Ok(store.create_project(name)?)
}

/// The project called `name` (or with that id), created when there is none — what every use case that stores a
/// run under a project name does. Only "not found" creates: a store error is reported, not papered over.
pub fn find_or_create_project(store: &Store, name: &str) -> Result<Project> {
    Ok(store.find_or_create_project(name)?)
}

pub fn list_projects(store: &Store) -> Result<Vec<Project>> {
    Ok(store.list_projects()?)
}

/// A project by name, or by id when the key is all digits.
pub fn find_project(store: &Store, name_or_id: &str) -> Result<Project> {
    Ok(store.find_project(name_or_id)?)
}

/// Deletes a project and everything in it (documents, runs, outputs, metrics, judgments).
pub fn delete_project(store: &Store, id: ProjectId) -> Result<()> {
    Ok(store.delete_project(id)?)
}

/// What an import did.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ImportSummary {
    pub project: Project,
    pub documents: Vec<Document>,
    /// Files in an imported folder that were neither a source nor a reference (e.g. system outputs).
    pub ignored: Vec<String>,
    pub segments: i64,
}

/// Parses `path` (file or paired folder) fully, then stores every document it yields in one transaction.
/// Progress goes from parsing to inserting; cancelling before the commit leaves the store untouched.
pub fn import_path(
    store: &mut Store,
    project: ProjectId,
    path: &Path,
    opts: &ImportOptions,
    progress: ProgressFn,
    cancel: &CancelToken,
) -> Result<ImportSummary> {
    let project_row = store.project(project)?;
    progress(Progress { done: 0, total: 1, message: format!("reading {}", path.display()) });
    // A translator's file (DOCX, XLIFF, …) is kept whole with its sentences, so it can be exported back.
    if opts.format.is_none() && path.is_file() && registro_formats::Format::from_path(path).is_some() {
        let source_lang = opts.source_lang.as_deref().unwrap_or("en");
        let imported = crate::documents::open(path, None, source_lang)?;
        if cancel.is_cancelled() {
            anyhow::bail!("import cancelled; nothing was imported");
        }
        let id = crate::documents::store_imported(store, project, &imported, opts.target_lang.as_deref())?;
        let document = store.document(id)?;
        progress(Progress { done: 1, total: 1, message: format!("stored {} sentences", document.segments) });
        return Ok(ImportSummary {
            segments: document.segments,
            project: store.project(project_row.id)?,
            documents: vec![document],
            ignored: Vec::new(),
        });
    }
    let parsed = registro_store::import::parse_path(path, opts)?;
    if cancel.is_cancelled() {
        anyhow::bail!("import cancelled; nothing was imported");
    }
    let total = parsed.documents.len() as u64;
    let ids = store.insert_documents(project, &parsed.documents, Some(cancel.flag()), &mut |done, _| {
        progress(Progress { done: done as u64, total, message: format!("stored {done} of {total} documents") })
    })?;
    let documents = ids.into_iter().map(|id| store.document(id)).collect::<Result<Vec<_>, _>>()?;
    Ok(ImportSummary {
        segments: documents.iter().map(|d| d.segments).sum(),
        project: store.project(project_row.id)?,
        documents,
        ignored: parsed.ignored.iter().map(|p| p.display().to_string()).collect(),
    })
}

/// Stores text typed or pasted in the app as a document (one segment per non-blank line).
pub fn import_text(store: &mut Store, project: ProjectId, name: &str, text: &str, lang: &str) -> Result<Document> {
    let doc = registro_store::import::document_from_text(name, text, lang);
    anyhow::ensure!(!doc.segments.is_empty(), "the text is empty: nothing to import");
    let id = store.insert_document(project, &doc)?;
    Ok(store.document(id)?)
}

pub fn list_documents(store: &Store, project: ProjectId) -> Result<Vec<Document>> {
    Ok(store.list_documents(project)?)
}

pub fn delete_document(store: &Store, id: DocumentId) -> Result<()> {
    Ok(store.delete_document(id)?)
}

/// A segment with its references, as the UI lists it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct SegmentRow {
    pub index: i64,
    pub text: String,
    pub lang: String,
    /// reference name → text
    pub references: BTreeMap<String, String>,
}

/// Segments `offset..offset+limit` of a document with their references.
pub fn document_segments(store: &Store, doc: DocumentId, offset: i64, limit: i64) -> Result<Vec<SegmentRow>> {
    let segments = store.segments_page(doc, offset, limit)?;
    let mut refs: BTreeMap<i64, BTreeMap<String, String>> = BTreeMap::new();
    if let (Some(first), Some(last)) = (segments.first(), segments.last()) {
        for r in store.references(doc)? {
            if (first.index..=last.index).contains(&r.segment_index) {
                refs.entry(r.segment_index).or_default().insert(r.name, r.text);
            }
        }
    }
    Ok(segments
        .into_iter()
        .map(|s| SegmentRow { references: refs.remove(&s.index).unwrap_or_default(), index: s.index, text: s.text, lang: s.lang })
        .collect())
}

pub fn list_runs(store: &Store, filter: &RunFilter) -> Result<Vec<Run>> {
    Ok(store.list_runs(filter)?)
}

/// A run with everything `runs show` and the app's run view display.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct RunDetail {
    pub run: Run,
    pub document: Option<Document>,
    pub missing_segments: Vec<i64>,
    /// Why the missing segments cannot be produced by `registro runs resume`, if they cannot.
    pub resume_blocker: Option<String>,
    pub corpus_metrics: Vec<MetricResult>,
}

pub fn get_run(store: &Store, id: RunId) -> Result<RunDetail> {
    let run = store.run(id)?;
    Ok(RunDetail {
        document: run.document_id.map(|d| store.document(d)).transpose()?,
        missing_segments: store.missing_segments(id)?,
        resume_blocker: crate::resume::resume_blocker(&run),
        corpus_metrics: store.corpus_metrics(id)?,
        run,
    })
}

pub fn run_outputs(store: &Store, id: RunId) -> Result<Vec<Output>> {
    Ok(store.outputs(id)?)
}

pub fn delete_run(store: &Store, id: RunId) -> Result<()> {
    Ok(store.delete_run(id)?)
}

/// Writes a run as TSV or JSONL to `out` (a file path) or stdout when `None`; returns the rows written.
pub fn export_run(store: &Store, id: RunId, format: ExportFormat, out: Option<&Path>) -> Result<usize> {
    match out {
        Some(path) => {
            let file = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
            let mut w = std::io::BufWriter::new(file);
            Ok(registro_store::export::export_run(store, id, format, &mut w)?)
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            Ok(registro_store::export::export_run(store, id, format, &mut lock)?)
        }
    }
}

/// Stores an existing system output file (one line per segment of `document`, e.g. an IWSLT submission) as a
/// finished run of task `import`, so it can be scored and compared like runs Registro produced itself.
pub fn import_run_outputs(
    store: &mut Store,
    document: DocumentId,
    path: &Path,
    system: &str,
    register: Option<&str>,
) -> Result<Run> {
    let doc = store.document(document)?;
    let lines = registro_store::import::lines::read_lines(path)?;
    anyhow::ensure!(
        lines.len() as i64 == doc.segments,
        "line counts differ: {} has {} lines but document {:?} has {} segments",
        path.display(),
        lines.len(),
        doc.name,
        doc.segments
    );
    let mut new = NewRun::new(doc.project_id, Task::Import, system);
    new.document_id = Some(document);
    new.source_lang = Some(doc.source_lang.clone());
    new.target_lang = doc.target_lang.clone();
    new.register = register.map(str::to_string);
    new.params = serde_json::json!({ "file": path.display().to_string() });
    let id = store.create_run(&new)?;
    let outputs: Vec<Output> = lines.into_iter().enumerate().map(|(i, t)| Output::new(i as i64, t)).collect();
    if let Err(e) = store.put_outputs(id, &outputs) {
        // Nothing of a failed import should stay behind.
        let _ = store.delete_run(id);
        return Err(e.into());
    }
    store.finish_run(id, RunStatus::Done, None)?;
    crate::report::store_run_statistics(store, &[id], &crate::progress::CancelToken::new(), &mut |_| {});
    Ok(store.run(id)?)
}

// Where a run panics, its lifecycle ends it: `registro_run::run_state` owns both rules.
pub use registro_run::run_state::{catch_run_panic, crash_message};

/// Resolves a path relative to the current directory for messages and origins.
pub fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
