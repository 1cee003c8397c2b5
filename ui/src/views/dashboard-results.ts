// Dashboard results: sortable tables (95% CIs, significance markers, signatures) and charts rendered by the
// backend (plotters SVG, shown through <img> so no markup from data is ever parsed into the page).

import { chooseFile } from '../api';
import { errorMessage } from '../components';
import { clear, h } from '../dom';
import { type Cell, type Comparison, type NamedChart, type Table, saveChart } from './dashboard-api';

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

const urls: string[] = [];

/** An <img> showing backend SVG; object URLs are revoked when the next comparison replaces them. */
function svgImage(svg: string, cls: string, alt: string): HTMLImageElement {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  urls.push(url);
  return h('img', { class: cls, src: url, alt });
}

export function releaseImages(): void {
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
}

/** Thumbnails of every chart; clicking one opens it large with SVG/PNG export. */
export function chartsView(cmp: Comparison, notify: (m: string, k?: 'info' | 'error') => void): HTMLElement {
  const viewer = h('div', { class: 'dash-chart-viewer', 'data-testid': 'dash-chart-viewer' });
  const open = (c: NamedChart) => {
    clear(viewer);
    if (!c.svg) return;
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
      svgImage(c.svg, 'dash-chart-large', c.title),
    );
    viewer.setAttribute('data-open', c.key);
    viewer.scrollIntoView({ block: 'nearest' });
  };
  const grid = h(
    'div',
    { class: 'dash-chart-grid' },
    ...cmp.charts
      .filter((c) => c.svg)
      .map((c) =>
        h(
          'button',
          { class: 'dash-chart-thumb', 'data-testid': 'dash-chart-thumb', 'data-key': c.key, title: `Open “${c.title}”`, onclick: () => open(c) },
          svgImage(c.svg ?? '', 'dash-thumb-img', c.title),
          h('span', { class: 'small' }, c.title),
        ),
      ),
  );
  return h('section', { class: 'card', 'data-testid': 'dash-charts' }, h('h3', {}, 'Charts'), grid, viewer);
}

export function timingsLine(cmp: Comparison, clickMs: number): HTMLElement {
  const t = cmp.timings_ms;
  const parts = Object.entries(t).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
  return h('p', { class: 'muted small', 'data-testid': 'dash-timings' }, `${cmp.systems.length} systems × ${cmp.segments} segments; shown ${clickMs.toFixed(0)} ms after the click (${parts.join(', ')})`);
}
