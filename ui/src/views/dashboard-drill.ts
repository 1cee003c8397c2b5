// Drill-down between two compared systems: segments sorted by a sentence-level metric difference; source,
// references and both outputs side by side with matching / improving / worsening n-grams and register markers.

import { errorMessage } from '../components';
import { clear, h, select } from '../dom';
import { type Comparison, type DrillSort, type OutputView, type SentenceMetric, drilldown } from './dashboard-api';

function isMarked(o: OutputView, start: number, end: number): string | null {
  const m = o.markers.find((x) => x.char_start < end && x.char_end > start);
  return m ? `${m.register} ${m.kind}` : null;
}

function outputNode(o: OutputView, testid: string): HTMLElement {
  const line = h('div', { class: 'dash-out', 'data-testid': testid });
  o.tokens.forEach((t, i) => {
    if (i > 0) line.append(' ');
    const marker = isMarked(o, t.char_start, t.char_end);
    line.append(
      h(
        'span',
        { class: `tok ${t.class}${marker ? ' marker' : ''}`, title: [t.class !== 'plain' ? t.class : '', marker ?? ''].filter(Boolean).join(' · ') || null },
        t.text,
      ),
    );
  });
  return h(
    'div',
    { class: 'dash-side' },
    h('div', { class: 'small muted' }, `${o.label} — ${o.score.toFixed(1)}`, o.register ? ` — register: ${o.register}` : ''),
    line,
  );
}

export function drillView(cmp: Comparison, notify: (m: string, k?: 'info' | 'error') => void): HTMLElement {
  const sysOptions = () => cmp.systems.map((s) => h('option', { value: String(s.run_id) }, s.label));
  const a = h('select', { class: 'input', 'data-testid': 'dash-drill-a' }, ...sysOptions());
  const b = h('select', { class: 'input', 'data-testid': 'dash-drill-b' }, ...sysOptions());
  a.value = String(cmp.baseline_run);
  const other = cmp.systems.find((s) => !s.baseline);
  if (other) b.value = String(other.run_id);
  // The sentence scores the comparison holds, from core's metric table (BLEU, chrF, TER, formality, and any
  // metric added to the table).
  const metric = select(
    { 'data-testid': 'dash-drill-metric' },
    cmp.sentence_metrics.map((m): [string, string] => [m.key, m.label]),
  );
  const sort = select({ 'data-testid': 'dash-drill-sort' }, [
    ['improved', 'B better first'],
    ['worsened', 'B worse first'],
    ['absolute', 'largest difference first'],
    ['index', 'document order'],
  ]);
  const list = h('div', { class: 'dash-drill-list', 'data-testid': 'dash-drill' });
  let offset = 0;
  const load = async () => {
    try {
      const page = await drilldown(Number(a.value), Number(b.value), metric.value as SentenceMetric, sort.value as DrillSort, offset, 10);
      clear(list);
      list.append(
        h('p', { class: 'muted small', 'data-testid': 'dash-drill-summary' }, `${page.metric_label}: B better on ${page.improved}, worse on ${page.worsened} of ${page.total} segments. Showing ${offset + 1}–${offset + page.segments.length}.`),
        h(
          'p',
          { class: 'small dash-legend' },
          h('span', { class: 'tok match' }, 'matches reference'),
          ' ',
          h('span', { class: 'tok improving' }, 'improving (only B)'),
          ' ',
          h('span', { class: 'tok worsening' }, 'worsening (only A)'),
          ' ',
          h('span', { class: 'tok marker' }, 'register marker'),
        ),
      );
      for (const s of page.segments) {
        list.append(
          h(
            'article',
            { class: 'dash-seg', 'data-testid': 'dash-drill-segment', 'data-index': s.index },
            h('div', { class: 'row small' }, h('strong', {}, `#${s.index + 1}`), h('span', { class: s.diff > 0 ? 'ok' : s.diff < 0 ? 'error' : 'muted' }, `Δ ${s.diff >= 0 ? '+' : ''}${s.diff.toFixed(1)}`)),
            h('div', { class: 'dash-src' }, s.source),
            ...s.references.map(([n, t]) => h('div', { class: 'dash-ref small muted' }, `${n}: ${t}`)),
            h('div', { class: 'dash-pair' }, outputNode(s.a, 'dash-drill-a-out'), outputNode(s.b, 'dash-drill-b-out')),
          ),
        );
      }
      list.append(
        h(
          'div',
          { class: 'row' },
          h('button', { class: 'btn small', disabled: offset === 0, onclick: () => ((offset = Math.max(0, offset - 10)), void load()) }, '← Previous'),
          h('button', { class: 'btn small', disabled: offset + 10 >= page.total, onclick: () => ((offset += 10), void load()) }, 'Next →'),
        ),
      );
    } catch (e) {
      notify(errorMessage(e), 'error');
    }
  };
  const go = h('button', { class: 'btn primary', 'data-testid': 'dash-drill-go', onclick: () => ((offset = 0), void load()) }, 'Show segments');
  return h(
    'section',
    { class: 'card' },
    h('h3', {}, 'Drill-down'),
    h('div', { class: 'row' }, 'A', a, 'B', b, metric, sort, go),
    list,
  );
}
