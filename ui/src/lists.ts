// Reusable lists of documents and runs (the Documents view and the placeholders of the other views use them).

import type { Document, RunRow } from './api';
import { h, plural, shortTime } from './dom';
import { liveState, runStateView, shownState } from './run-state';

export function documentList(docs: Document[], opts: { selectedId?: number | null; onOpen?: (d: Document) => void; onDelete?: (d: Document) => void } = {}): HTMLElement {
  if (docs.length === 0) return h('p', { class: 'empty', 'data-testid': 'no-documents' }, 'No documents yet.');
  return h(
    'ul',
    { class: 'list', 'data-testid': 'document-list' },
    ...docs.map((d) =>
      h(
        'li',
        { class: `list-item${d.id === opts.selectedId ? ' selected' : ''}`, 'data-testid': 'document-item', 'data-document-id': d.id, 'data-document-name': d.name },
        h(
          'button',
          { class: 'list-main', 'data-testid': 'open-document', onclick: () => opts.onOpen?.(d), disabled: !opts.onOpen },
          h('span', { class: 'item-title' }, d.name),
          h(
            'span',
            { class: 'muted small' },
            `${plural(d.segments, 'segment')} · ${d.source_lang}${d.target_lang ? `→${d.target_lang}` : ''} · ${d.format}`,
            d.reference_names.length ? ` · refs: ${d.reference_names.join(', ')}` : '',
          ),
        ),
        opts.onDelete && h('button', { class: 'btn small danger', 'data-testid': 'delete-document', title: 'Delete document', onclick: () => opts.onDelete?.(d) }, 'Delete'),
      ),
    ),
  );
}

/** What the runs filter keeps, per list (`filterKey`): a list drawn again keeps the user's filter. */
interface RunFilter {
  document: string;
  lang: string;
  register: string;
  model: string;
  since: string;
}
const NO_FILTER: RunFilter = { document: '', lang: '', register: '', model: '', since: '' };
const filters = new Map<string, RunFilter>();

const languages = (r: RunRow) => [r.source_lang, r.target_lang].filter(Boolean).join('→');
const documentOf = (r: RunRow) => r.document_name ?? (r.document_id === null ? '(pasted text)' : `document ${r.document_id}`);
const modelOf = (r: RunRow) => r.model_id ?? r.system;
const DAY = 24 * 3600 * 1000;
const SINCE: Array<[string, string, number]> = [
  ['', 'any date', 0],
  ['1', 'today', 1],
  ['7', 'last 7 days', 7],
  ['30', 'last 30 days', 30],
];

function keep(r: RunRow, f: RunFilter, now: number): boolean {
  if (f.document && documentOf(r) !== f.document) return false;
  if (f.lang && languages(r) !== f.lang) return false;
  if (f.register && (r.register ?? '') !== f.register) return false;
  if (f.model && modelOf(r) !== f.model) return false;
  if (f.since) {
    const days = Number(f.since);
    // Stored times are UTC without a zone.
    const at = Date.parse(r.created_at.endsWith('Z') ? r.created_at : `${r.created_at}Z`);
    if (Number.isFinite(at) && now - at > days * DAY) return false;
  }
  return true;
}

/**
 * The runs of a view as a table with a filter over them (document, language, register, model, date) above it.
 * `canOpen` narrows which rows `onOpen` takes (all when absent); `openId` marks the row shown now; `filterKey`
 * names the list, so that drawing it again keeps the filter. Each row's state is core's (`RunState`), live while
 * this window resumes the run (run-state.ts).
 */
export function runTable(
  runs: RunRow[],
  opts: { onOpen?: (r: RunRow) => void; canOpen?: (r: RunRow) => boolean; openId?: number | null; onDelete?: (r: RunRow) => void; onResume?: (r: RunRow) => void; filterKey?: string } = {},
): HTMLElement {
  const opens = (r: RunRow) => !!opts.onOpen && (opts.canOpen?.(r) ?? true);
  if (runs.length === 0) return h('p', { class: 'empty', 'data-testid': 'no-runs' }, 'No runs yet.');
  const key = opts.filterKey ?? '';
  const f: RunFilter = { ...NO_FILTER, ...filters.get(key) };
  const distinct = (values: string[]) => [...new Set(values.filter(Boolean))].sort((a, b) => a.localeCompare(b));
  const chooser = (field: keyof RunFilter, label: string, all: string, values: Array<[string, string]>) => {
    // A value no longer among the runs is dropped rather than hiding every row.
    if (f[field] && !values.some(([v]) => v === f[field])) f[field] = '';
    const sel = h(
      'select',
      { class: 'input small', 'data-testid': `run-filter-${field}`, 'aria-label': `filter runs by ${label}`, title: `Show only the runs of this ${label}` },
      h('option', { value: '' }, all),
      ...values.map(([v, text]) => h('option', { value: v }, text)),
    );
    sel.value = f[field];
    sel.addEventListener('change', () => {
      f[field] = sel.value;
      filters.set(key, { ...f });
      apply();
    });
    return sel;
  };
  const bar = h(
    'div',
    { class: 'row run-filter', 'data-testid': 'run-filter' },
    chooser('document', 'document', 'every document', distinct(runs.map(documentOf)).map((d) => [d, d])),
    chooser('lang', 'language', 'every language', distinct(runs.map(languages)).map((l) => [l, l])),
    chooser('register', 'register', 'every register', distinct(runs.map((r) => r.register ?? '')).map((r) => [r, r])),
    chooser('model', 'model', 'every model', distinct(runs.map(modelOf)).map((m) => [m, m])),
    chooser('since', 'date', SINCE[0][1], SINCE.slice(1).map(([v, text]) => [v, text])),
  );
  const count = h('span', { class: 'muted small', 'data-testid': 'run-filter-count', role: 'status' });
  bar.append(count);
  const body = h('tbody', {});
  const rowOf = (r: RunRow) =>
    h(
      'tr',
      {
        'data-testid': 'run-item',
        'data-run-id': r.id,
        class: `${opens(r) ? 'clickable' : ''}${r.id === opts.openId ? ' selected' : ''}`,
        // A row that opens is reachable and opened from the keyboard too.
        tabindex: opens(r) ? 0 : null,
        title: opens(r) ? `Open run #${r.id}` : null,
        'aria-label': opens(r) ? `Open run ${r.id}: ${r.task} ${r.document_name ?? ''} ${shownState(r).label}` : null,
        onclick: () => opens(r) && opts.onOpen?.(r),
        onkeydown: (e: Event) => {
          const key = (e as KeyboardEvent).key;
          if (opens(r) && (key === 'Enter' || key === ' ') && e.target === e.currentTarget) {
            e.preventDefault();
            opts.onOpen?.(r);
          }
        },
      },
      h('td', {}, r.id),
      h('td', {}, r.task),
      h('td', {}, r.system),
      h('td', { class: 'run-doc', 'data-testid': 'run-document', title: documentOf(r) }, r.document_name ?? ''),
      h('td', {}, languages(r)),
      h('td', {}, r.register ?? ''),
      h('td', { class: 'run-model', title: r.model_id ?? '' }, r.model_id ?? ''),
      h('td', { class: 'run-state-cell', 'data-testid': 'run-state-cell' }, runStateView(shownState(r))),
      h('td', {}, shortTime(r.created_at)),
      h(
        'td',
        { class: 'run-actions' },
        // Runs that stopped before their last segment; the backend says why when one cannot be resumed. A run being
        // resumed in this window offers no second Resume.
        opts.onResume &&
          r.state.resumable &&
          h(
            'button',
            {
              class: 'btn small',
              'data-testid': 'resume-run',
              hidden: liveState(r.id) !== undefined,
              title: 'Produce the missing segments with the run’s own settings; finished segments are kept',
              onclick: (e: Event) => {
                e.stopPropagation();
                (e.currentTarget as HTMLButtonElement).hidden = true;
                opts.onResume?.(r);
              },
            },
            'Resume',
          ),
        opts.onDelete &&
          h(
            'button',
            {
              class: 'btn small danger',
              'data-testid': 'delete-run',
              onclick: (e: Event) => {
                e.stopPropagation();
                opts.onDelete?.(r);
              },
            },
            'Delete',
          ),
      ),
    );
  const apply = () => {
    const now = Date.now();
    const shown = runs.filter((r) => keep(r, f, now));
    body.replaceChildren(...shown.map(rowOf));
    const filtered = Object.values(f).some(Boolean);
    count.textContent = filtered ? `${shown.length} of ${runs.length} runs` : `${runs.length} run${runs.length === 1 ? '' : 's'}`;
    count.dataset.shown = String(shown.length);
  };
  const table = h(
    'table',
    { class: 'table run-table', 'data-testid': 'run-list' },
    h('thead', {}, h('tr', {}, ...['#', 'task', 'system', 'document', 'languages', 'register', 'model', 'state', 'created', ''].map((c) => h('th', {}, c)))),
    body,
  );
  apply();
  return h('div', { class: 'run-list' }, bar, h('div', { class: 'table-wrap' }, table));
}
