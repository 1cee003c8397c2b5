// The run/progress/cancel sequence of a view's main action, written once for Translate and Rewrite: a progress
// panel with Cancel where the form shows it, the button disabled while the operation runs, the status bar's message
// about the last action cleared, each progress message with the rate and the time left, and the panel gone and the
// button back once the answer (or the error) is handled.

import type { Operation, Progress } from './api';
import { ProgressPanel, rateProgress } from './components';

export interface RunWithProgress<T> {
  /** Where the panel goes (under the form). */
  slot: HTMLElement;
  /** The button that started it: disabled until the operation ends. */
  button: HTMLButtonElement;
  /** The panel's test id (`<view>-progress`; its Cancel is `<testid>-cancel`). */
  testid: string;
  /** What the rate counts ("segments", "sentences"). */
  unit: string;
  /** The view's status bar (`ctx.notify`): cleared as the action starts. */
  notify: (message: string, kind?: 'info' | 'error') => void;
  /** Starts the operation, handing it the progress callback. */
  start: (onProgress: (p: Progress) => void) => Operation<T>;
  /** Shows the answer; `total` is the last total the progress reported (more than came back after a Cancel). The
   * panel stays until it is done. */
  done: (value: T, total: number) => Promise<void> | void;
  /** Shows why it failed (what `start` or `done` threw). */
  failed: (e: unknown) => void;
}

/** Runs one long operation of a view from its button to its answer; see [`RunWithProgress`]. */
export async function runWithProgress<T>(o: RunWithProgress<T>): Promise<void> {
  const panel = new ProgressPanel(o.testid);
  o.slot.append(panel.el);
  o.button.disabled = true;
  // A new action clears what the status bar said about the last one (an old error stayed under later runs).
  o.notify('');
  const progress = rateProgress(panel, o.unit);
  try {
    const op = o.start(progress.update);
    panel.attach(op);
    const value = await op.result;
    await o.done(value, progress.total());
  } catch (e) {
    o.failed(e);
  } finally {
    panel.done();
    o.button.disabled = false;
  }
}
