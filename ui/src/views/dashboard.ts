// Dashboard view: compare N stored runs. Import a folder of submissions as runs; filter and pick runs and a
// baseline; tables with 95% CIs and significance markers; charts rendered by the backend; drill-down; blind human
// rating; export of tables, charts and a one-file HTML report.

import './dashboard.css';

import { chooseFile } from '../api';
import { ProgressPanel, errorMessage } from '../components';
import type { ViewContext } from '../context';
import { clear, h, shortTime } from '../dom';
import { type Comparison, type RunSummary, compareRuns, dashboardListRuns, exportReport, importSubmissions } from './dashboard-api';
import { drillView } from './dashboard-drill';
import { rateView } from './dashboard-rate';
import { chartsView, releaseImages, tableView, timingsLine } from './dashboard-results';

export function mount(el: HTMLElement, ctx: ViewContext): () => void {
  const notify = (m: string, k?: 'info' | 'error') => ctx.notify(m, k);

  // ---- import a folder of submissions ----
  // The folder comes from a dialog the backend opens (a one-time token), so the page never names a path.
  const dir = h('span', { class: 'muted small grow', 'data-testid': 'dash-import-dir' }, 'e.g. …/iwslt2022-umd/en-de');
  const importBox = h('div', {});
  const doImport = async () => {
    let folder;
    try {
      folder = await chooseFile('submissions');
    } catch (e) {
      notify(errorMessage(e), 'error');
      return;
    }
    if (!folder) return;
    dir.textContent = folder.path;
    const panel = new ProgressPanel('dash-import-progress');
    importBox.append(panel.el);
    const op = importSubmissions(folder, ctx.project.name, panel.update);
    panel.attach(op);
    try {
      const r = await op.result;
      notify(`imported ${r.run_ids.length} runs: ${r.systems.join(', ')}`);
      ctx.changed('runs');
      await refreshRuns();
    } catch (e) {
      notify(errorMessage(e), 'error');
    } finally {
      panel.done();
    }
  };

  // ---- run picker ----
  const f = {
    scope: h('select', { class: 'input', 'data-testid': 'dash-f-scope' }, h('option', { value: 'project' }, 'this project'), h('option', { value: 'all' }, 'all projects')),
    task: h('select', { class: 'input', 'data-testid': 'dash-f-task' }, ...['', 'eval', 'translate', 'rewrite', 'import'].map((t) => h('option', { value: t }, t || 'any task'))),
    pair: h('input', { class: 'input', placeholder: 'en-de', style: 'width:6em', 'data-testid': 'dash-f-pair' }),
    register: h('select', { class: 'input', 'data-testid': 'dash-f-register' }, ...['', 'formal', 'informal', 'respectful'].map((t) => h('option', { value: t }, t || 'any register'))),
    model: h('input', { class: 'input', placeholder: 'model / system', style: 'width:10em', 'data-testid': 'dash-f-model' }),
    since: h('input', { class: 'input', type: 'date', 'data-testid': 'dash-f-since' }),
    until: h('input', { class: 'input', type: 'date', 'data-testid': 'dash-f-until' }),
  };
  const runsBox = h('div', { class: 'table-wrap dash-runs' });
  const selected = new Set<number>();
  let baseline: number | null = null;
  let runs: RunSummary[] = [];

  const renderRuns = () => {
    clear(runsBox);
    if (runs.length === 0) {
      runsBox.append(h('p', { class: 'empty' }, 'No finished runs match. Import a folder of submissions above, or run Translate / Rewrite.'));
      return;
    }
    const rows = runs.map((r) => {
      const check = h('input', {
        type: 'checkbox',
        'data-testid': 'dash-run-check',
        checked: selected.has(r.id),
        onchange: (e: Event) => {
          if ((e.target as HTMLInputElement).checked) selected.add(r.id);
          else selected.delete(r.id);
          if (baseline !== null && !selected.has(baseline)) baseline = null;
          renderRuns();
        },
      });
      const base = h('input', {
        type: 'radio',
        name: 'dash-baseline',
        'data-testid': 'dash-run-baseline',
        checked: baseline === r.id,
        disabled: !selected.has(r.id),
        onchange: () => {
          baseline = r.id;
        },
      });
      return h(
        'tr',
        { 'data-testid': 'dash-run-row', 'data-run-id': r.id, 'data-system': r.system, class: selected.has(r.id) ? 'selected' : '' },
        h('td', {}, check),
        h('td', {}, base),
        h('td', {}, String(r.id)),
        h('td', {}, r.system),
        h('td', {}, r.task),
        h('td', {}, `${r.source_lang ?? '?'}→${r.target_lang ?? '?'}`),
        h('td', {}, r.register ?? ''),
        h('td', {}, r.model_id ?? ''),
        h('td', { class: 'small muted' }, r.document ?? ''),
        h('td', { class: 'small muted' }, shortTime(r.created_at)),
      );
    });
    runsBox.append(
      h(
        'table',
        { class: 'table' },
        h('thead', {}, h('tr', {}, ...['Compare', 'Baseline', 'Run', 'System', 'Task', 'Pair', 'Register', 'Model', 'Document', 'Created'].map((t) => h('th', {}, t)))),
        h('tbody', {}, ...rows),
      ),
    );
  };

  const refreshRuns = async () => {
    try {
      runs = await dashboardListRuns({
        project: f.scope.value === 'project' ? String(ctx.project.id) : null,
        // The select offers only the store's task names.
        task: (f.task.value || null) as RunSummary['task'] | null,
        language_pair: f.pair.value || null,
        register: f.register.value || null,
        model: f.model.value || null,
        since: f.since.value || null,
        until: f.until.value || null,
      });
      renderRuns();
    } catch (e) {
      notify(errorMessage(e), 'error');
    }
  };
  for (const input of Object.values(f)) input.addEventListener('change', () => void refreshRuns());

  // ---- results ----
  const results = h('div', { class: 'dash-results', 'data-testid': 'dash-results' });
  const bootstrap = h('input', { class: 'input', type: 'number', min: 0, max: 10000, value: 1000, style: 'width:6em', 'data-testid': 'dash-bootstrap', title: 'bootstrap resamples (0 = no CIs)' });
  const test = h('select', { class: 'input', 'data-testid': 'dash-test' }, h('option', { value: 'bootstrap' }, 'paired bootstrap'), h('option', { value: 'randomization' }, 'approximate randomization'));
  let current: Comparison | null = null;

  const compare = async () => {
    if (selected.size === 0) {
      notify('tick the runs to compare', 'error');
      return;
    }
    const ids = runs.filter((r) => selected.has(r.id)).map((r) => r.id);
    const t0 = performance.now();
    results.setAttribute('data-busy', '1');
    try {
      const cmp = await compareRuns(ids, baseline, { bootstrap: Number(bootstrap.value), test: test.value as 'bootstrap' | 'randomization' });
      current = cmp;
      releaseImages();
      clear(results);
      results.append(
        h('p', { class: 'muted small' }, `Test set: ${cmp.document} (${cmp.source_lang}→${cmp.target_lang}). Baseline: ${cmp.systems.find((s) => s.baseline)?.label ?? ''}.`),
        ...cmp.tables.map(tableView),
        chartsView(cmp, notify),
        drillView(cmp, notify),
        rateView(cmp, notify),
        exportCard(),
      );
      // Measured after the DOM holds tables and charts; the e2e test and the timings line report it.
      const ms = performance.now() - t0;
      results.prepend(timingsLine(cmp, ms));
      results.setAttribute('data-shown-ms', ms.toFixed(0));
    } catch (e) {
      notify(errorMessage(e), 'error');
    } finally {
      results.removeAttribute('data-busy');
    }
  };

  const exportCard = () => {
    const run = async () => {
      if (!current) return;
      try {
        const folder = await chooseFile('report-folder');
        if (!folder) return;
        const r = await exportReport(folder);
        notify(`wrote ${r.files.length} files to ${r.dir}`);
      } catch (e) {
        notify(errorMessage(e), 'error');
      }
    };
    return h(
      'section',
      { class: 'card' },
      h('h3', {}, 'Export'),
      h('p', { class: 'muted small' }, 'Every table as CSV, JSON, LaTeX and Markdown; every chart as SVG and PNG; comparison.json and a one-file report.html.'),
      h('div', { class: 'row' }, h('button', { class: 'btn primary', 'data-testid': 'dash-export', onclick: () => void run() }, 'Export to a folder…')),
    );
  };

  el.append(
    h('header', { class: 'view-header' }, h('h2', {}, 'Dashboard'), h('p', { class: 'muted' }, 'Compare stored runs: BLEU/chrF/TER with 95% CIs and significance, matched accuracy, formality, drill-down and human ratings.')),
    h(
      'section',
      { class: 'card' },
      h('h3', {}, 'Import submissions'),
      h('p', { class: 'muted small' }, 'A CoCoA-MT / IWSLT formality-track folder: the test set with its references and one file per system and register. Each file becomes a scored run in this project.'),
      h('div', { class: 'row' }, h('button', { class: 'btn primary', 'data-testid': 'dash-import', onclick: () => void doImport() }, 'Import a folder…'), dir),
      importBox,
    ),
    h(
      'section',
      { class: 'card' },
      h('h3', {}, 'Runs'),
      h('div', { class: 'row' }, f.scope, f.task, f.pair, f.register, f.model, 'from', f.since, 'to', f.until),
      runsBox,
      h('div', { class: 'row' }, 'CIs:', bootstrap, test, h('button', { class: 'btn primary', 'data-testid': 'dash-compare', onclick: () => void compare() }, 'Compare')),
    ),
    results,
  );
  void refreshRuns();
  const unsubscribe = ctx.subscribe((what) => {
    if (what === 'runs') void refreshRuns();
  });
  return () => {
    unsubscribe();
    releaseImages();
  };
}
