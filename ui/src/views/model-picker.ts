// The model picker of the Translate and Rewrite views: the local language models that are installed (a model that
// is not on disk is never offered: picking it could only fail), each with its size, the languages its card names
// and what it is worth for the chosen target language (core `models::quality_for`, from the numbers measured into
// its manifest), the backend connected in Settings → Backends beside them, and "Get more models…" into Settings →
// Models. A model that is poor for the chosen language says so beside the picker before anything runs.
//
// The picked value lives in `input` (`<prefix>-model`): a model id, the backend's id, or a GGUF path typed in it
// after choosing "A GGUF file on this computer…" (the box is shown only then). Setting its value and sending an
// `input` event (as the window tests do) selects the matching entry.
//
// `preselect`: a connected backend becomes the value (Translate: the user connected it to use it; Rewrite lists it
// only, since its rules method needs no model at all). `placeholder` (Rewrite): the empty value is an entry of its
// own, "no model picked".
//
// Test ids: <prefix>-model (the value), <prefix>-model-select (#<prefix>-models), <prefix>-model-option
// (data-model-id, data-quality), <prefix>-model-remote, <prefix>-model-path-option, <prefix>-model-info,
// <prefix>-model-warning (data-lang), <prefix>-model-none, <prefix>-model-more.

import './model-picker.css';

import type { BackendStatus, LangQuality, ModelSummary } from '../api';
import { clear, h } from '../dom';
import { backendStatus } from './settings-backends';
import { MODELS_CHANGED, openSettings } from './settings';
import { bytes, listModels } from './setup-api';

/** The value of the "A GGUF file…" entry; never a model id (ids cannot contain `:`). */
const PATH = ':path';

export interface ModelPicker {
  /** The picked model id, backend id or GGUF path (`.value`); a text box shown only for a path. */
  input: HTMLInputElement;
  /** The picker itself (the list, what the pick is worth, the warning, Get more models…): put it beside `input`. */
  list: HTMLElement;
  /** The target language (code) the quality shown and the warning are for; '' for none. */
  setLang: (lang: string) => void;
}

const LEVEL_WORD: Record<LangQuality['level'], string> = { good: 'good', usable: 'usable', poor: 'poor', not_measured: 'not measured' };

export function modelPicker(prefix: string, value: string, preselect: boolean, placeholder?: string): ModelPicker {
  const input = h('input', {
    class: 'input model-path',
    'data-testid': `${prefix}-model`,
    value,
    placeholder: '/path/to/model.gguf',
    'aria-label': 'Path of a GGUF model file',
    spellcheck: 'false',
  }) as HTMLInputElement;
  const picker = h('select', { class: 'input', id: `${prefix}-models`, 'data-testid': `${prefix}-model-select`, 'aria-label': 'Model' }) as HTMLSelectElement;
  const info = h('div', { class: 'small muted model-pick-info', 'data-testid': `${prefix}-model-info`, 'aria-live': 'polite' });
  const warning = h('div', { class: 'model-pick-warning', 'data-testid': `${prefix}-model-warning`, role: 'alert', hidden: true });
  const more = h('button', { type: 'button', class: 'btn small', 'data-testid': `${prefix}-model-more`, title: 'Settings → Models: download, verify or import models' }, 'Get more models…');
  const list = h('div', { class: 'model-picker', 'data-testid': `${prefix}-model-picker` }, h('div', { class: 'model-pick-row' }, picker, more), info, warning);

  let models: ModelSummary[] = [];
  let backend: BackendStatus | null = null;
  let lang = '';
  // A value set before the list arrived (a user quick on the keyboard, a test) is kept rather than replaced.
  let touched = false;

  const quality = (m: ModelSummary): LangQuality | undefined => m.quality.find((q) => q.lang === lang);
  const showPath = (on: boolean) => {
    input.hidden = !on;
    list.classList.toggle('with-path', on);
  };

  const optionLabel = (m: ModelSummary) => {
    const q = lang ? quality(m) : undefined;
    return `${m.name} · ${m.bytes > 0 ? bytes(m.bytes) : 'size unknown'}${q ? ` · ${LEVEL_WORD[q.level]}` : ''}`;
  };

  /** Selects the entry of the current value (the path entry for anything else) and says what it is worth. */
  const sync = () => {
    const v = input.value.trim();
    const match = [...picker.options].find((o) => o.value === v && o.value !== PATH);
    picker.value = match ? match.value : PATH;
    showPath(!match);
    describe();
  };

  const describe = () => {
    clear(info);
    warning.hidden = true;
    clear(warning);
    const v = input.value.trim();
    const m = models.find((x) => x.id === v);
    if (backend && v === backend.id) {
      info.append(`Backend ${backend.model} at ${backend.url}: its quality is not measured by Registro; review every sentence.`);
      return;
    }
    if (!m) {
      if (picker.value === PATH) info.append(v ? 'A GGUF file outside the model cache: its quality is not measured.' : 'Type the path of a GGUF model file.');
      else if (!v && placeholder) info.append('No model: the rules need none; round trip and LLM use the default model.');
      return;
    }
    const langs = m.languages.length > 0 ? `languages its card names: ${m.languages.join(' ')}` : 'languages: its card names none';
    info.append(`${m.bytes > 0 ? bytes(m.bytes) : 'size unknown'} · ${langs}`);
    const q = lang ? quality(m) : undefined;
    if (!q) return;
    if (q.level === 'poor') {
      // Said once, where it cannot be missed.
      warning.dataset.lang = lang;
      warning.append(h('strong', {}, 'Before you run it: '), q.text);
      warning.hidden = false;
    } else {
      info.append(h('br'), h('span', { class: `model-quality q-${q.level}`, 'data-testid': `${prefix}-model-quality`, 'data-level': q.level }, q.text));
    }
  };

  const render = () => {
    const keep = input.value.trim();
    clear(picker);
    const installed = models.filter((m) => m.role === 'llm' && (m.state === 'ready' || m.state === 'unverified'));
    if (backend) picker.append(h('option', { value: backend.id, 'data-testid': `${prefix}-model-remote` }, `Backend · ${backend.model}`));
    if (placeholder) picker.append(h('option', { value: '' }, 'No model picked (the default where one is needed)'));
    for (const m of installed) picker.append(h('option', { value: m.id, 'data-testid': `${prefix}-model-option`, 'data-model-id': m.id, 'data-quality': (lang && quality(m)?.level) || '' }, optionLabel(m)));
    picker.append(h('option', { value: PATH, 'data-testid': `${prefix}-model-path-option` }, 'A GGUF file on this computer…'));
    list.querySelector(`[data-testid="${prefix}-model-none"]`)?.remove();
    if (installed.length === 0) {
      info.before(h('p', { class: 'small warn-text', 'data-testid': `${prefix}-model-none` }, 'No language model is installed: get one with “Get more models…”.'));
    }
    const offered = (v: string) => (backend !== null && v === backend.id) || installed.some((m) => m.id === v) || (placeholder !== undefined && v === '');
    if (!touched) {
      if (backend && preselect) input.value = backend.id;
      else if (!offered(keep) && installed.length > 0 && !placeholder) input.value = installed.find((m) => m.default)?.id ?? installed[0].id;
    }
    sync();
  };

  const load = async () => {
    const [all, b] = await Promise.all([listModels().catch(() => [] as ModelSummary[]), backendStatus().catch(() => null)]);
    models = all;
    backend = b;
    render();
  };

  picker.addEventListener('change', () => {
    touched = true;
    if (picker.value === PATH) {
      if (models.some((m) => m.id === input.value) || (backend && input.value === backend.id)) input.value = '';
      showPath(true);
      input.focus();
    } else {
      input.value = picker.value;
      showPath(false);
    }
    describe();
  });
  input.addEventListener('input', () => {
    touched = true;
    sync();
  });
  more.addEventListener('click', () => {
    openSettings();
    document.querySelector<HTMLButtonElement>('[data-testid="settings-models"]')?.click();
  });
  // A model downloaded, imported or removed in Settings → Models joins or leaves the list at once; a picker whose
  // view was closed stops listening.
  const onModelsChanged = () => {
    if (!list.isConnected) window.removeEventListener(MODELS_CHANGED, onModelsChanged);
    else void load();
  };
  window.addEventListener(MODELS_CHANGED, onModelsChanged);

  showPath(false);
  void load();
  return {
    input,
    list,
    setLang: (l: string) => {
      lang = l;
      for (const o of picker.querySelectorAll<HTMLOptionElement>(`[data-testid="${prefix}-model-option"]`)) {
        const m = models.find((x) => x.id === o.value);
        if (!m) continue;
        o.textContent = optionLabel(m);
        o.dataset.quality = (lang && quality(m)?.level) || '';
      }
      describe();
    },
  };
}
