// Typed wrappers around the Tauri commands of src-tauri/src/commands/*.rs, plus the helper for long operations
// (progress through a Tauri Channel, cancellation by operation id). Views call these, never `invoke` with a bare
// string, so a renamed command breaks the TypeScript build rather than a click.
//
// Adding commands for your view: put the wrappers in a section of this file named after your view (or in
// `src/views/<view>-api.ts` importing `call` / `startOperation` from here). Types are not written here: derive
// `ts_rs::TS` on the Rust type, add it to `visit_roots` in src-tauri/tests/ts_bindings.rs, run
// `cargo test -p registro-app --test ts_bindings` and import it from `./bindings`.

import { Channel, invoke } from '@tauri-apps/api/core';

// ---- data types: generated from the Rust types (ui/src/bindings/, `cargo test -p registro-app --test ts_bindings`;
// CI fails when they are stale). Only names for the UI's convenience are written here. ----

import type { AppInfo, Chosen, Document, ImportOptions, ImportSummary, Problem, Progress, Project, ProjectRunQuery, Purpose, RunRow, SegmentRow } from './bindings';
// Every generated type is this module's too, so views import them from one place; and the one generated value, every
// language with its registers and capabilities (registro_core::languages).
export type * from './bindings';
export { LANGUAGES } from './bindings';

/** Row ids (i64 in Rust) cross the IPC as JSON numbers. */
export type Id = number;
/** What a file is picked for (src-tauri/src/files.rs `Purpose`): it decides the dialog and which command may use it. */
export type FilePurpose = Purpose;
/**
 * A file the user picked in a dialog the backend opened. File commands take `token` (single use, expires after 15
 * minutes), never a path: the page cannot name a file the user did not choose.
 */
export type ChosenFile = Chosen;
/** A start-up problem (database cannot open, default model missing), shown in a banner above the views. */
export type StartupProblem = Problem;

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

/** A Tauri `Channel` that hands each message the backend sends on it to `onMessage`, e.g. a segment as it is done. */
export function channel<T>(onMessage: (message: T) => void): Channel<T> {
  const c = new Channel<T>();
  c.onmessage = onMessage;
  return c;
}

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
  return {
    id,
    result: call<T>(command, { ...args, opId: id, onProgress: channel(onProgress) }),
    cancel: () => call<boolean>('cancel_operation', { opId: id }),
  };
}

// ---- projects, documents, runs (src-tauri/src/commands/projects.rs) ----

export const appInfo = () => call<AppInfo>('app_info');
export const startupStatus = () => call<StartupProblem[]>('startup_status');
/** The file the app was started with ("Open with Registro"), as an import token; `null` when none (or already taken). */
export const startupFile = () => call<ChosenFile | null>('startup_file');

/** Opens the native dialog for `purpose`; `null` when the user cancelled. `defaultName` pre-fills a save dialog. */
export const chooseFile = (purpose: FilePurpose, defaultName?: string) =>
  call<ChosenFile | null>('choose_file', { purpose, defaultName: defaultName ?? null });

export const listProjects = () => call<Project[]>('list_projects');
export const createProject = (name: string) => call<Project>('create_project', { name });
export const deleteProject = (id: Id) => call<void>('delete_project', { id });

export const listDocuments = (projectId: Id) => call<Document[]>('list_documents', { projectId });
export const documentSegments = (id: Id, offset = 0, limit = 200) =>
  call<SegmentRow[]>('document_segments', { id, offset, limit });
export const deleteDocument = (id: Id) => call<void>('delete_document', { id });

/** Imports the file or paired folder the user picked (`file` from `chooseFile('import' | 'import-folder')`). */
export const importDocument = (
  projectId: Id,
  file: ChosenFile,
  options: ImportOptions,
  onProgress: (p: Progress) => void,
): Operation<ImportSummary> => startOperation<ImportSummary>('import_document', { projectId, file: file.token, options }, onProgress);

/** src-tauri's `list_runs` query (camelCase fields). */
export type RunQuery = ProjectRunQuery;
/** The project's runs, newest first, each with its state (core's `RunState`) and document name. */
export const listRuns = (projectId: Id, query: RunQuery = {}) => call<RunRow[]>('list_runs', { projectId, query });
export const deleteRun = (id: Id) => call<void>('delete_run', { id });
// Resuming a run (its state live in every list): run-state.ts `resumeRun`.
