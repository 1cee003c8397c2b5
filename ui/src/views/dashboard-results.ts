// Dashboard results: sortable tables (95% CIs, significance markers, signatures) and charts rendered by the
// backend (plotters SVG, shown through <img> so no markup from data is ever parsed into the page). A chart's SVG
// is asked for when its thumbnail scrolls into view, so a comparison of many runs builds no chart nobody looks at.

import { chooseFile } from '../api';
import { errorMessage } from '../components';
import { clear, h } from '../dom';
import type { Operation } from '../api';
import { type Cell, type Comparison, type NamedChart, type PendingTable, type Table, chartSvg, completeTable, saveChart } from './dashboard-api';

function fmt(v: number, d: number): string {
  return Number.isFinite(v) ? v.toFixed(d) : '–';
}

function cellNode(c: Cell, decimals: number): Node {
  if (c.text != null) return document.createTextNode(c.text);
  if (c.value == null) return document.createTextNode('');
  const span = h('span', {}, fmt(c.value, decimals));
  if (c.ci) span.append(h('span', { class: 'dash-ci' }, ` [${fmt(c.ci[0], decimals)}, ${fmt(c.ci[1], decimals)}]`));
  if (c.marker) {
    // One symbol per level passed: * p < 0.05, ** p < 0.01, *** p < 0.001 (the table's note says so); † = worse.
    const cls = c.marker.startsWith('*') ? 'dash-sig better' : c.marker.startsWith('†') ? 'dash-sig worse' : 'dash-sig';
    span.append(h('span', { class: cls, title: c.p != null ? `p = ${c.p.toFixed(4)}` : '' }, ` ${c.marker}`));
  }
  return span;
}

/** A table whose metric columns sort on click (best first, by the column's direction). */
export function tableView(t: Table): HTMLElement {
  const wrap = h('section', { class: 'card dash-table', 'data-testid': `dash-table-${t.key}` });
  let rows = [...t.rows];
  let sortKey: string | null = null;
  const render = () => {
    clear(wrap);
    const head = h(
      'tr',
      {},
      ...t.columns.map((c, i) =>
        h(
          'th',
          {
            class: c.higher_is_better !== undefined ? 'sortable' : '',
            'data-key': c.key,
            title: c.higher_is_better === undefined ? '' : c.higher_is_better ? 'higher is better — click to sort' : 'lower is better — click to sort',
            onclick: () => {
              if (c.higher_is_better === undefined) return;
              sortKey = c.key;
              const dir = c.higher_is_better ? -1 : 1;
              rows = [...t.rows].sort((a, b) => {
                const x = a.cells[i].value;
                const y = b.cells[i].value;
                if (x == null) return 1;
                if (y == null) return -1;
                return dir * (x - y);
              });
              render();
            },
          },
          c.label,
          c.higher_is_better === undefined ? '' : c.higher_is_better ? ' ↑' : ' ↓',
          sortKey === c.key ? ' •' : '',
        ),
      ),
    );
    const body = h(
      'tbody',
      {},
      ...rows.map((r) =>
        h('tr', { 'data-row-id': r.id }, ...r.cells.map((c, i) => h('td', { class: c.value !== undefined ? 'dash-num' : '' }, cellNode(c, t.columns[i].decimals)))),
      ),
    );
    wrap.append(h('h3', {}, t.title), h('div', { class: 'table-wrap' }, h('table', { class: 'table' }, h('thead', {}, head), body)));
    for (const n of t.notes) wrap.append(h('p', { class: 'muted small dash-note' }, n));
  };
  render();
  return wrap;
}

/** Pending tables being built, cancelled when another comparison replaces this one. */
const building = new Set<Operation<Table>>();

export function cancelPendingTables(): void {
  for (const op of building) void op.cancel();
  building.clear();
}

/**
 * A table the backend left out of the comparison because it costs a pass over every segment of every system (the
 * edit types of 200 runs): built when its card scrolls into view, with progress, then shown like the others.
 */
export function pendingTableView(p: PendingTable, notify: (m: string, k?: 'info' | 'error') => void): HTMLElement {
  const status = h('p', { class: 'muted small', 'data-testid': 'dash-pending-status' }, `${p.to_compute} systems to compute — built when shown`);
  const card = h('section', { class: 'card dash-table', 'data-testid': `dash-pending-${p.key}` }, h('h3', {}, p.title), status);
  const build = async () => {
    const op = completeTable(p.key, (pr) => {
      status.textContent = `${pr.message} (${pr.done} of ${pr.total})`;
    });
    building.add(op);
    status.textContent = 'computing…';
    try {
      const table = await op.result;
      if (building.has(op)) card.replaceWith(tableView(table));
    } catch (e) {
      if (!building.has(op)) return;
      status.textContent = errorMessage(e);
      card.append(h('button', { class: 'btn small', onclick: () => void build() }, 'Try again'));
      notify(errorMessage(e), 'error');
    } finally {
      building.delete(op);
    }
  };
  const seen = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      seen.disconnect();
      void build();
    },
    { rootMargin: '200px' },
  );
  seen.observe(card);
  return card;
}

const urls: string[] = [];

/** An object URL for backend SVG; revoked when the next comparison replaces them. */
function svgUrl(svg: string): string {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  urls.push(url);
  return url;
}

export function releaseImages(): void {
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
}

/**
 * Thumbnails of every chart, each rendered by the backend when it first scrolls into view; clicking one opens it
 * large with SVG/PNG export.
 */
export function chartsView(cmp: Comparison, notify: (m: string, k?: 'info' | 'error') => void): HTMLElement {
  const viewer = h('div', { class: 'dash-chart-viewer', 'data-testid': 'dash-chart-viewer' });
  // One request per chart, whoever asks first (the thumbnail scrolling in, or a click on it).
  const asked = new Map<string, Promise<string>>();
  const urlOf = (c: NamedChart): Promise<string> => {
    let p = asked.get(c.key);
    if (!p) {
      p = (c.svg ? Promise.resolve(c.svg) : chartSvg(c.key)).then(svgUrl);
      asked.set(c.key, p);
      p.catch(() => asked.delete(c.key));
    }
    return p;
  };
  const open = async (c: NamedChart) => {
    clear(viewer);
    let url: string;
    try {
      url = await urlOf(c);
    } catch (e) {
      notify(errorMessage(e), 'error');
      return;
    }
    const exportAs = async (ext: 'svg' | 'png') => {
      try {
        const file = await chooseFile('save-chart', `${c.key}.${ext}`);
        if (!file) return;
        notify(`saved ${await saveChart(c.key, file)}`);
      } catch (e) {
        notify(errorMessage(e), 'error');
      }
    };
    viewer.append(
      h(
        'div',
        { class: 'row' },
        h('h3', { class: 'grow' }, c.title),
        h('button', { class: 'btn small', 'data-testid': 'dash-chart-save-svg', onclick: () => void exportAs('svg') }, 'Save SVG'),
        h('button', { class: 'btn small', 'data-testid': 'dash-chart-save-png', onclick: () => void exportAs('png') }, 'Save PNG'),
        h('button', { class: 'btn small', onclick: () => clear(viewer) }, 'Close'),
      ),
      h('img', { class: 'dash-chart-large', src: url, alt: c.title }),
      labelKey(c),
    );
    viewer.setAttribute('data-open', c.key);
    viewer.scrollIntoView({ block: 'nearest' });
  };
  const thumbs = cmp.charts.map((c) => {
    const img = h('img', { class: 'dash-thumb-img', alt: c.title });
    const thumb = h(
      'button',
      { class: 'dash-chart-thumb', 'data-testid': 'dash-chart-thumb', 'data-key': c.key, title: `Open “${c.title}”`, onclick: () => void open(c) },
      img,
      h('span', { class: 'small' }, c.title),
    );
    return { c, img, thumb };
  });
  const byThumb = new Map(thumbs.map((t) => [t.thumb as Element, t]));
  // A hidden view or a chart below the fold intersects nothing, so nothing is rendered for it.
  const seen = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const t = e.isIntersecting ? byThumb.get(e.target) : undefined;
        if (!t) continue;
        seen.unobserve(e.target);
        urlOf(t.c).then(
          (url) => {
            t.img.src = url;
            t.thumb.setAttribute('data-rendered', '1');
          },
          (err) => notify(errorMessage(err), 'error'),
        );
      }
    },
    { rootMargin: '200px' },
  );
  for (const t of thumbs) seen.observe(t.thumb);
  const grid = h('div', { class: 'dash-chart-grid' }, ...thumbs.map((t) => t.thumb));
  return h('section', { class: 'card', 'data-testid': 'dash-charts' }, h('h3', {}, 'Charts'), grid, viewer);
}

/**
 * The names a chart draws, each short label with the full name it stands for (the backend picks the labels:
 * the part of each system name that differs). Hovering an entry shows the full name as a tooltip.
 */
function labelKey(c: NamedChart): HTMLElement {
  const shortened = c.labels.filter((l) => l.short !== l.full);
  if (shortened.length === 0) return h('span');
  return h(
    'ul',
    { class: 'dash-chart-key small', 'data-testid': 'dash-chart-key' },
    ...shortened.map((l) =>
      h('li', { title: l.full, 'data-full': l.full }, h('strong', {}, l.short), ` = ${l.full}`),
    ),
  );
}

export function timingsLine(cmp: Comparison, clickMs: number): HTMLElement {
  const t = cmp.timings_ms;
  const parts = Object.entries(t).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  return h('p', { class: 'muted small', 'data-testid': 'dash-timings' }, `${cmp.systems.length} systems × ${cmp.segments} segments; shown ${clickMs.toFixed(0)} ms after the click (${parts.join(', ')})`);
}
