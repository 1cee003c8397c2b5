// Typed wrappers for the Dashboard's commands (src-tauri/src/commands/dashboard.rs). Struct fields keep the Rust
// serde names; argument names are camelCase.

import { type ChosenFile, type Id, type Operation, type Progress, type Run, call, startOperation } from '../api';
import type { Marker } from './translate-api';

export interface RunQuery {
  project?: string | null;
  task?: string | null;
  language_pair?: string | null;
  register?: string | null;
  model?: string | null;
  since?: string | null;
  until?: string | null;
  include_unfinished?: boolean;
}

export interface RunSummary extends Run {
  project: string;
  document: string | null;
}

export interface Cell {
  value?: number;
  ci?: [number, number];
  marker?: string;
  p?: number;
  text?: string;
}

export interface Column {
  key: string;
  label: string;
  higher_is_better?: boolean;
  decimals: number;
}

export interface Table {
  key: string;
  title: string;
  columns: Column[];
  rows: Array<{ id: string; cells: Cell[] }>;
  notes: string[];
}

export interface NamedChart {
  key: string;
  title: string;
  chart: unknown;
  svg?: string;
}

export interface SystemInfo {
  run_id: Id;
  label: string;
  system: string;
  task: string;
  register: string | null;
  model_id: string | null;
  created_at: string;
  references: string[];
  missing: number;
  baseline: boolean;
}

export interface Comparison {
  document: string;
  segments: number;
  source_lang: string;
  target_lang: string;
  baseline_run: Id;
  systems: SystemInfo[];
  tables: Table[];
  charts: NamedChart[];
  timings_ms: Record<string, number>;
}

export interface CompareOptions {
  bootstrap?: number;
  seed?: number;
  test?: 'bootstrap' | 'randomization';
  alpha?: number;
}

export type SentenceMetric = 'bleu' | 'chrf' | 'ter' | 'formality';
export type DrillSort = 'improved' | 'worsened' | 'absolute' | 'index';
export type TokenClass = 'plain' | 'match' | 'improving' | 'worsening';

export interface Token {
  text: string;
  char_start: number;
  char_end: number;
  class: TokenClass;
}

export interface OutputView {
  run_id: Id;
  label: string;
  text: string;
  score: number;
  tokens: Token[];
  markers: Marker[];
  register: string | null;
}

export interface DrillSegment {
  index: number;
  source: string;
  references: Array<[string, string]>;
  a: OutputView;
  b: OutputView;
  diff: number;
}

export interface DrillPage {
  metric: SentenceMetric;
  metric_label: string;
  total: number;
  improved: number;
  worsened: number;
  segments: DrillSegment[];
}

export interface RatingItem {
  segment_index: number;
  source: string;
  outputs: Array<{ slot: string; run_id: Id; text: string }>;
  rated: boolean;
}

export type Scale = 'formality' | 'fluency' | 'meaning' | 'rank';

export interface Rating {
  run_id: Id;
  segment_index: number;
  scale: Scale;
  value: number;
}

export interface HumanSummary {
  judgments: number;
  raters: string[];
  agreement: Array<{ scale: Scale; statistic: string; value: number | null; items: number; raters: number }>;
  tables: Table[];
}

export interface ImportOutcome {
  run_ids: Id[];
  systems: string[];
}

export interface ReportFiles {
  dir: string;
  files: string[];
}

export const dashboardListRuns = (query: RunQuery) => call<RunSummary[]>('dashboard_list_runs', { query });
/** `folder` from `chooseFile('submissions')`. */
export const importSubmissions = (folder: ChosenFile, project: string, onProgress: (p: Progress) => void): Operation<ImportOutcome> =>
  startOperation<ImportOutcome>('dashboard_import_submissions', { folder: folder.token, project }, onProgress);
export const compareRuns = (runs: Id[], baseline: Id | null, options: CompareOptions = {}) =>
  call<Comparison>('dashboard_compare', { request: { runs, baseline, reference: null }, options });
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
