// Shell widgets views reuse: the confirmation dialog, the progress bar of a long operation, notices.

import type { Operation, Progress } from './api';
import { h } from './dom';

/**
 * An in-page confirmation (not `window.confirm`, which blocks the web view and cannot be styled or driven by the
 * end-to-end tests). Resolves true when the user confirms.
 */
export function confirmDialog(message: string, confirmLabel = 'Delete'): Promise<boolean> {
  return new Promise((resolve) => {
    const close = (answer: boolean) => {
      overlay.remove();
      document.removeEventListener('keydown', onKey);
      resolve(answer);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(false);
    };
    const ok = h('button', { class: 'btn danger', 'data-testid': 'confirm-ok', onclick: () => close(true) }, confirmLabel);
    const overlay = h(
      'div',
      { class: 'overlay', 'data-testid': 'confirm-dialog' },
      h(
        'div',
        { class: 'dialog', role: 'alertdialog', 'aria-modal': 'true' },
        h('p', { class: 'dialog-message' }, message),
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { class: 'btn', 'data-testid': 'confirm-cancel', onclick: () => close(false) }, 'Cancel'),
          ok,
        ),
      ),
    );
    document.addEventListener('keydown', onKey);
    document.body.append(overlay);
    ok.focus();
  });
}

/**
 * A progress bar with a Cancel button for one long operation. Create it, pass `update` as the operation's progress
 * callback, then `attach(op)` so Cancel reaches the backend; `done()` removes it.
 */
export class ProgressPanel {
  readonly el: HTMLElement;
  private bar: HTMLProgressElement;
  private label: HTMLElement;
  private cancelBtn: HTMLButtonElement;
  private op: Operation<unknown> | null = null;
  /** Whether the user pressed Cancel. */
  cancelled = false;

  constructor(testid = 'progress') {
    this.bar = h('progress', { class: 'progress-bar', max: 1, value: 0 });
    this.label = h('span', { class: 'progress-label muted' }, 'starting…');
    this.cancelBtn = h(
      'button',
      {
        class: 'btn small',
        'data-testid': `${testid}-cancel`,
        onclick: () => {
          this.cancelled = true;
          this.cancelBtn.disabled = true;
          this.label.textContent = 'cancelling…';
          void this.op?.cancel();
        },
      },
      'Cancel',
    );
    this.el = h('div', { class: 'progress', 'data-testid': testid }, this.bar, this.label, this.cancelBtn);
  }

  attach(op: Operation<unknown>): void {
    this.op = op;
  }

  update = (p: Progress): void => {
    this.bar.max = Math.max(p.total, 1);
    this.bar.value = Math.min(p.done, this.bar.max);
    // After Cancel, the steps still reported until the backend stops say so too.
    this.label.textContent = (p.total > 0 ? `${p.message} (${p.done}/${p.total})` : p.message) + (this.cancelled ? ' · cancelling…' : '');
  };

  done(): void {
    this.el.remove();
  }
}

/**
 * Progress for `panel` with `unit`/s and time left added to its message, and the last total seen. The rate counts
 * from the first finished item (model loading and the first batch's prefill are not an item rate) and waits two
 * seconds: batched rows finish together, and a rate over the first milliseconds would read hundreds per second.
 */
export function rateProgress(panel: ProgressPanel, unit: string): { update: (p: Progress) => void; total: () => number } {
  let firstAt = 0;
  let firstDone = 0;
  let total = 0;
  const update = (p: Progress) => {
    total = p.total;
    if (p.done > 0 && firstAt === 0) [firstAt, firstDone] = [performance.now(), p.done];
    const secs = (performance.now() - firstAt) / 1000;
    const rate = firstAt && p.done > firstDone && secs >= 2 ? (p.done - firstDone) / secs : 0;
    const left = rate > 0 ? ` · ${rate.toFixed(2)} ${unit}/s · ${Math.ceil((p.total - p.done) / rate)} s left` : '';
    panel.update({ ...p, message: p.message + left });
  };
  return { update, total: () => total };
}

let noticeTimer: number | undefined;

/** Shows a short message in the status bar; errors stay until the next notice. */
export function notify(message: string, kind: 'info' | 'error' = 'info'): void {
  const el = document.querySelector<HTMLElement>('[data-testid="notice"]');
  if (!el) return;
  el.textContent = message;
  el.className = `notice ${kind}`;
  window.clearTimeout(noticeTimer);
  if (kind === 'info') noticeTimer = window.setTimeout(() => (el.textContent = ''), 6000);
}

/** The message of anything thrown (command errors carry the backend's context chain). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
