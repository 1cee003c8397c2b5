// Typed wrappers around the Tauri commands of src-tauri/src/commands/*.rs, plus the helper for long operations
// (progress through a Tauri Channel, cancellation by operation id). Views call these, never `invoke` with a bare
// string, so a renamed command breaks the TypeScript build rather than a click.
//
// Adding commands for your view: put the types and wrappers in a section of this file named after your view (or in
// `src/views/<view>-api.ts` importing `call` / `startOperation` from here).

import { Channel, invoke } from '@tauri-apps/api/core';

// ---- data types (mirror registro-store / registro-core serde types; snake_case as Rust serializes them) ----

export type Id = number;

export interface Project {
  id: Id;
  name: string;
  created_at: string;
  documents: number;
  runs: number;
}

export interface Document {
  id: Id;
  project_id: Id;
  name: string;
  source_lang: string;
  target_lang: string | null;
  origin: string | null;
  /** text | tsv | csv | jsonl | cocoa | xformal | inline */
  format: string;
  created_at: string;
  segments: number;
  reference_names: string[];
}

export interface SegmentRow {
  index: number;
  text: string;
  lang: string;
  /** reference name → text */
  references: Record<string, string>;
}

export type Task = 'rewrite' | 'translate' | 'import' | 'eval';
export type RunStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type Register = 'formal' | 'informal' | 'respectful';

export interface Run {
  id: Id;
  project_id: Id;
  document_id: Id | null;
  task: Task;
  system: string;
  model_id: string | null;
  model_sha256: string | null;
  params: unknown;
  source_lang: string | null;
  target_lang: string | null;
  register: string | null;
  status: RunStatus;
  error: string | null;
  total_segments: number;
  completed_segments: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface MetricResult {
  id: Id;
  run_id: Id;
  metric: string;
  reference: string | null;
  segment_index: number | null;
  value: number;
  signature: string | null;
  detail: unknown;
  created_at: string;
}

export interface RunDetail {
  run: Run;
  document: Document | null;
  missing_segments: number[];
  corpus_metrics: MetricResult[];
}

export type ImportFormat = 'text' | 'tsv' | 'csv' | 'jsonl' | 'cocoa' | 'xformal';

/** registro_store::import::ImportOptions; every field optional (auto-detected). */
export interface ImportOptions {
  format?: ImportFormat | null;
  source_lang?: string | null;
  target_lang?: string | null;
  column?: string | null;
  name?: string | null;
}

export interface ImportSummary {
  project: Project;
  documents: Document[];
  ignored: string[];
  segments: number;
}

/** registro_core::progress::Progress */
export interface Progress {
  done: number;
  total: number;
  message: string;
}

export interface AppInfo {
  version: string;
  db_path: string;
}

// ---- calling commands ----

/** The error a command returned: its message is the whole context chain, fit to show to the user. */
export class CommandError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/**
 * Calls a Tauri command. Argument names are camelCase here (Tauri maps them to the Rust snake_case parameters);
 * fields inside struct arguments keep the Rust serde names.
 */
export async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw new CommandError(command, typeof e === 'string' ? e : e instanceof Error ? e.message : JSON.stringify(e));
  }
}

/** A long operation in flight: await `result`; `cancel()` asks the backend to stop at its next check. */
export interface Operation<T> {
  id: string;
  result: Promise<T>;
  cancel(): Promise<boolean>;
}

let opCounter = 0;

/**
 * Starts a long command that takes `opId` and `onProgress` (a `Channel<Progress>`) besides `args`, e.g.
 * `startOperation<ImportSummary>('import_document', { projectId, path }, p => bar.update(p))`.
 */
export function startOperation<T>(
  command: string,
  args: Record<string, unknown>,
  onProgress: (p: Progress) => void,
): Operation<T> {
  const id = `${command}-${Date.now()}-${++opCounter}`;
  const channel = new Channel<Progress>();
  channel.onmessage = onProgress;
  return {
    id,
    result: call<T>(command, { ...args, opId: id, onProgress: channel }),
    cancel: () => call<boolean>('cancel_operation', { opId: id }),
  };
}

// ---- projects, documents, runs (src-tauri/src/commands/projects.rs) ----

export const appInfo = () => call<AppInfo>('app_info');

export const listProjects = () => call<Project[]>('list_projects');
export const createProject = (name: string) => call<Project>('create_project', { name });
export const renameProject = (id: Id, name: string) => call<Project>('rename_project', { id, name });
export const deleteProject = (id: Id) => call<void>('delete_project', { id });

export const listDocuments = (projectId: Id) => call<Document[]>('list_documents', { projectId });
export const getDocument = (id: Id) => call<Document>('get_document', { id });
export const documentSegments = (id: Id, offset = 0, limit = 200) =>
  call<SegmentRow[]>('document_segments', { id, offset, limit });
export const deleteDocument = (id: Id) => call<void>('delete_document', { id });

/** Imports a file or paired folder (a path the user picked or typed). */
export const importDocument = (
  projectId: Id,
  path: string,
  options: ImportOptions,
  onProgress: (p: Progress) => void,
): Operation<ImportSummary> => startOperation<ImportSummary>('import_document', { projectId, path, options }, onProgress);

export interface RunQuery {
  documentId?: Id;
  task?: Task;
  limit?: number;
}
export const listRuns = (projectId: Id, query: RunQuery = {}) => call<Run[]>('list_runs', { projectId, query });
export const getRun = (id: Id) => call<RunDetail>('get_run', { id });
export const deleteRun = (id: Id) => call<void>('delete_run', { id });
