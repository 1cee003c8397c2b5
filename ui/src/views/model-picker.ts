// The model picker of the Translate and Rewrite views: a text box (any model id or GGUF path still works) with a
// list of the installed local LLMs and the backend connected in Settings → Backends. `preselect`: a connected
// backend becomes the value (Translate: the user connected it to use it; Rewrite lists it only, since its rules
// method needs no model at all).

import { type AboutReport, call } from '../api';
import { h } from '../dom';
import { backendStatus } from './settings-backends';

/** `prefix` names the elements: `<prefix>-model` (the box), `<prefix>-models` (its list), `<prefix>-model-remote`. */
export function modelPicker(prefix: string, value: string, preselect: boolean, placeholder?: string): { input: HTMLInputElement; list: HTMLElement } {
  const list = h('datalist', { id: `${prefix}-models`, 'data-testid': `${prefix}-model-options` });
  const input = h('input', { class: 'input', 'data-testid': `${prefix}-model`, value, list: `${prefix}-models`, ...(placeholder ? { placeholder } : {}) }) as HTMLInputElement;
  void Promise.all([call<AboutReport>('about_report', { checkSources: false }).catch(() => null), backendStatus().catch(() => null)]).then(([about, backend]) => {
    const local = (about?.report.models ?? []).filter((m) => m.role === 'llm').map((m) => h('option', { value: m.id }, `local · ${m.state}`));
    list.append(...(backend ? [h('option', { value: backend.id, 'data-testid': `${prefix}-model-remote` }, `remote · ${backend.model}`)] : []), ...local);
    if (backend && preselect) input.value = backend.id;
  });
  return { input, list };
}
