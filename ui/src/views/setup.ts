// The setup card of a first start: when the default model is not on disk (or only partly, or damaged), the window
// opens on this card instead of leaving the user to find a terminal. It shows the model (name, size, licence from
// its manifest) and downloads it with the same fetch as `registro models fetch` (core `models::download`): bytes
// and percent, Cancel (the bytes stay, Download continues), sha256 checked before the file is used. A failure is
// shown in the backend's words, which say what to do. The card sits above the views rather than over them: the
// sidebar, rules-based rewriting and the Dashboard work without a model. "Skip for now" closes it; Settings → Models
// offers the same Download later.
//
// Test ids: setup-card, setup-model-name, setup-model-size, setup-model-licence, setup-state (data-state),
// setup-download, setup-progress (+ -label, -cancel), setup-error, setup-skip, setup-done.

import './setup.css';

import type { FirstStart, ModelSummary } from '../api';
import { errorMessage } from '../components';
import { clear, h } from '../dom';
import { DownloadPanel, bytes, downloadModel, errorBlock, firstStart, stateText } from './setup-api';

/** Shows the card in `slot` when the default model must be downloaded first; `onReady` runs once it is usable. */
export async function showSetupIfNeeded(slot: HTMLElement, onReady: () => void): Promise<void> {
  let start: FirstStart;
  try {
    start = await firstStart();
  } catch {
    // The start-up banners say what is wrong; the window stays usable without the card.
    return;
  }
  if (!start.needed || !start.model) return;
  openSetup(slot, start.model, start.cache_dir, onReady);
}

function openSetup(slot: HTMLElement, initial: ModelSummary, cacheDir: string, onReady: () => void): void {
  if (slot.querySelector('[data-testid="setup-card"]')) return;
  let model = initial;
  const state = h('p', { class: 'setup-state', 'data-testid': 'setup-state' });
  const error = h('div', { 'data-testid': 'setup-error', hidden: true });
  const download = h('button', { class: 'btn primary', 'data-testid': 'setup-download' });
  const skip = h('button', { class: 'btn', 'data-testid': 'setup-skip' }, 'Skip for now');
  const done = h('button', { class: 'btn primary', 'data-testid': 'setup-done', hidden: true }, 'Start using Registro');
  const progressSlot = h('div', { class: 'setup-progress-slot' });
  const close = () => card.remove();

  const render = () => {
    state.textContent = stateText(model);
    state.dataset.state = model.state;
    download.textContent = model.state === 'partial' ? 'Continue download' : model.state === 'damaged' ? 'Download again' : 'Download';
    const usable = model.state === 'ready' || model.state === 'unverified';
    download.hidden = usable;
    skip.hidden = usable;
    done.hidden = !usable;
  };

  download.onclick = async () => {
    error.hidden = true;
    // While bytes arrive the progress panel says everything; Cancel is the one action.
    for (const el of [state, download, skip]) el.hidden = true;
    const panel = new DownloadPanel('setup-progress');
    clear(progressSlot);
    progressSlot.append(panel.el);
    const op = downloadModel(model.id, panel.update);
    panel.attach(op);
    try {
      model = (await op.result).model;
    } catch (e) {
      error.replaceChildren(errorBlock(errorMessage(e), 'setup-error-text'));
      error.hidden = false;
    } finally {
      panel.done();
      state.hidden = false;
    }
    // After a failure the files may still have changed (bytes kept, a bad download deleted): show what is there.
    try {
      model = (await firstStart()).model ?? model;
    } catch {
      /* keep the last known state */
    }
    render();
    if (model.state === 'ready' || model.state === 'unverified') onReady();
  };
  skip.onclick = close;
  done.onclick = close;

  const licence = model.licence || 'licence not stated';
  const card = h(
    'section',
    { class: 'setup-card card', 'data-testid': 'setup-card', 'aria-label': 'Set up Registro' },
    h('h2', {}, 'Set up Registro'),
    h(
      'p',
      {},
      'Registro translates on this computer with a language model. Download it once',
      model.bytes > 0 ? ` (${bytes(model.bytes)})` : '',
      '; after that, translating needs no network.',
    ),
    h(
      'div',
      { class: 'setup-model' },
      h('strong', { 'data-testid': 'setup-model-name' }, model.name),
      h(
        'div',
        { class: 'setup-facts muted' },
        h('span', { 'data-testid': 'setup-model-size' }, model.bytes > 0 ? bytes(model.bytes) : 'size unknown'),
        ' · ',
        h('span', { 'data-testid': 'setup-model-licence' }, licence),
        ' · ',
        h('span', {}, model.id),
      ),
      model.description ? h('p', { class: 'small muted' }, model.description) : null,
    ),
    state,
    progressSlot,
    error,
    h('div', { class: 'setup-actions' }, skip, download, done),
    h(
      'p',
      { class: 'small muted' },
      `Stored in ${cacheDir}. The file is checked against its sha256 checksum before it is used; a download you cancel continues where it stopped. Settings → Models lists every model.`,
    ),
  );
  render();
  slot.append(card);
  download.focus();
}
