// The Dashboard's runs table: one page of the stored runs at a time, filtered, ordered and paged by the backend
// (dashboard_list_runs), so a store with thousands of runs renders as fast as one with ten. Ticked runs and the
// baseline are kept by id across pages, filters and orders; the page only ever holds the rows it shows.

import { errorMessage } from '../components';
import type { ViewContext } from '../context';
import { clear, h, shortTime } from '../dom';
import { type RunPage, type RunQuery, type RunSort, type RunSummary, dashboardListRuns } from './dashboard-api';

const PAGE_SIZES = [25, 50, 100, 200, 500];
/** Typing in a text box waits this long for the next key before asking the backend. */
const TYPING_MS = 250;

/** The columns of the table: header, the backend's order (when it can order by it), and the cell. */
const COLUMNS: Array<{ label: string; sort?: RunSort; cell: (r: RunSummary) => Node | string; cls?: string }> = [
  { label: 'Run', sort: 'id', cell: (r) => String(r.id) },
  { label: 'System', sort: 'system', cell: (r) => r.system },
  { label: 'Task', sort: 'task', cell: (r) => r.task },
  { label: 'Pair', sort: 'pair', cell: (r) => `${r.source_lang ?? '?'}→${r.target_lang ?? '?'}` },
  { label: 'Register', sort: 'register', cell: (r) => r.register ?? '' },
  { label: 'Model', sort: 'model', cell: (r) => r.model_id ?? '' },
  { label: 'Document', cell: (r) => r.document ?? '', cls: 'small muted' },
  { label: 'Created', sort: 'created', cell: (r) => shortTime(r.created_at), cls: 'small muted' },
];

export interface RunsTable {
  el: HTMLElement;
  /** The ticked runs, newest first, whichever page they are on. */
  selected(): number[];
  baseline(): number | null;
  refresh(): Promise<void>;
}

export function runsTable(ctx: ViewContext): RunsTable {
  const notify = (m: string, k?: 'info' | 'error') => ctx.notify(m, k);
  const f = {
    scope: h('select', { class: 'input', 'data-testid': 'dash-f-scope', 'aria-label': 'projects' }, h('option', { value: 'project' }, 'this project'), h('option', { value: 'all' }, 'all projects')),
    task: h('select', { class: 'input', 'data-testid': 'dash-f-task', 'aria-label': 'task' }, ...['', 'eval', 'translate', 'rewrite', 'import'].map((t) => h('option', { value: t }, t || 'any task'))),
    pair: h('input', { class: 'input', placeholder: 'en-de', style: 'width:6em', 'data-testid': 'dash-f-pair', 'aria-label': 'language pair' }),
    register: h('select', { class: 'input', 'data-testid': 'dash-f-register', 'aria-label': 'register' }, ...['', 'formal', 'informal', 'respectful'].map((t) => h('option', { value: t }, t || 'any register'))),
    model: h('input', { class: 'input', placeholder: 'model / system', style: 'width:10em', 'data-testid': 'dash-f-model', 'aria-label': 'model or system' }),
    since: h('input', { class: 'input', type: 'date', 'data-testid': 'dash-f-since', 'aria-label': 'created from' }),
    until: h('input', { class: 'input', type: 'date', 'data-testid': 'dash-f-until', 'aria-label': 'created until' }),
  };
  const pageSize = h('select', { class: 'input', 'data-testid': 'dash-page-size', 'aria-label': 'rows per page' }, ...PAGE_SIZES.map((n) => h('option', { value: String(n) }, `${n} per page`)));
  pageSize.value = '50';

  // Ticked runs by id, with what the "selected" line shows; kept when the page, filter or order changes.
  const selected = new Map<number, string>();
  let baseline: number | null = null;
  let sort: RunSort = 'id';
  let ascending = false;
  let offset = 0;
  let page: RunPage | null = null;
  // Answers to superseded requests (the user typed on, or paged again) are dropped.
  let asked = 0;

  const box = h('div', { class: 'table-wrap dash-runs', 'data-testid': 'dash-runs', tabindex: 0, 'aria-label': 'runs; Page Up and Page Down change the page' });
  const range = h('span', { class: 'muted small grow', 'data-testid': 'dash-runs-range', 'aria-live': 'polite' });
  const picked = h('span', { class: 'small', 'data-testid': 'dash-selected' });
  const clearPicked = h('button', { class: 'btn small', 'data-testid': 'dash-clear-selection', onclick: () => ((selected.clear(), (baseline = null)), render()) }, 'Clear');
  const pagerBtn = (label: string, testid: string, title: string, to: () => number) =>
    h('button', { class: 'btn small', 'data-testid': testid, title, 'aria-label': title, onclick: () => void goTo(to()) }, label);
  const last = () => (page ? Math.max(0, Math.floor((page.total - 1) / page.limit) * page.limit) : 0);
  const limit = () => Number(pageSize.value);
  const buttons = {
    first: pagerBtn('«', 'dash-page-first', 'first page', () => 0),
    prev: pagerBtn('‹ Previous', 'dash-page-prev', 'previous page', () => Math.max(0, offset - limit())),
    next: pagerBtn('Next ›', 'dash-page-next', 'next page', () => offset + limit()),
    last: pagerBtn('»', 'dash-page-last', 'last page', last),
  };

  const query = (): RunQuery => ({
    project: f.scope.value === 'project' ? String(ctx.project.id) : null,
    // The select offers only the store's task names.
    task: (f.task.value || null) as RunSummary['task'] | null,
    language_pair: f.pair.value.trim() || null,
    register: f.register.value || null,
    model: f.model.value.trim() || null,
    since: f.since.value || null,
    until: f.until.value || null,
    sort,
    ascending,
    offset,
    limit: limit(),
  });

  const load = async () => {
    const mine = ++asked;
    const t0 = performance.now();
    box.setAttribute('data-loading', '1');
    try {
      const p = await dashboardListRuns(query());
      if (mine !== asked) return;
      page = p;
      render();
      // From the request to the rows in the DOM; the scale test reports it.
      box.setAttribute('data-shown-ms', (performance.now() - t0).toFixed(0));
    } catch (e) {
      if (mine === asked) notify(errorMessage(e), 'error');
    } finally {
      if (mine === asked) box.removeAttribute('data-loading');
    }
  };

  const goTo = async (to: number) => {
    if (!page || to < 0 || (to >= page.total && to !== 0) || to === offset) return;
    offset = to;
    await load();
  };

  const tick = (r: RunSummary, on: boolean) => {
    if (on) selected.set(r.id, r.system);
    else selected.delete(r.id);
    if (baseline !== null && !selected.has(baseline)) baseline = null;
  };

  const header = () => {
    const rows = page?.runs ?? [];
    const all = rows.length > 0 && rows.every((r) => selected.has(r.id));
    const pageCheck = h('input', {
      type: 'checkbox',
      'data-testid': 'dash-select-page',
      'aria-label': 'tick every run on this page',
      title: 'tick every run on this page',
      checked: all,
      onchange: (e: Event) => {
        const on = (e.target as HTMLInputElement).checked;
        for (const r of rows) tick(r, on);
        render();
      },
    });
    const cols = COLUMNS.map((c) => {
      if (!c.sort) return h('th', {}, c.label);
      const active = sort === c.sort;
      const key = c.sort;
      return h(
        'th',
        { 'aria-sort': active ? (ascending ? 'ascending' : 'descending') : 'none' },
        h(
          'button',
          {
            class: 'th-sort',
            'data-testid': `dash-sort-${key}`,
            title: `order by ${c.label.toLowerCase()}`,
            onclick: () => {
              // The same column again turns the order round; a new one starts with what is usually wanted first.
              if (active) ascending = !ascending;
              else [sort, ascending] = [key, !(key === 'id' || key === 'created')];
              offset = 0;
              void load();
            },
          },
          c.label,
          active ? (ascending ? ' ▲' : ' ▼') : '',
        ),
      );
    });
    return h('thead', {}, h('tr', {}, h('th', {}, pageCheck), h('th', {}, 'Baseline'), ...cols));
  };

  const render = () => {
    clear(box);
    const rows = page?.runs ?? [];
    const total = page?.total ?? 0;
    box.setAttribute('data-total', String(total));
    range.textContent = total === 0 ? 'no runs' : `rows ${(offset + 1).toLocaleString('en')}–${(offset + rows.length).toLocaleString('en')} of ${total.toLocaleString('en')}`;
    buttons.first.disabled = buttons.prev.disabled = offset === 0;
    buttons.next.disabled = buttons.last.disabled = offset + limit() >= total;
    picked.textContent = selected.size === 0 ? 'none ticked' : `${selected.size} ticked${baseline !== null ? `, baseline ${selected.get(baseline) ?? baseline}` : ''}`;
    clearPicked.disabled = selected.size === 0;
    if (rows.length === 0) {
      box.append(h('p', { class: 'empty' }, total > 0 ? 'No runs on this page.' : 'No finished runs match. Import a folder of submissions above, or run Translate / Rewrite.'));
      return;
    }
    const body = rows.map((r) => {
      const check = h('input', {
        type: 'checkbox',
        'data-testid': 'dash-run-check',
        'aria-label': `compare run ${r.id} ${r.system}`,
        checked: selected.has(r.id),
        onchange: (e: Event) => {
          tick(r, (e.target as HTMLInputElement).checked);
          render();
        },
      });
      const base = h('input', {
        type: 'radio',
        name: 'dash-baseline',
        'data-testid': 'dash-run-baseline',
        'aria-label': `baseline: run ${r.id}`,
        checked: baseline === r.id,
        disabled: !selected.has(r.id),
        onchange: () => {
          baseline = r.id;
          render();
        },
      });
      return h(
        'tr',
        { 'data-testid': 'dash-run-row', 'data-run-id': r.id, 'data-system': r.system, class: selected.has(r.id) ? 'selected' : '' },
        h('td', {}, check),
        h('td', {}, base),
        ...COLUMNS.map((c) => h('td', { class: c.cls ?? '' }, c.cell(r))),
      );
    });
    box.append(h('table', { class: 'table' }, header(), h('tbody', {}, ...body)));
  };

  const restart = () => {
    offset = 0;
    void load();
  };
  for (const sel of [f.scope, f.task, f.register, f.since, f.until, pageSize]) sel.addEventListener('change', restart);
  for (const input of [f.pair, f.model]) {
    let timer: number | undefined;
    const later = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(restart, TYPING_MS);
    };
    // `change` too: clearing a box (or pasting and leaving it) need not fire `input` everywhere.
    input.addEventListener('input', later);
    input.addEventListener('change', later);
  }
  // Page Up / Page Down page the table while it has the focus (the pager buttons do the same with Tab + Enter).
  box.addEventListener('keydown', (e: KeyboardEvent) => {
    if (!page) return;
    if (e.key === 'PageDown' && offset + limit() < page.total) void goTo(offset + limit());
    else if (e.key === 'PageUp' && offset > 0) void goTo(Math.max(0, offset - limit()));
    else return;
    e.preventDefault();
  });

  const el = h(
    'div',
    {},
    h('div', { class: 'row' }, f.scope, f.task, f.pair, f.register, f.model, 'from', f.since, 'to', f.until),
    box,
    h('div', { class: 'row dash-pager', 'data-testid': 'dash-pager' }, buttons.first, buttons.prev, range, buttons.next, buttons.last, pageSize),
    h('div', { class: 'row' }, picked, clearPicked),
  );
  return {
    el,
    selected: () => [...selected.keys()].sort((a, b) => b - a),
    baseline: () => baseline,
    refresh: load,
  };
}
