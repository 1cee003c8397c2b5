// What the shell gives every view when it mounts it.

import type { Document, Project, Run } from './api';

export type ViewChange = 'documents' | 'runs';

export interface ViewContext {
  /** The open project; views are only mounted while one is open. */
  project: Project;
  /** The project's documents, as of the last refresh (the shell reloads them after imports and deletions). */
  documents(): Document[];
  /** The document selected in the Documents view, if any (a sensible default input for the other views). */
  selectedDocumentId(): number | null;
  /** Tell the shell that data changed (e.g. a run was created) so the sidebar counts and other views refresh. */
  changed(what: ViewChange): void;
  /** Called with what changed, whoever changed it; returns an unsubscribe function. */
  subscribe(listener: (what: ViewChange) => void): () => void;
  /** Status-bar message. */
  notify(message: string, kind?: 'info' | 'error'): void;
  /** Whether a view reopens runs of this run's task. */
  canOpenRun(run: Run): boolean;
  /** Shows a stored run in the view that reopens runs of its task (switching to it). */
  openRun(run: Run): void;
  /** A view says it reopens runs of `task`; returns the function that takes that back. */
  opensRuns(task: Run['task'], open: (run: Run) => void): () => void;
  /** In-page confirmation; resolves true when confirmed. */
  confirm(message: string, confirmLabel?: string): Promise<boolean>;
}

/** A view module: `mount` fills `el` and may return a cleanup run when the project closes or changes. */
export type MountFn = (el: HTMLElement, ctx: ViewContext) => void | (() => void);
