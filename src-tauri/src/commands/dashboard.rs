//! The Dashboard view: list and filter runs (a page at a time), import a folder of submissions, compare N runs
//! (tables; each chart's SVG rendered when the page shows it), drill into segments, rate outputs blind, and
//! export. Each command is a call into `registro_core::report` (or `registro_core::eval` for the import), on
//! tokio's blocking pool so the window never waits on the store or a computation. The last prepared comparison is
//! kept here so changing the baseline, drilling down or summarising ratings does not recompute per-segment
//! statistics.

use std::sync::Mutex;

use registro_core::eval::{discover_submissions, run_eval_request, EvalRequest};
use registro_core::progress::Progress;
use registro_core::report::{
    self, CompareOptions, CompareRequest, Comparison, DrillOptions, DrillPage, HumanSummary, ImageFormat, Prepared, Rating,
    RatingItem, ReportFiles, RunPage, RunQuery, Table,
};
use registro_store::RunId;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use super::files;
use crate::error::{CmdError, CmdResult};
use crate::state::{blocking, AppState};

struct Loaded {
    runs: Vec<RunId>,
    reference: Option<String>,
    prep: Prepared,
    last: Option<Comparison>,
}

/// The comparison on screen. One at a time: the Dashboard shows one comparison.
static LOADED: Mutex<Option<Loaded>> = Mutex::new(None);

fn with_loaded<T>(f: impl FnOnce(&mut Loaded) -> CmdResult<T>) -> CmdResult<T> {
    let mut g = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    match g.as_mut() {
        Some(l) => f(l),
        None => Err(CmdError::msg("no comparison loaded: pick runs and press Compare first")),
    }
}

/// One page of the runs matching `query` (filter, order, offset and page size), with how many match in all.
#[tauri::command]
pub async fn dashboard_list_runs(app: AppHandle, query: Option<RunQuery>) -> CmdResult<RunPage> {
    let q = query.unwrap_or_default();
    blocking(app, move |state| state.with_store(|s| report::list_runs(s, &q))).await
}

/// What the Dashboard's forms start from: core's defaults for a comparison (resamples, test, seed, α) and for an
/// evaluation, so the window writes none of its own.
#[derive(serde::Serialize, ts_rs::TS)]
pub struct DashboardDefaults {
    pub compare: CompareOptions,
    pub eval: EvalRequest,
}

#[tauri::command(async)]
pub fn dashboard_defaults() -> DashboardDefaults {
    DashboardDefaults { compare: CompareOptions::default(), eval: EvalRequest::default() }
}

#[derive(serde::Serialize, ts_rs::TS)]
pub struct ImportOutcome {
    pub run_ids: Vec<RunId>,
    pub systems: Vec<String>,
    /// What the folder was scored with: the request as given, core's defaults where it left a field out.
    pub request: EvalRequest,
}

/// Imports every submission of the IWSLT/CoCoA-style folder the user picked (`folder`: its token) as scored runs
/// in `project` (the same code as `registro eval --submissions DIR`).
#[tauri::command]
pub async fn dashboard_import_submissions(
    app: AppHandle,
    folder: String,
    project: String,
    request: Option<EvalRequest>,
    op_id: String,
    on_progress: Channel<Progress>,
) -> CmdResult<ImportOutcome> {
    let request = request.unwrap_or_default();
    blocking(app, move |state| {
        let dir = state.files.redeem(&folder, files::SUBMISSIONS)?;
        let op = state.ops.start(&op_id);
        if !dir.is_dir() {
            return Err(CmdError::msg(format!("{} is not a folder", dir.display())));
        }
        let loaded = discover_submissions(&dir, None)?;
        let lang = loaded.lang.clone().unwrap_or_default();
        let mut store = state.open_store()?;
        let project = if project.trim().is_empty() { "submissions".to_string() } else { project.trim().to_string() };
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        // Core's request and defaults, as `registro eval --submissions DIR` (Japanese without its dictionary is an
        // error that names the fix, never a silent switch to another tokenizer).
        let outcome = run_eval_request(Some(&mut store), &project, &loaded, &lang, &request, &op.token, &mut progress)?;
        Ok(ImportOutcome { run_ids: outcome.run_ids, systems: loaded.systems.iter().map(|s| s.name.clone()).collect(), request })
    })
    .await
}

/// Compares `request.runs` against `request.baseline`; per-segment work is reused when the same runs are compared
/// again (another baseline, other bootstrap settings). Reports each system it prepares on `on_progress`;
/// `cancel_operation(op_id)` stops it between systems (the comparison on screen, if any, stays loaded).
#[tauri::command]
pub async fn dashboard_compare(
    app: AppHandle,
    request: CompareRequest,
    options: Option<CompareOptions>,
    op_id: String,
    on_progress: Channel<Progress>,
) -> CmdResult<Comparison> {
    let opts = options.unwrap_or_default();
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        let mut g = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        let reuse = g.as_ref().is_some_and(|l| l.runs == request.runs && l.reference == request.reference);
        if !reuse {
            let k = request.runs.len() as u64;
            progress(Progress { done: 0, total: k, message: format!("reading {k} runs") });
            let mut store = state.open_store()?;
            let data = report::load(&store, &request)?;
            let prep = report::prepare_stored_with(data, &mut store, op.token.flag(), &mut progress)?;
            *g = Some(Loaded { runs: request.runs.clone(), reference: request.reference.clone(), prep, last: None });
        }
        let l = g.as_mut().expect("just loaded");
        let base = match request.baseline {
            None => 0,
            Some(b) => l
                .prep
                .data
                .systems
                .iter()
                .position(|s| s.run.id == b)
                .ok_or_else(|| CmdError::msg(format!("baseline run {b} is not among the compared runs")))?,
        };
        l.prep.data.baseline = base;
        let k = l.prep.data.systems.len() as u64;
        progress(Progress { done: k, total: k, message: "tables and significance".into() });
        let cmp = report::compare_with(&l.prep, &opts, op.token.flag())?;
        // What this comparison computed is kept for the next opening; failing to keep it costs only that.
        if let Ok(mut store) = state.open_store() {
            let _ = report::store_computed(&l.prep, &mut store);
        }
        l.last = Some(cmp.clone());
        Ok(cmp)
    })
    .await
}

/// Builds a table the comparison on screen left pending (`Comparison::pending_tables`, e.g. the edit types of
/// 200 systems) when the page shows it, reporting each system on `on_progress`; `cancel_operation(op_id)` stops
/// it (what was computed is kept for the next try).
#[tauri::command]
pub async fn dashboard_table(app: AppHandle, key: String, op_id: String, on_progress: Channel<Progress>) -> CmdResult<Table> {
    blocking(app, move |state| {
        let op = state.ops.start(&op_id);
        let mut progress = |p: Progress| {
            let _ = on_progress.send(p);
        };
        with_loaded(|l| {
            let cmp = l.last.as_mut().ok_or_else(|| CmdError::msg("compare the runs first"))?;
            let table = report::complete_table(&l.prep, cmp, &key, op.token.flag(), &mut progress)?;
            if let Ok(mut store) = state.open_store() {
                let _ = report::store_computed(&l.prep, &mut store);
            }
            Ok(table)
        })
    })
    .await
}

#[tauri::command]
pub async fn dashboard_drilldown(app: AppHandle, options: DrillOptions) -> CmdResult<DrillPage> {
    blocking(app, move |_| with_loaded(|l| Ok(report::drilldown(&l.prep, &options)?))).await
}

#[tauri::command]
pub async fn dashboard_rating_items(app: AppHandle, runs: Vec<RunId>, count: usize, seed: Option<u64>, rater: String) -> CmdResult<Vec<RatingItem>> {
    blocking(app, move |state| {
        let store = state.open_store()?;
        Ok(report::rating_items(&store, &runs, count.clamp(1, 500), seed.unwrap_or(2022), &rater)?)
    })
    .await
}

#[tauri::command(async)]
pub fn dashboard_save_ratings(state: State<'_, AppState>, rater: String, ratings: Vec<Rating>) -> CmdResult<usize> {
    state.with_store(|s| report::save_ratings(s, &rater, &ratings))
}

#[tauri::command]
pub async fn dashboard_human_summary(app: AppHandle) -> CmdResult<HumanSummary> {
    blocking(app, move |state| {
        let store = state.open_store()?;
        with_loaded(|l| Ok(report::human_summary(&store, &l.prep)?))
    })
    .await
}

/// Writes the comparison on screen (tables, charts in `formats`, report.html, and the human evaluation when
/// there are ratings) into the folder the user picked (`folder`: its token).
#[tauri::command]
pub async fn dashboard_export(app: AppHandle, folder: String, formats: Option<Vec<String>>) -> CmdResult<ReportFiles> {
    blocking(app, move |state| {
        let dir = state.files.redeem(&folder, files::REPORT_FOLDER)?;
        let formats = formats
            .unwrap_or_else(|| vec!["svg".into(), "png".into()])
            .iter()
            .map(|f| ImageFormat::parse(f).map_err(CmdError::from))
            .collect::<CmdResult<Vec<_>>>()?;
        let store = state.open_store()?;
        with_loaded(|l| {
            let cmp = l.last.as_mut().ok_or_else(|| CmdError::msg("compare the runs before exporting"))?;
            // The report holds every table, also those the page has not shown yet.
            report::complete_tables(&l.prep, cmp, &std::sync::atomic::AtomicBool::new(false), &mut |_| {})?;
            let human = report::human_summary(&store, &l.prep)?;
            let human = (human.judgments > 0).then_some(human);
            Ok(report::write_report(cmp, human.as_ref(), &dir, &formats)?)
        })
    })
    .await
}

/// One chart of the comparison on screen as PNG or SVG bytes written to the file the user picked in the save
/// dialog (`file`: its token; the format follows its extension).
#[tauri::command]
pub async fn dashboard_save_chart(app: AppHandle, key: String, file: String) -> CmdResult<String> {
    blocking(app, move |state| {
        let path = state.files.redeem(&file, files::SAVE_CHART)?;
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some(e) => ImageFormat::parse(e)?,
            None => return Err(CmdError::msg("end the file name in .svg or .png")),
        };
        let chart = with_loaded(|l| {
            let cmp = l.last.as_ref().ok_or_else(|| CmdError::msg("compare the runs first"))?;
            Ok(cmp.chart(&key).ok_or_else(|| CmdError::msg(format!("no chart {key:?} in this comparison")))?.chart.clone())
        })?;
        let bytes = chart.render(format, EXPORT_SIZE)?;
        std::fs::write(&path, bytes).map_err(|e| CmdError::msg(format!("cannot write {}: {e}", path.display())))?;
        Ok(path.display().to_string())
    })
    .await
}

/// The SVG of one chart of the comparison on screen, rendered when the page is about to show it (a comparison of
/// many runs has charts the user may never scroll to).
#[tauri::command]
pub async fn dashboard_chart_svg(app: AppHandle, key: String) -> CmdResult<String> {
    blocking(app, move |_| {
        let chart = with_loaded(|l| {
            let cmp = l.last.as_ref().ok_or_else(|| CmdError::msg("compare the runs first"))?;
            Ok(cmp.chart(&key).ok_or_else(|| CmdError::msg(format!("no chart {key:?} in this comparison")))?.chart.clone())
        })?;
        Ok(chart.to_svg(CompareOptions::default().chart_size)?)
    })
    .await
}

/// Exported charts are a little larger than the on-screen ones, for slides and papers.
const EXPORT_SIZE: (u32, u32) = (1000, 625);
