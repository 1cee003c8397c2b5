// Reusable lists of documents and runs (the Documents view and the placeholders of the other views use them).

import type { Document, Run } from './api';
import { h, plural, shortTime } from './dom';

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

/** `canOpen` narrows which rows `onOpen` takes (all when absent); `openId` marks the row shown now. */
export function runTable(
  runs: Run[],
  opts: { onOpen?: (r: Run) => void; canOpen?: (r: Run) => boolean; openId?: number | null; onDelete?: (r: Run) => void; onResume?: (r: Run) => void } = {},
): HTMLElement {
  const opens = (r: Run) => !!opts.onOpen && (opts.canOpen?.(r) ?? true);
  if (runs.length === 0) return h('p', { class: 'empty', 'data-testid': 'no-runs' }, 'No runs yet.');
  return h(
    'table',
    { class: 'table', 'data-testid': 'run-list' },
    h('thead', {}, h('tr', {}, ...['#', 'task', 'system', 'languages', 'register', 'status', 'segments', 'created', ''].map((c) => h('th', {}, c)))),
    h(
      'tbody',
      {},
      ...runs.map((r) =>
        h(
          'tr',
          {
            'data-testid': 'run-item',
            'data-run-id': r.id,
            class: `${opens(r) ? 'clickable' : ''}${r.id === opts.openId ? ' selected' : ''}`,
            // A row that opens is reachable and opened from the keyboard too.
            tabindex: opens(r) ? 0 : null,
            title: opens(r) ? `Open run #${r.id}` : null,
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
          h('td', {}, [r.source_lang, r.target_lang].filter(Boolean).join('→')),
          h('td', {}, r.register ?? ''),
          h('td', {}, h('span', { class: `badge ${r.status}`, title: r.error ?? '' }, r.status)),
          h('td', {}, `${r.completed_segments}/${r.total_segments}`),
          h('td', {}, shortTime(r.created_at)),
          h(
            'td',
            {},
            // Runs that stopped before their last segment; the backend says why when one cannot be resumed.
            opts.onResume &&
              (r.status === 'failed' || r.status === 'cancelled') &&
              (r.task === 'rewrite' || r.task === 'translate') &&
              h(
                'button',
                {
                  class: 'btn small',
                  'data-testid': 'resume-run',
                  title: 'Produce the missing segments with the run’s own settings; finished segments are kept',
                  onclick: (e: Event) => {
                    e.stopPropagation();
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
        ),
      ),
    ),
  );
}
