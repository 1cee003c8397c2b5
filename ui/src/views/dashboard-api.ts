// Typed wrappers for the Dashboard's commands (src-tauri/src/commands/dashboard.rs). Types come from ../bindings
// (generated from the Rust types, serde names); argument names are camelCase.

import { type ChosenFile, type Id, type Operation, type Progress, call, startOperation } from '../api';

import type { CompareOptions, Comparison, DashboardDefaults, DrillPage, EvalRequest, DrillSort, HumanSummary, ImportOutcome, Rating, RatingItem, ReportFiles, RunPage, RunQuery, SentenceMetric, Table } from '../bindings';
// Every generated type is this module's too, so views import them from one place.
export type * from '../bindings';

/** One page of the runs matching `query`, with the number that match in all. */
export const dashboardListRuns = (query: RunQuery) => call<RunPage>('dashboard_list_runs', { query });
/** `folder` from `chooseFile('submissions')`. */
export const importSubmissions = (folder: ChosenFile, project: string, onProgress: (p: Progress) => void): Operation<ImportOutcome> =>
  // An empty request: core's defaults, the ones `registro eval --submissions DIR` uses.
  startOperation<ImportOutcome>('dashboard_import_submissions', { folder: folder.token, project, request: {} as EvalRequest }, onProgress);
/** A comparison reports each run it prepares through `onProgress`; `cancel()` stops it between runs. */
export const compareRuns = (runs: Id[], baseline: Id | null, options: CompareOptions, onProgress: (p: Progress) => void): Operation<Comparison> =>
  startOperation<Comparison>('dashboard_compare', { request: { runs, baseline, reference: null }, options }, onProgress);
/** Builds table `key` the comparison on screen left pending (`Comparison.pending_tables`); `cancel()` stops it. */
export const completeTable = (key: string, onProgress: (p: Progress) => void): Operation<Table> =>
  startOperation<Table>('dashboard_table', { key }, onProgress);
/** The SVG of chart `key` of the comparison on screen (rendered only when the page shows it). */
export const chartSvg = (key: string) => call<string>('dashboard_chart_svg', { key });
export const drilldown = (a: Id, b: Id, metric: SentenceMetric, sort: DrillSort, offset = 0, limit = 10) =>
  call<DrillPage>('dashboard_drilldown', { options: { a, b, metric, sort, offset, limit } });
export const ratingItems = (runs: Id[], count: number, rater: string, seed?: number) =>
  call<RatingItem[]>('dashboard_rating_items', { runs, count, rater, seed: seed ?? null });
export const saveRatings = (rater: string, ratings: Rating[]) => call<number>('dashboard_save_ratings', { rater, ratings });
export const humanSummary = () => call<HumanSummary>('dashboard_human_summary');
/** `folder` from `chooseFile('report-folder')`. */
export const exportReport = (folder: ChosenFile, formats?: string[]) =>
  call<ReportFiles>('dashboard_export', { folder: folder.token, formats: formats ?? null });
/** `file` from `chooseFile('save-chart', …)`; returns the path written. */
export const saveChart = (key: string, file: ChosenFile) => call<string>('dashboard_save_chart', { key, file: file.token });
// Core's defaults for the Dashboard's forms (the comparison's resamples and test, an evaluation's settings).
export const dashboardDefaults = () => call<DashboardDefaults>('dashboard_defaults');
