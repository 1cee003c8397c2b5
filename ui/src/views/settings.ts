// Settings → About: what this build is and what it found on this machine (the same report as `registro doctor`,
// core `doctor::gather`), with the text to paste into a bug report. Opened from the sidebar's Settings button as a
// panel over the window; needs no open project. The model-source check sends network requests, so it runs only
// when the user clicks for it. The panel's other sections: Models (settings-models.ts), Backends
// (settings-backends.ts).
//
// Test ids: open-settings (sidebar), settings-panel, settings-close, settings-about / settings-models /
// settings-backends (the sections), about-facts, about-fact (data-key),
// about-gpus, about-models, about-model (data-model-id, data-state), about-sources, about-check-sources,
// about-source (data-reachable), about-text, about-error.

import './settings.css';

import { call } from '../api';
import type { AboutReport } from '../api';
import { errorMessage } from '../components';
import { clear, h } from '../dom';
import { renderBackends } from './settings-backends';
import { renderModels } from './settings-models';

/** Dispatched on `window` when a model was downloaded, verified, removed or imported. */
export const MODELS_CHANGED = 'registro:models-changed';

const aboutReport = (checkSources: boolean) => call<AboutReport>('about_report', { checkSources });

function bytes(n: number | null): string {
  if (n === null) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

function fact(key: string, label: string, value: string, note?: string | null) {
  return h(
    'div',
    { class: 'about-fact', 'data-testid': 'about-fact', 'data-key': key },
    h('dt', {}, label),
    h('dd', {}, value, note ? h('div', { class: 'small warn-note' }, note) : null),
  );
}

function renderReport(body: HTMLElement, about: AboutReport, onCheck: () => void) {
  const r = about.report;
  clear(body);
  const simd = r.cpu.features.map((f) => h('span', { class: `chip ${f.present ? 'on' : 'off'}`, title: f.present ? 'present' : 'absent' }, f.name));
  const store = r.store.schema_version === null ? r.store.status : `schema ${r.store.schema_version} of ${r.store.supported_version}: ${r.store.status}`;
  body.append(
    h(
      'dl',
      { class: 'about-facts', 'data-testid': 'about-facts' },
      fact('version', 'Version', `Registro ${r.version}${r.commit ? ` (${r.commit})` : ''}`),
      fact('os', 'System', r.os),
      fact('cpu', 'CPU', `${r.cpu.model} (${r.cpu.arch}, ${r.cpu.threads} threads)`),
      h('div', { class: 'about-fact', 'data-testid': 'about-fact', 'data-key': 'simd' }, h('dt', {}, 'SIMD'), h('dd', {}, ...simd)),
      fact('kernels', 'Kernels', r.cpu.kernels),
      fact('backends', 'Built with', r.backends.join(', ')),
      fact('device', 'Models run on', r.device, r.device_note),
      fact('store', 'Database', r.store.path, store),
      fact('network', 'Network', r.network),
      fact('shared-data', 'Shared data', r.shared_data ? `${r.shared_data.path}` : 'not found (tests and benchmarks only)', r.shared_data?.sets.join(', ')),
    ),
  );

  const gpus = h('div', { class: 'card', 'data-testid': 'about-gpus' }, h('h3', {}, 'GPUs'));
  if (r.gpus.length === 0) gpus.append(h('p', { class: 'muted' }, 'None found.'));
  for (const g of r.gpus) {
    const extra = [bytes(g.memory_bytes), g.compute_capability ? `compute ${g.compute_capability}` : ''].filter(Boolean).join(', ');
    gpus.append(h('p', {}, h('strong', {}, g.device), ` ${g.name}${extra ? ` (${extra})` : ''}`, g.usable ? '' : h('span', { class: 'muted' }, ' — not usable by this build')));
  }
  for (const n of r.gpu_notes) gpus.append(h('p', { class: 'small muted' }, n));
  body.append(gpus);

  // The translation example pools this install found, per language (core `doctor::examples_report`): a missing
  // one means translating into that language fails, so it is shown, not hidden.
  const ex = r.examples;
  const pools = h('table', { class: 'table', 'data-testid': 'about-examples' }, h('thead', {}, h('tr', {}, h('th', {}, 'Language'), h('th', { class: 'num' }, 'Pairs'), h('th', {}, 'From'))));
  const poolRows = h('tbody');
  for (const p of ex.pools) {
    poolRows.append(
      h(
        'tr',
        { 'data-testid': 'about-pool', 'data-lang': p.lang, 'data-ok': String(p.ok) },
        h('td', {}, `${p.name} (${p.lang})`),
        h('td', { class: 'num' }, p.ok ? String(p.pairs) : h('span', { class: 'badge failed' }, 'missing')),
        h('td', { class: 'small' }, p.detail),
      ),
    );
  }
  pools.append(poolRows);
  body.append(
    h(
      'div',
      { class: 'card' },
      h('h3', {}, 'Translation examples'),
      h('p', { class: ex.data_dir ? 'muted small' : 'error' }, ex.data_dir ? `${ex.data_dir} (${ex.found_by})` : ex.found_by),
      h('div', { class: 'table-wrap' }, pools),
    ),
  );

  const models = h('table', { class: 'table', 'data-testid': 'about-models' }, h('thead', {}, h('tr', {}, h('th', {}, 'Model'), h('th', {}, 'Kind'), h('th', {}, 'State'), h('th', { class: 'num' }, 'Size'))));
  const tbody = h('tbody');
  for (const m of r.models) {
    tbody.append(
      h(
        'tr',
        { 'data-testid': 'about-model', 'data-model-id': m.id, 'data-state': m.state },
        h('td', {}, m.id),
        h('td', {}, m.role),
        h('td', {}, h('span', { class: `badge model-${m.state}` }, m.state)),
        // Hub models nobody could download here have no known size.
        h('td', { class: 'num' }, m.bytes > 0 ? bytes(m.bytes) : '—'),
      ),
    );
  }
  models.append(tbody);
  body.append(h('div', { class: 'card' }, h('h3', {}, `Models (${r.models_dir})`), h('div', { class: 'table-wrap' }, models)));

  const sources = h('div', { class: 'card', 'data-testid': 'about-sources' }, h('h3', {}, 'Model sources'));
  if (r.sources === null) {
    sources.append(h('p', { class: 'muted' }, 'Not checked: checking sends one request to each download source.'));
  } else {
    for (const s of r.sources) {
      sources.append(
        h(
          'p',
          { 'data-testid': 'about-source', 'data-reachable': String(s.reachable) },
          h('span', { class: `badge ${s.reachable ? 'done' : 'failed'}` }, s.reachable ? 'reachable' : 'unreachable'),
          ` ${s.source} `,
          h('span', { class: 'muted small' }, `${s.url} — ${s.detail}`),
        ),
      );
    }
  }
  sources.append(h('button', { class: 'btn small', 'data-testid': 'about-check-sources', onclick: onCheck }, r.sources === null ? 'Check model sources' : 'Check again'));
  body.append(sources);

  const text = h('textarea', { class: 'input about-text', 'data-testid': 'about-text', readonly: true, rows: 8, spellcheck: 'false' });
  text.value = about.text;
  body.append(h('div', { class: 'card' }, h('h3', {}, 'For a bug report'), h('p', { class: 'muted small' }, 'Select all and copy into the report.'), text));
}

/** Opens the Settings panel over the window; closing it (button, Escape) removes it. */
export function openSettings(): void {
  if (document.querySelector('[data-testid="settings-panel"]')) return;
  const body = h('div', { class: 'settings-body' }, h('p', { class: 'muted' }, 'Gathering…'));
  const close = () => {
    overlay.remove();
    document.removeEventListener('keydown', onKey);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') close();
  };
  // Real buttons in a tablist: Tab reaches the selected one, the arrow keys (and Home/End) move between them and
  // open the section, Enter and Space open the focused one, as in any tab strip.
  const tabButton = (id: string, label: string) =>
    h('button', { type: 'button', class: 'tab', role: 'tab', 'aria-selected': 'false', tabindex: '-1', 'data-testid': `settings-${id}` }, label);
  const aboutTab = tabButton('about', 'About');
  const modelsTab = tabButton('models', 'Models');
  const backendsTab = tabButton('backends', 'Backends');
  const tabs = [aboutTab, modelsTab, backendsTab];
  const select = (tab: HTMLElement) => {
    for (const t of tabs) {
      t.classList.toggle('active', t === tab);
      t.setAttribute('aria-selected', String(t === tab));
      t.tabIndex = t === tab ? 0 : -1;
    }
  };
  select(aboutTab);
  const onTabKey = (e: KeyboardEvent) => {
    const at = tabs.indexOf(e.currentTarget as HTMLButtonElement);
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    next.focus();
    next.click();
  };
  for (const t of tabs) t.addEventListener('keydown', onTabKey);
  aboutTab.onclick = () => {
    select(aboutTab);
    void load(false);
  };
  modelsTab.onclick = () => {
    select(modelsTab);
    // The shell re-checks its start-up banners (a missing default model) when a model changed on disk.
    renderModels(body, () => window.dispatchEvent(new Event(MODELS_CHANGED)));
  };
  backendsTab.onclick = () => {
    select(backendsTab);
    renderBackends(body);
  };
  const panel = h(
    'section',
    { class: 'settings-panel card', 'data-testid': 'settings-panel', role: 'dialog', 'aria-label': 'Settings' },
    h(
      'header',
      { class: 'settings-header' },
      h('h2', {}, 'Settings'),
      h('nav', { class: 'settings-sections', role: 'tablist', 'aria-label': 'Settings sections' }, aboutTab, modelsTab, backendsTab),
      h('button', { class: 'btn small', 'data-testid': 'settings-close', onclick: close }, 'Close'),
    ),
    body,
  );
  const overlay = h('div', { class: 'overlay settings-overlay' }, panel);
  document.addEventListener('keydown', onKey);
  document.body.append(overlay);

  const load = async (checkSources: boolean) => {
    const button = body.querySelector<HTMLButtonElement>('[data-testid="about-check-sources"]');
    if (button) {
      button.disabled = true;
      button.textContent = 'Checking…';
    }
    try {
      const report = await aboutReport(checkSources);
      // The user may have switched to Backends while the report was gathered.
      if (aboutTab.classList.contains('active')) renderReport(body, report, () => void load(true));
    } catch (e) {
      if (!aboutTab.classList.contains('active')) return;
      clear(body);
      body.append(h('p', { class: 'error', 'data-testid': 'about-error' }, errorMessage(e)));
    }
  };
  void load(false);
}
