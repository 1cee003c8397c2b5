// Settings → Backends: an OpenAI-compatible server (vLLM, SGLang, llama.cpp) for translations. Test connection
// probes the server (core `RemoteGenerator::connect`) and shows what it honours; the connected backend then appears
// in the Translate view's model picker beside the local models. A key typed here goes to the OS keyring (through
// the backend process) and the field is emptied: it is never kept in the page or its storage, and the answer says
// only where the key comes from. The URL and model are remembered in localStorage for the next start.
//
// Test ids: backend-url, backend-model, backend-key, backend-test, backend-result, backend-cap (data-cap,
// data-on), backend-note, backend-error, backend-clear, backend-key-source (data-source), backend-forget-key.

import { call } from '../api';
import type { BackendStatus, KeySource } from '../api';
import { errorMessage } from '../components';
import { clear, h } from '../dom';

export const backendStatus = () => call<BackendStatus | null>('backend_status', {});

const KEY_SOURCE: Record<KeySource, string> = {
  keyring: 'key stored in the keyring',
  environment: 'key from REGISTRO_API_KEY',
  none: 'no API key',
};

function renderStatus(out: HTMLElement, s: BackendStatus): void {
  clear(out);
  const c = s.capabilities;
  const cap = (key: string, label: string, on: boolean) =>
    h('span', { class: `chip ${on ? 'on' : 'off'}`, 'data-testid': 'backend-cap', 'data-cap': key, 'data-on': on ? '1' : '0' }, label);
  out.append(
    h('p', {}, 'Connected: ', h('strong', {}, s.model), ` at ${s.url} · `, h('span', { 'data-testid': 'backend-key-source', 'data-source': s.key }, KEY_SOURCE[s.key])),
    h('p', { class: 'muted small' }, `Runs record it as ${s.id}. Pick it as the model in Translate.`),
    h(
      'div',
      {},
      cap('logprobs', 'logprobs (model score)', c.logprobs),
      cap('n', 'n > 1 (candidates in one request)', c.n),
      cap('tokenize', `tokenize${c.tokenize ? ` (${c.tokenize})` : ''}`, c.tokenize !== null),
      cap('logit_bias', 'logit_bias (marker bans)', c.logit_bias),
      cap('echo_logprobs', 'echo + logprobs (scoring)', c.echo_logprobs),
    ),
    ...c.notes.map((n) => h('p', { class: 'muted small', 'data-testid': 'backend-note' }, n)),
    h('p', { class: 'muted small' }, `Served models: ${c.models.join(', ')}`),
  );
}

export function renderBackends(body: HTMLElement): void {
  clear(body);
  const url = h('input', { class: 'input', 'data-testid': 'backend-url', placeholder: 'http://127.0.0.1:8000/v1', value: localStorage.getItem('registro.backend.url') ?? '' });
  const model = h('input', { class: 'input', 'data-testid': 'backend-model', placeholder: 'first served model', value: localStorage.getItem('registro.backend.model') ?? '' });
  const key = h('input', { class: 'input', type: 'password', autocomplete: 'off', 'data-testid': 'backend-key', placeholder: 'saved in the OS keyring' });
  const out = h('div', { 'data-testid': 'backend-result' });
  const test = h('button', { class: 'btn primary', 'data-testid': 'backend-test' }, 'Test connection');
  const forget = h('button', { class: 'btn', 'data-testid': 'backend-clear' }, 'Disconnect');
  const forgetKey = h('button', { class: 'btn', 'data-testid': 'backend-forget-key' }, 'Remove stored key');
  test.onclick = async () => {
    test.disabled = true;
    test.textContent = 'Testing…';
    clear(out);
    try {
      const s = await call<BackendStatus>('test_backend', { url: url.value, model: model.value || null, apiKey: key.value || null });
      localStorage.setItem('registro.backend.url', url.value.trim());
      localStorage.setItem('registro.backend.model', model.value.trim());
      renderStatus(out, s);
    } catch (e) {
      out.append(h('p', { class: 'error', 'data-testid': 'backend-error' }, errorMessage(e)));
    } finally {
      key.value = '';
      test.disabled = false;
      test.textContent = 'Test connection';
    }
  };
  forget.onclick = async () => {
    await call('clear_backend', {});
    clear(out);
    out.append(h('p', { class: 'muted' }, 'No backend: translations run on the local models.'));
  };
  forgetKey.onclick = async () => {
    clear(out);
    try {
      const removed = await call<boolean>('forget_backend_key', { url: url.value });
      out.append(h('p', { class: 'muted' }, removed ? 'Key removed from the keyring; the backend is disconnected.' : 'No key was stored for this URL.'));
    } catch (e) {
      out.append(h('p', { class: 'error', 'data-testid': 'backend-error' }, errorMessage(e)));
    }
  };
  body.append(
    h(
      'div',
      { class: 'card' },
      h('h3', {}, 'OpenAI-compatible server'),
      h('p', { class: 'muted small' }, 'vLLM, SGLang or llama.cpp serving an instruct model. Registro applies its register controls on top; see README → Scaling out.'),
      h('div', { class: 'tr-form' }, h('label', {}, 'API base URL', url), h('label', {}, 'Model', model), h('label', {}, 'API key', key)),
      h('div', {}, test, ' ', forget, ' ', forgetKey),
      out,
    ),
  );
  void backendStatus().then((s) => {
    if (s) renderStatus(out, s);
  });
}
