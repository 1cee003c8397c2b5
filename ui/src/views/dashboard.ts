// Dashboard view: compare N stored runs. Import a folder of submissions as runs; filter, page and pick runs and a
// baseline (dashboard-runs.ts); a comparison shows its progress and can be cancelled; tables with 95% CIs and
// significance markers; charts rendered by the backend when scrolled to; drill-down; blind human rating; export of
// tables, charts and a one-file HTML report.

import './dashboard.css';

import { type Operation, chooseFile } from '../api';
import { ProgressPanel, errorMessage } from '../components';
import type { ViewContext } from '../context';
import { clear, h, select } from '../dom';
import { type Comparison, compareRuns, dashboardDefaults, exportReport, importSubmissions } from './dashboard-api';
import { drillView } from './dashboard-drill';
import { rateView } from './dashboard-rate';
import { cancelPendingTables, chartsView, pendingTableView, releaseImages, tableView, timingsLine } from './dashboard-results';
import { runsTable } from './dashboard-runs';

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
  const runs = runsTable(ctx);
  const refreshRuns = runs.refresh;

  // ---- results ----
  const results = h('div', { class: 'dash-results', 'data-testid': 'dash-results' });
  // The form starts from core's CompareOptions::default() (as `registro report`'s flags do); left empty, core's
  // default is used, and core checks what is typed.
  const bootstrap = h('input', { class: 'input', type: 'number', min: 0, style: 'width:6em', 'data-testid': 'dash-bootstrap', title: 'bootstrap resamples (0 = no CIs)' });
  const test = select({ 'data-testid': 'dash-test' }, [['bootstrap', 'paired bootstrap'], ['randomization', 'approximate randomization']]);
  void dashboardDefaults()
    .then((d) => {
      if (bootstrap.value === '') bootstrap.value = String(d.compare.bootstrap);
      if (d.compare.test) test.value = d.compare.test;
    })
    .catch((e) => notify(errorMessage(e), 'error'));
  let current: Comparison | null = null;
  const compareBtn = h('button', { class: 'btn primary', 'data-testid': 'dash-compare', onclick: () => void compare() }, 'Compare');
  const compareBox = h('div', {});
  let running: Operation<Comparison> | null = null;

  const compare = async () => {
    const ids = runs.selected();
    if (ids.length === 0) {
      notify('tick the runs to compare', 'error');
      return;
    }
    if (running) return;
    // A new comparison clears the status bar, as a new translation or rewrite does.
    notify('');
    const t0 = performance.now();
    results.setAttribute('data-busy', '1');
    compareBtn.disabled = true;
    const panel = new ProgressPanel('dash-compare-progress');
    compareBox.append(panel.el);
    let cancelled = false;
    // Charts are rendered when the page shows them (dashboard_chart_svg), not with the tables; so are tables that
    // cost a pass over every segment of every system (dashboard_table).
    cancelPendingTables();
    const started = compareRuns(
      ids,
      runs.baseline(),
      { bootstrap: bootstrap.value === '' ? undefined : Number(bootstrap.value), test: test.value as 'bootstrap' | 'randomization', render_svg: false, lazy_tables: true },
      panel.update,
    );
    const op = { ...started, cancel: () => ((cancelled = true), started.cancel()) };
    panel.attach(op);
    running = op;
    try {
      const cmp = await op.result;
      current = cmp;
      releaseImages();
      clear(results);
      results.append(
        h('p', { class: 'muted small' }, `Test set: ${cmp.document} (${cmp.source_lang}→${cmp.target_lang}). Baseline: ${cmp.systems.find((s) => s.baseline)?.label ?? ''}.`),
        ...cmp.tables.map(tableView),
        ...cmp.pending_tables.map((p) => pendingTableView(p, notify)),
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
      // A cancel is what the user asked for, not a failure; what was on screen stays.
      if (cancelled) notify('comparison cancelled');
      else notify(errorMessage(e), 'error');
    } finally {
      running = null;
      panel.done();
      compareBtn.disabled = false;
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
      runs.el,
      h('div', { class: 'row' }, 'CIs:', bootstrap, test, compareBtn),
      compareBox,
    ),
    results,
  );
  void refreshRuns();
  const unsubscribe = ctx.subscribe((what) => {
    if (what === 'runs') void refreshRuns();
  });
  return () => {
    unsubscribe();
    void running?.cancel();
    releaseImages();
  };
}
