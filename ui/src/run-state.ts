// One run-state model, rendered the same way wherever a run is shown (issue 44, "state that never lies"). The state
// and its words come from core (registro_core::run_state::RunState): starting (what it is doing), running n/m,
// cancelled n/m, failed n/m with the reason, done. A run being resumed in this window reports its state as it
// changes; every runs list showing that run (Translate, Rewrite, Documents) shows the live state, not what the store
// said when the list was drawn, and offers no second Resume while one is going.

import { type Id, type Operation, type ResumeOutcome, type RunRow, type RunState, type SegmentOut, call, channel } from './api';
import { h } from './dom';

/** The state as a badge (the phase) and the rest of core's words (n/m, what it is doing, why it failed). */
export function runStateView(s: RunState): HTMLElement {
  // Core's label always begins with the phase's word.
  const rest = s.label.startsWith(s.phase) ? s.label.slice(s.phase.length).trim() : s.label;
  return h(
    'span',
    { class: 'run-state', 'data-testid': 'run-state', 'data-phase': s.phase, 'data-run-id': s.run_id, title: s.label },
    h('span', { class: `badge ${s.phase}` }, s.phase),
    rest ? h('span', { class: 'run-state-detail', 'data-testid': 'run-state-detail' }, ` ${rest}`) : null,
  );
}

/** The states of the runs resumed in this window while they run, by run id. */
const live = new Map<number, RunState>();
const listeners = new Set<(s: RunState, ended: boolean) => void>();

/** The live state of run `id` while this window resumes it. */
export function liveState(id: number): RunState | undefined {
  return live.get(id);
}

/** What a runs list shows for `row`: its live state while this window resumes it, else the stored one. */
export function shownState(row: RunRow): RunState {
  return live.get(row.id) ?? row.state;
}

/** Called with each state change of a run resumed in this window (`ended` with its last). */
export function onRunState(listener: (s: RunState, ended: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Redraws the state cell of every listed row of run `s.run_id`, in whichever view it is. */
function publish(s: RunState, ended: boolean): void {
  if (ended) live.delete(s.run_id);
  else live.set(s.run_id, s);
  for (const cell of document.querySelectorAll<HTMLElement>(`[data-testid="run-item"][data-run-id="${s.run_id}"] [data-testid="run-state-cell"]`)) {
    cell.replaceChildren(runStateView(s));
  }
  // While it runs, no list offers to resume it again; once it ended, a list drawn again says what to do.
  for (const b of document.querySelectorAll<HTMLButtonElement>(`[data-testid="run-item"][data-run-id="${s.run_id}"] [data-testid="resume-run"]`)) {
    if (ended && !s.resumable) b.remove();
    else b.hidden = !ended;
  }
  for (const l of listeners) l(s, ended);
}

/**
 * Resumes run `id` (its missing segments produced with its own settings): its state goes to every list showing it
 * and to `onState`; each translated segment to `onSegment` as it is stored (its index in the document).
 */
export function resumeRun(id: Id, onState: (s: RunState) => void = () => {}, onSegment: (s: SegmentOut) => void = () => {}): Operation<ResumeOutcome> {
  const opId = `resume_run-${id}-${Date.now()}`;
  let ended = false;
  const result = call<ResumeOutcome>('resume_run', {
    id,
    opId,
    onState: channel<RunState>((s) => {
      // A message that arrives after the answer is older than the state the answer carries.
      if (ended) return;
      publish(s, false);
      onState(s);
    }),
    onSegment: channel<SegmentOut>(onSegment),
  }).then(
    (out) => {
      ended = true;
      publish(out.state, true);
      onState(out.state);
      return out;
    },
    (e: unknown) => {
      ended = true;
      // Refused or failed: the view that started it draws the lists again from the store.
      live.delete(id);
      throw e;
    },
  );
  return { id: opId, result, cancel: () => call<boolean>('cancel_operation', { opId }) };
}

/**
 * A run's live state with a progress bar and Cancel, for a resume (or any operation reporting `RunState`): what the
 * runs lists show for the run, beside the bar. `update` takes each state; `attach(op)` lets Cancel reach it.
 */
export class RunStatePanel {
  readonly el: HTMLElement;
  private bar: HTMLProgressElement;
  private state: HTMLElement;
  private cancelBtn: HTMLButtonElement;
  private op: Operation<unknown> | null = null;

  constructor(testid: string, first: RunState | null = null) {
    this.bar = h('progress', { class: 'progress-bar', max: 1, value: 0 });
    this.state = h('span', { class: 'progress-label', 'data-testid': `${testid}-state`, role: 'status', 'aria-live': 'polite' }, 'starting…');
    this.cancelBtn = h(
      'button',
      {
        class: 'btn small',
        'data-testid': `${testid}-cancel`,
        onclick: () => {
          this.cancelBtn.disabled = true;
          this.state.append(h('span', { class: 'muted' }, ' · cancelling…'));
          void this.op?.cancel();
        },
      },
      'Cancel',
    );
    this.el = h('div', { class: 'progress', 'data-testid': testid }, this.bar, this.state, this.cancelBtn);
    if (first) this.update(first);
  }

  attach(op: Operation<unknown>): void {
    this.op = op;
  }

  update = (s: RunState): void => {
    this.bar.max = Math.max(s.total, 1);
    this.bar.value = Math.min(s.done, this.bar.max);
    this.el.dataset.phase = s.phase;
    this.el.dataset.done = String(s.done);
    this.el.dataset.total = String(s.total);
    const cancelling = this.cancelBtn.disabled;
    this.state.replaceChildren(runStateView(s), s.phase === 'running' && s.doing ? h('span', { class: 'muted small' }, ` · ${s.doing}`) : '');
    if (cancelling) this.state.append(h('span', { class: 'muted' }, ' · cancelling…'));
  };

  done(): void {
    this.el.remove();
  }
}
