// Human evaluation: a blind, randomised rating screen on XFORMAL's scales (formality −3..3, fluency 1..5, meaning
// 1..6, relative rank) for one rater at a time, and the summary: means, agreement and metric–human correlation.

import { errorMessage } from '../components';
import { clear, h } from '../dom';
import { type Comparison, type Rating, type RatingItem, humanSummary, ratingItems, saveRatings } from './dashboard-api';
import { tableView } from './dashboard-results';

const SCALES: Array<{ scale: 'formality' | 'fluency' | 'meaning'; label: string; values: number[]; help: string }> = [
  { scale: 'formality', label: 'Formality', values: [-3, -2, -1, 0, 1, 2, 3], help: '−3 very informal … 3 very formal' },
  { scale: 'fluency', label: 'Fluency', values: [1, 2, 3, 4, 5], help: '1 incomprehensible … 5 perfect' },
  { scale: 'meaning', label: 'Meaning', values: [1, 2, 3, 4, 5, 6], help: '1 unrelated … 6 same meaning as the source' },
];

export function rateView(cmp: Comparison, notify: (m: string, k?: 'info' | 'error') => void): HTMLElement {
  const rater = h('input', { class: 'input', placeholder: 'your name', 'data-testid': 'dash-rater' });
  const count = h('input', { class: 'input', type: 'number', min: 1, max: 200, value: 10, style: 'width:5em', 'data-testid': 'dash-rate-count' });
  const screen = h('div', { 'data-testid': 'dash-rate-screen' });
  const summary = h('div', { 'data-testid': 'dash-human-summary' });
  let items: RatingItem[] = [];
  let pos = 0;

  const showSummary = async () => {
    try {
      const s = await humanSummary();
      clear(summary);
      summary.append(h('p', { class: 'muted small' }, `${s.judgments} ratings by ${s.raters.length} rater(s): ${s.raters.join(', ')}`), ...s.tables.map(tableView));
    } catch (e) {
      notify(errorMessage(e), 'error');
    }
  };

  const showItem = () => {
    clear(screen);
    const item = items[pos];
    if (!item) {
      screen.append(h('p', { class: 'ok', 'data-testid': 'dash-rate-done' }, 'All items rated. Thank you!'));
      void showSummary();
      return;
    }
    const k = item.outputs.length;
    const selects = new Map<string, HTMLSelectElement>();
    const rows = item.outputs.map((o) => {
      const cells = SCALES.map((s) => {
        const sel = h('select', { class: 'input', 'data-testid': `dash-rate-${s.scale}`, title: s.help }, h('option', { value: '' }, '–'), ...s.values.map((v) => h('option', { value: String(v) }, String(v))));
        selects.set(`${o.run_id}:${s.scale}`, sel);
        return h('td', {}, sel);
      });
      const rank = h('select', { class: 'input', 'data-testid': 'dash-rate-rank', title: '1 = best of the outputs shown' }, h('option', { value: '' }, '–'), ...Array.from({ length: k }, (_, i) => h('option', { value: String(i + 1) }, String(i + 1))));
      selects.set(`${o.run_id}:rank`, rank);
      return h('tr', {}, h('td', {}, h('strong', {}, o.slot)), h('td', { class: 'dash-rate-text' }, o.text), ...cells, h('td', {}, rank));
    });
    const save = async () => {
      const ratings: Rating[] = [];
      for (const [key, sel] of selects) {
        if (sel.value === '') continue;
        const [run, scale] = key.split(':');
        ratings.push({ run_id: Number(run), segment_index: item.segment_index, scale: scale as Rating['scale'], value: Number(sel.value) });
      }
      if (ratings.length === 0) {
        notify('rate at least one output on one scale, or skip the item', 'error');
        return;
      }
      try {
        await saveRatings(rater.value, ratings);
        pos += 1;
        showItem();
      } catch (e) {
        notify(errorMessage(e), 'error');
      }
    };
    screen.append(
      h(
        'article',
        { class: 'dash-rate-item', 'data-testid': 'dash-rate-item', 'data-segment': item.segment_index },
        h('p', { class: 'muted small' }, `Item ${pos + 1} of ${items.length}${item.rated ? ' (rated before; saving replaces it)' : ''}. Systems are hidden and shuffled.`),
        h('div', { class: 'dash-src' }, item.source),
        h(
          'table',
          { class: 'table' },
          h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, 'Output'), ...SCALES.map((s) => h('th', { title: s.help }, `${s.label} (${s.values[0]}…${s.values[s.values.length - 1]})`)), h('th', {}, 'Rank'))),
          h('tbody', {}, ...rows),
        ),
        h(
          'div',
          { class: 'row' },
          h('button', { class: 'btn primary', 'data-testid': 'dash-rate-save', onclick: () => void save() }, 'Save and next'),
          h('button', { class: 'btn', onclick: () => ((pos += 1), showItem()) }, 'Skip'),
        ),
      ),
    );
  };

  const start = async () => {
    try {
      items = await ratingItems(
        cmp.systems.map((s) => s.run_id),
        Number(count.value) || 10,
        rater.value,
      );
      pos = 0;
      showItem();
    } catch (e) {
      notify(errorMessage(e), 'error');
    }
  };

  return h(
    'section',
    { class: 'card' },
    h('h3', {}, 'Human evaluation'),
    h(
      'div',
      { class: 'row' },
      'Rater',
      rater,
      'items',
      count,
      h('button', { class: 'btn primary', 'data-testid': 'dash-rate-start', onclick: () => void start() }, 'Start rating'),
      h('button', { class: 'btn', 'data-testid': 'dash-human-refresh', onclick: () => void showSummary() }, 'Show agreement'),
    ),
    screen,
    summary,
  );
}
