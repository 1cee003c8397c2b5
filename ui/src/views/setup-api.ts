// The model commands (src-tauri/src/commands/models.rs) for the setup card (setup.ts) and Settings → Models
// (settings-models.ts), and the words both show for a download's progress.

import { call, channel } from '../api';
import type { ChosenFile, DownloadProgress, Downloaded, FirstStart, ModelSummary, Operation, Removed, Verified } from '../api';
import { h } from '../dom';

export const firstStart = () => call<FirstStart>('first_start');
export const listModels = () => call<ModelSummary[]>('list_models');
export const removeModel = (id: string) => call<Removed>('remove_model', { id });

let opCounter = 0;

/** A long model command: its progress comes as `DownloadProgress` (bytes and stage), not the generic `Progress`. */
function modelOperation<T>(command: string, args: Record<string, unknown>, onProgress: (p: DownloadProgress) => void): Operation<T> {
  const id = `${command}-${Date.now()}-${++opCounter}`;
  return {
    id,
    result: call<T>(command, { ...args, opId: id, onProgress: channel(onProgress) }),
    cancel: () => call<boolean>('cancel_operation', { opId: id }),
  };
}

/** Download, Continue and Repair: the same fetch as `registro models fetch` (resumes, checks sha256). */
export const downloadModel = (id: string, onProgress: (p: DownloadProgress) => void) => modelOperation<Downloaded>('download_model', { id }, onProgress);
export const verifyModel = (id: string, onProgress: (p: DownloadProgress) => void) => modelOperation<Verified>('verify_model', { id }, onProgress);
/** Imports the GGUF file picked with `chooseFile('import-model')`. */
export const importModel = (file: ChosenFile, onProgress: (p: DownloadProgress) => void) =>
  modelOperation<ModelSummary>('import_model', { file: file.token }, onProgress);

/** "1.1 GB", "120.0 MB": decimal units, as the CLI prints them (core `human_bytes`). */
export function bytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

function duration(secs: number): string {
  const s = Math.max(1, Math.round(secs));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * A failure as the backend words it: what happened and what to do, then (folded) the technical details after
 * "Details: " (core `models::explain_failure`).
 */
export function errorBlock(message: string, testid: string): HTMLElement {
  const at = message.indexOf('\n\nDetails: ');
  const main = at < 0 ? message : message.slice(0, at);
  const el = h('div', { class: 'error model-error', 'data-testid': testid }, h('p', {}, main));
  if (at >= 0) el.append(h('details', { class: 'small muted' }, h('summary', {}, 'Details'), h('pre', { class: 'error-details' }, message.slice(at + 2))));
  return el;
}

/** What a state means to the user, with what Download would do. */
export function stateText(m: ModelSummary): string {
  switch (m.state) {
    case 'ready':
      return 'Ready: downloaded and checked.';
    case 'unverified':
      return 'Downloaded; it is checked before its first use.';
    case 'partial':
      return `${bytes(m.have_bytes)} of ${bytes(m.bytes)} downloaded; Download continues from there.`;
    case 'damaged':
      return `Damaged: ${m.problems.join('; ')}. It is not used until Download replaces it.`;
    default:
      return 'Not downloaded.';
  }
}

export const STATE_LABEL: Record<ModelSummary['state'], string> = {
  ready: 'ready',
  unverified: 'downloaded',
  partial: 'partly downloaded',
  missing: 'not downloaded',
  damaged: 'damaged',
};

/**
 * A bar and a line of words for one download (or verification, or import), with a Cancel button that asks the
 * backend to stop. `testid` names the elements: `<testid>` (the panel), `<testid>-label`, `<testid>-cancel`.
 */
export class DownloadPanel {
  readonly el: HTMLElement;
  private bar: HTMLProgressElement;
  private label: HTMLElement;
  private cancelBtn: HTMLButtonElement;
  private op: Operation<unknown> | null = null;

  constructor(testid: string) {
    this.bar = h('progress', { class: 'progress-bar download-bar', max: 1, value: 0 });
    this.label = h('span', { class: 'progress-label', 'data-testid': `${testid}-label` }, 'Starting…');
    this.cancelBtn = h('button', { class: 'btn small', 'data-testid': `${testid}-cancel` }, 'Cancel');
    this.cancelBtn.onclick = () => {
      this.cancelBtn.disabled = true;
      this.label.textContent = 'Stopping…';
      void this.op?.cancel();
    };
    this.el = h('div', { class: 'download-panel', 'data-testid': testid }, h('div', { class: 'download-row' }, this.bar, this.cancelBtn), this.label);
  }

  attach(op: Operation<unknown>): void {
    this.op = op;
  }

  update = (p: DownloadProgress): void => {
    if (this.cancelBtn.disabled) return;
    if (!p.stage) {
      // A note between the byte counts (which source, file done): the bar keeps its place.
      this.label.title = p.message;
      return;
    }
    const pct = p.total > 0 ? Math.min(100, Math.floor((p.done * 100) / p.total)) : null;
    this.bar.max = Math.max(p.total, 1);
    this.bar.value = Math.min(p.done, this.bar.max);
    if (pct === null) this.bar.removeAttribute('value');
    const of = p.total > 0 ? ` of ${bytes(p.total)} (${pct}%)` : '';
    let text: string;
    switch (p.stage) {
      case 'download': {
        const rate = p.bytes_per_sec > 0 ? ` · ${bytes(p.bytes_per_sec)}/s` : '';
        const left = p.eta_secs !== null && p.eta_secs > 0 ? ` · about ${duration(p.eta_secs)} left` : '';
        text = `Downloading ${bytes(p.done)}${of}${rate}${left}`;
        break;
      }
      case 'hash':
        text = `Checking ${bytes(p.done)}${of} against its sha256 checksum`;
        break;
      case 'copy':
        text = `Copying ${bytes(p.done)}${of}`;
        break;
      default:
        text = `Unpacking ${bytes(p.done)}${of}`;
    }
    this.label.textContent = text;
    this.el.dataset.stage = p.stage;
    this.el.dataset.done = String(p.done);
    this.el.dataset.total = String(p.total);
  };

  done(): void {
    this.el.remove();
  }
}
