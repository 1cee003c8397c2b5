// Translate view: English → DE/ES/FR/HI/IT/JA/KO/NL/PT/RU/VI in a register chosen per document (overridable per sentence).
// The result is a review grid over the stored run: source | target (editable; register markers highlighted in the
// requested register's colour, wrong ones in red) | badges, flags, candidates | review status. Keyboard first:
// ↑/↓ move between segments, Enter stores an edit, Ctrl+Enter approves and moves on, Ctrl+Shift+R repairs; filters
// show the flagged or unapproved segments. Any stored run can be reopened; Export writes the document's own format
// (DOCX, XLIFF, …) and the approved segments as a TMX translation memory.

import './translate.css';

import { type Register, type RunRow, type RunState, chooseFile, documentSegments, listRuns } from '../api';
import { ProgressPanel, errorMessage, rateProgress } from '../components';
import type { ViewContext } from '../context';
import { clear, h, select } from '../dom';
import { runTable } from '../lists';
import { RunStatePanel, liveState, onRunState, resumeRun, runStateView } from '../run-state';
import { modelPicker } from './model-picker';
import { askOverrideReason } from './translate-override';
import { VirtualGrid } from './translate-grid';
import { qaPanel, qaRun } from './translate-qa';
import {
  type Analysis,
  type ReviewRun,
  type SegmentOut,
  type SegmentStatus,
  type TmMatch,
  type Verdict,
  type ContrastRun,
  type ReviewOverride,
  type ReviewRow,
  checkTranslation,
  exportDocument,
  exportTmx,
  joinSegments,
  repairSegment,
  repairTranslation,
  reviewRun,
  reviewRunRows,
  saveTranslationEdit,
  setSegmentStatus,
  splitSegment,
  translateText,
} from './translate-api';

const LANGS: Array<[string, string]> = [
  ['de', 'German'],
  ['es', 'Spanish'],
  ['fr', 'French'],
  ['hi', 'Hindi'],
  ['it', 'Italian'],
  ['ja', 'Japanese'],
  ['ko', 'Korean'],
  ['nl', 'Dutch'],
  ['pt', 'Portuguese (European)'],
  ['ru', 'Russian'],
  ['vi', 'Vietnamese'],
];
const CONTROLS = ['prompt', 'fewshot', 'constrain', 'rerank', 'consensus', 'repair'] as const;
/** Off until asked for: on the development split it did not raise BLEU over the model's own ranking. */
const CONTROLS_OFF_BY_DEFAULT: readonly string[] = ['consensus'];
/** What each control does, in a translator's words. */
const CONTROL_LABELS: Record<(typeof CONTROLS)[number], string> = {
  prompt: 'Ask for the register in the instructions',
  fewshot: 'Show the model example translations in the register',
  constrain: 'Steer word choice towards the register while writing',
  rerank: 'Write several candidates and keep the one in the register',
  consensus: 'Among those, keep the one the others agree with most',
  repair: 'Fix what is still in the wrong register',
};
const STATUS_LABELS: Record<SegmentStatus, string> = { draft: 'draft', translated: 'translated', reviewed: 'reviewed', approved: 'approved' };
const FORMAT_LABELS: Record<string, string> = { docx: 'DOCX', xliff: 'XLIFF', po: 'PO', srt: 'SRT', vtt: 'WebVTT', markdown: 'Markdown', html: 'HTML', text: 'text' };

/** Copies `text`, also where the async clipboard is not offered to the page. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // WebKitGTK may refuse the async clipboard outside a user-initiated secure context: fall back to a selection.
  }
  const area = h('textarea', { class: 'offscreen' }) as HTMLTextAreaElement;
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the clipboard is not available');
}

/** An inline placeholder a translator's file puts in a segment for its markup (registro_qa::tags): `<1>`, `</1>`, `<2/>`. */
const TAG = /<(?:\/\d{1,6}|\d{1,6}\/?)>/g;

/** What a placeholder stands for, in words. */
function tagTitle(token: string): string {
  const n = token.replace(/[^0-9]/g, '');
  return token.startsWith('</') ? `end of formatting ${n}` : token.endsWith('/>') ? `inline element ${n}` : `start of formatting ${n}`;
}

/**
 * `text` as nodes with each inline placeholder a chip that cannot be edited inside (it can be moved or deleted whole;
 * an edit that drops or breaks one is refused when it is stored). The chip's text is the placeholder itself, so the
 * cell's text is the segment's text.
 */
export function withTags(text: string): Node[] {
  const out: Node[] = [];
  let pos = 0;
  for (const m of text.matchAll(TAG)) {
    const at = m.index ?? 0;
    if (at > pos) out.push(document.createTextNode(text.slice(pos, at)));
    out.push(h('span', { class: `tr-tag${m[0].startsWith('</') ? ' close' : m[0].endsWith('/>') ? ' empty' : ' open'}`, contenteditable: 'false', 'data-testid': 'translate-tag', title: tagTitle(m[0]), 'aria-label': tagTitle(m[0]) }, m[0]));
    pos = at + m[0].length;
  }
  if (pos < text.length) out.push(document.createTextNode(text.slice(pos)));
  return out;
}

/** The text with the analysis markers wrapped in <mark>, coloured by register; markers against `requested` red;
 * inline placeholders as chips. */
export function highlight(text: string, analysis: Analysis, requested: Register): Node[] {
  return highlightMarkers(text, analysis, requested).flatMap((n) => {
    if (n instanceof Text) return withTags(n.data);
    if (n instanceof HTMLElement && TAG.test(n.textContent ?? '')) {
      TAG.lastIndex = 0;
      n.replaceChildren(...withTags(n.textContent ?? ''));
    }
    TAG.lastIndex = 0;
    return [n];
  });
}

function highlightMarkers(text: string, analysis: Analysis, requested: Register): Node[] {
  const chars = Array.from(text);
  const wantFormal = requested !== 'informal';
  const out: Node[] = [];
  let pos = 0;
  const markers = [...analysis.markers].sort((a, b) => a.char_start - b.char_start);
  for (const m of markers) {
    if (m.char_start < pos || m.char_end > chars.length) continue;
    if (m.char_start > pos) out.push(document.createTextNode(chars.slice(pos, m.char_start).join('')));
    const wrong = (m.register !== 'informal') !== wantFormal;
    const cls = `tr-m ${wrong ? 'wrong' : m.register}${m.strong ? '' : ' weak'}`;
    out.push(
      h('mark', { class: cls, 'data-testid': wrong ? 'translate-marker-wrong' : 'translate-marker', title: `${m.register} ${m.kind}${m.strong ? '' : ' (ambiguous)'}` }, chars.slice(m.char_start, m.char_end).join('')),
    );
    pos = m.char_end;
  }
  if (pos < chars.length) out.push(document.createTextNode(chars.slice(pos).join('')));
  return out;
}

function labelBadge(label: string, verdict: Verdict): HTMLElement {
  return h('span', { class: `badge ${label.toLowerCase()}`, 'data-testid': 'translate-badge', 'data-verdict': verdict }, label);
}

export function mount(el: HTMLElement, ctx: ViewContext): () => void {
  // ---- form ----
  const lang = select({ 'data-testid': 'translate-lang' }, LANGS.map(([c, n]) => [c, `${n} (${c})`] as const));
  const register = select({ 'data-testid': 'translate-register' }, [
    ['formal', 'formal'],
    ['informal', 'informal'],
    ['respectful', 'respectful (ja)'],
  ]);
  const system = select({ 'data-testid': 'translate-system' }, [
    ['controlled', 'Registro control layer'],
    ['generic', 'generic (uncontrolled)'],
    ['pivot', 'pivot: translate, then formalize (MTFC)'],
  ]);
  const gender = select({ 'data-testid': 'translate-gender' }, [
    ['', 'addressee: unspecified'],
    ['masculine', 'addressee: masculine'],
    ['feminine', 'addressee: feminine'],
  ]);
  const { input: model, list: modelList, setLang: setModelLang } = modelPicker('translate', 'qwen2.5-coder-1.5b-instruct', true);
  // The picker says what the chosen model is worth for the chosen language, and warns when it is poor.
  lang.addEventListener('change', () => setModelLang(lang.value));
  const contrastive = h('input', { type: 'checkbox', 'data-testid': 'translate-contrastive' }) as HTMLInputElement;
  const nBest = h('input', { class: 'input', type: 'number', min: 1, max: 8, value: 4, 'data-testid': 'translate-nbest' });
  const fixedExamples = h('input', { type: 'checkbox', 'data-testid': 'translate-fixed-examples' }) as HTMLInputElement;
  const docSelect = h('select', { class: 'input', 'data-testid': 'translate-document' });
  const source = h('textarea', { class: 'input tr-source', 'data-testid': 'translate-source', placeholder: 'English text, one segment per line (or pick a document)' });
  const controlBoxes = CONTROLS.map((c) => h('input', { type: 'checkbox', checked: !CONTROLS_OFF_BY_DEFAULT.includes(c), 'data-testid': `translate-control-${c}`, value: c }));
  const runPicker = h('select', { class: 'input', 'data-testid': 'translate-open-run' });
  const filter = select({ class: 'input small', 'data-testid': 'translate-filter' }, [
    ['all', 'all segments'],
    ['flagged', 'flagged only'],
    ['unapproved', 'not approved yet'],
  ]);
  const tmxBtn = h('button', { class: 'btn', 'data-testid': 'translate-export-tmx', disabled: true, title: 'The approved segments as a translation memory for your CAT tool' }, 'Export TMX…');
  const segList = h('div', { class: 'tr-seglist', 'data-testid': 'translate-segments' });
  const runBtn = h('button', { class: 'btn primary', 'data-testid': 'translate-run' }, 'Translate');
  const exportBtn = h('button', { class: 'btn', 'data-testid': 'translate-export', disabled: true }, 'Export…');
  const copyAllBtn = h('button', { class: 'btn', 'data-testid': 'translate-copy-all', disabled: true }, 'Copy all');
  const progressSlot = h('div', {});
  /** The open run's state (core's words, live while it is resumed) and, when it stopped early, Resume. */
  const runStateSlot = h('span', { class: 'tr-runstate', 'data-testid': 'translate-run-state' });
  const resumeBtn = h('button', { class: 'btn primary', 'data-testid': 'translate-resume', hidden: true, title: 'Translate the segments this run did not reach, with its own settings; the ones done are kept' }, 'Resume');
  /** Progress of what the grid's run is doing: a resume, a long export. */
  const gridProgress = h('div', { class: 'tr-gridprogress' });
  const summary = h('div', { class: 'tr-summary muted', 'data-testid': 'translate-summary' });
  const resultBody = h('tbody', {});
  const headRow = h('tr', {});
  const results = h('table', { class: 'tr-table', 'data-testid': 'translate-results' }, h('thead', {}, headRow), resultBody);
  const gridScroll = h('div', { class: 'tr-gridscroll', 'data-testid': 'translate-grid' }, results);
  const gridCount = h('span', { class: 'muted small', 'data-testid': 'grid-count' });
  const gotoInput = h('input', { class: 'input small tr-goto', type: 'number', min: 1, placeholder: 'go to #', 'data-testid': 'grid-goto', title: 'Go to segment number… (Enter)', 'aria-label': 'go to segment number' }) as HTMLInputElement;
  /** The column headers; a contrastive run adds the other register's translation as a second target column. */
  const renderHead = () => {
    clear(headRow);
    const main = contrast ? `Translation (${segments[0]?.register ?? 'formal'})` : 'Translation';
    // Fixed column widths: rows scrolled in and out of the DOM must not make the columns jump.
    // Both registers side by side get columns of equal width.
    results.classList.toggle('contrast', !!contrast);
    headRow.append(h('th', { class: 'tr-num-h' }, '#'), h('th', { class: contrast ? 'tr-src-h narrow' : 'tr-src-h' }, 'Source'), h('th', { class: 'tr-main-h', 'data-testid': 'translate-main-head' }, main));
    if (contrast) headRow.append(h('th', { class: 'tr-contrast-h', 'data-testid': 'translate-contrast-head' }, `${contrast.register} (run ${contrast.run_id})`));
    headRow.append(h('th', { class: 'tr-status-h' }, 'Status'));
  };
  const runs = h('section', { class: 'card' });
  const qa = qaPanel(ctx);
  const grid = new VirtualGrid({ scroller: gridScroll, body: resultBody, columns: () => headRow.children.length, renderRow: (i) => renderRow(byIndex.get(i)!) });

  /** Per-segment register overrides, by segment index. */
  let overrides: Record<number, Register> = {};
  let segments: SegmentOut[] = [];
  /** The same segments by index. */
  let byIndex = new Map<number, SegmentOut>();
  /** Review status by segment index (a segment just translated is `translated`). */
  let statuses = new Map<number, SegmentStatus>();
  /** The project's best approved translation of a similar source, by segment index (a fuzzy match ≥ 75%). */
  let tmMatches = new Map<number, TmMatch>();
  /** The reviewer's override of a segment's open flag, by segment index (only while the text and flag are the same). */
  let flagOverrides = new Map<number, ReviewOverride>();
  let runId: number | null = null;
  let runLang = 'de';
  let exportInfo: Pick<ReviewRun, 'export_format' | 'export_name'> | null = null;
  /** The other register's run of a contrastive translation, shown as a second target column. */
  let contrast: ContrastRun | null = null;
  /** The run's document can be resegmented (a run over pasted text has none). */
  let hasDocument = false;
  /** The project's translate runs as last listed, with their states. */
  let runRows: RunRow[] = [];
  /** The open run's state as the store had it when it was opened (a resume in this window reports it live). */
  let openState: RunState | null = null;

  const sourceLines = async (): Promise<string[]> => {
    const doc = Number(docSelect.value);
    if (doc) return (await documentSegments(doc, 0, 100000)).map((s) => s.text);
    return source.value.split('\n');
  };

  const renderSegList = async () => {
    clear(segList);
    let lines: string[];
    try {
      lines = await sourceLines();
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
      return;
    }
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      const sel = h(
        'select',
        { class: 'input small', 'data-testid': 'translate-seg-register', 'data-index': i },
        h('option', { value: '' }, 'default'),
        h('option', { value: 'formal' }, 'formal'),
        h('option', { value: 'informal' }, 'informal'),
        ...(lang.value === 'ja' ? [h('option', { value: 'respectful' }, 'respectful')] : []),
      );
      sel.value = overrides[i] ?? '';
      sel.addEventListener('change', () => {
        if (sel.value) overrides[i] = sel.value as Register;
        else delete overrides[i];
      });
      segList.append(h('div', { class: 'tr-segrow' }, h('span', { class: 'muted small' }, String(i + 1)), h('span', { class: 'grow', title: line }, line), sel));
    });
  };

  /** The pasted-text box is for pasted text only: with a document as the source it is hidden, not left editable. */
  const showSourceBox = () => {
    source.hidden = !!docSelect.value;
  };

  const renderDocs = () => {
    const current = docSelect.value || String(ctx.selectedDocumentId() ?? '');
    clear(docSelect);
    docSelect.append(h('option', { value: '' }, 'pasted text'), ...ctx.documents().map((d) => h('option', { value: d.id }, d.name)));
    docSelect.value = ctx.documents().some((d) => String(d.id) === current) ? current : '';
    showSourceBox();
  };

  const renderRuns = async () => {
    try {
      const list = await listRuns(ctx.project.id, { task: 'translate' });
      runRows = list;
      clear(runs);
      // A click on a run opens it in the review grid above; one that stopped early can be resumed from here too.
      runs.append(
        h('h3', {}, 'Translate runs'),
        runTable(list, {
          onOpen: (r) => {
            if (!r.target_lang) return;
            void openRun(r.id).then(() => gridCard.scrollIntoView({ block: 'start' }));
          },
          openId: runId,
          onResume: (r) => void resume(r.id),
          filterKey: 'translate',
        }),
      );
      fillRunPicker(list);
      if (runId !== null) {
        const row = list.find((r) => r.id === runId);
        if (row) openState = row.state;
        renderRunState();
      }
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const runOption = (r: RunRow) => `run ${r.id} · ${r.document_name ?? 'pasted text'} · ${r.target_lang} · ${r.register ?? ''} · ${r.state.label}`;

  const fillRunPicker = (list: RunRow[]) => {
    const keep = runId;
    clear(runPicker);
    runPicker.append(
      h('option', { value: '' }, list.length ? 'open a stored run…' : 'no stored run yet'),
      ...list.filter((r) => r.target_lang).map((r) => h('option', { value: r.id }, runOption({ ...r, state: liveState(r.id) ?? r.state }))),
    );
    runPicker.value = keep !== null && list.some((r) => r.id === keep) ? String(keep) : '';
  };

  /** Puts the caret in the target of the shown row `step` rows away from `from` (1 = next). */
  const moveFocus = (from: HTMLElement, step: number) => {
    const next = grid.neighbour(Number(from.dataset.index), step);
    const row = next === null ? null : grid.reveal(next, 'nearest');
    const out = row?.querySelector<HTMLElement>('[data-testid="translate-output"]');
    if (!out) return;
    out.focus({ preventScroll: true });
    const sel = window.getSelection();
    sel?.selectAllChildren(out);
    sel?.collapseToEnd();
  };

  const shownByFilter = (seg: SegmentOut): boolean =>
    filter.value === 'flagged' ? seg.flagged : filter.value === 'unapproved' ? (statuses.get(seg.index) ?? 'translated') !== 'approved' : true;

  /** The grid shows the segments the filter lets through; `toTop` starts from the first of them. */
  const applyFilter = (toTop = false) => {
    const order = segments.filter(shownByFilter).map((s) => s.index);
    grid.setOrder(order, toTop);
    renderCount();
  };

  const renderCount = () => {
    const n = grid.count;
    gridCount.textContent = !segments.length ? '' : loadingRest ? `${n.toLocaleString('en')} shown · loading…` : filter.value === 'all' ? `${segments.length.toLocaleString('en')} segments` : `${n.toLocaleString('en')} of ${segments.length.toLocaleString('en')} shown`;
    gridCount.dataset.shown = String(n);
  };

  /** Scrolls segment `n` (1-based) into view with the caret in its translation; a filter hiding it is lifted. */
  const goTo = (n: number) => {
    const t0 = performance.now();
    const index = n - 1;
    if (!byIndex.has(index)) {
      if (loadingRest) {
        ctx.notify(`Segment ${n} is still loading: try again in a moment.`, 'error');
        return;
      }
      ctx.notify(segments.length ? `There is no segment ${n}: the run has segments 1 to ${(segments[segments.length - 1]?.index ?? 0) + 1}.` : 'Open a run first.', 'error');
      return;
    }
    if (!grid.row(index) && grid.neighbour(index, 0) === null) {
      filter.value = 'all';
      applyFilter();
    }
    const row = grid.reveal(index, 'center');
    if (!row) return;
    const out = row.querySelector<HTMLElement>('[data-testid="translate-output"]');
    if (out) {
      // The caret at the end of the translation, ready to edit it or approve it with Ctrl+Enter.
      out.focus({ preventScroll: true });
      const sel = window.getSelection();
      sel?.selectAllChildren(out);
      sel?.collapseToEnd();
    }
    row.classList.remove('jumped');
    void row.offsetWidth;
    row.classList.add('jumped');
    gridScroll.dataset.gotoMs = (performance.now() - t0).toFixed(1);
    delete gridScroll.dataset.gotoPaintMs;
    requestAnimationFrame(() => setTimeout(() => (gridScroll.dataset.gotoPaintMs = (performance.now() - t0).toFixed(1))));
  };

  const renderRow = (seg: SegmentOut): HTMLElement => {
    const out = h('div', { class: 'tr-out', contenteditable: 'true', spellcheck: 'false', 'data-testid': 'translate-output', 'aria-label': `translation of segment ${seg.index + 1}` }, ...highlight(seg.text, seg.analysis, seg.register));
    const meta = h('div', { class: 'tr-meta' });
    const statusCell = h('div', { class: 'tr-status' });
    const srcCell = h('td', { class: 'tr-src' });
    const row = h(
      'tr',
      { class: `tr-row${seg.flagged ? ' flagged' : ''}`, 'data-testid': 'translate-row', 'data-index': seg.index },
      h('td', { class: 'tr-num muted small' }, String(seg.index + 1)),
      srcCell,
      h('td', {}, out, meta),
      ...(contrast ? [contrastCell(contrast.rows[seg.index]?.segment, contrast.rows[seg.index]?.status)] : []),
      h('td', { class: 'tr-status-cell' }, statusCell),
    );
    const fillSource = () => {
      clear(srcCell);
      srcCell.append(h('div', {}, ...withTags(seg.source)));
      if (runId === null || !hasDocument) return;
      const last = seg.index === segments.length - 1;
      srcCell.append(
        h(
          'div',
          { class: 'tr-segtools' },
          h('button', { class: 'btn small link', 'data-testid': 'translate-split', title: 'Split this segment in two', onclick: () => editSplit() }, 'Split…'),
          ...(last ? [] : [h('button', { class: 'btn small link', 'data-testid': 'translate-join', title: 'Join with the next segment', onclick: () => void resegment(() => joinSegments(runId!, seg.index), `Joined segments ${seg.index + 1} and ${seg.index + 2}`) }, 'Join with next')]),
        ),
      );
    };
    /** The source in a read-only box: the caret marks where the second segment begins (Enter splits, Esc cancels). */
    const editSplit = () => {
      const box = h('textarea', { class: 'input tr-splitbox', readonly: true, rows: 3, 'data-testid': 'translate-split-box', 'aria-label': `split segment ${seg.index + 1}: put the caret where the new segment begins` }) as HTMLTextAreaElement;
      box.value = seg.source;
      const doSplit = () => {
        // The caret is in UTF-16 units; the backend counts characters.
        const at = Array.from(box.value.slice(0, box.selectionStart)).length;
        void resegment(() => splitSegment(runId!, seg.index, at), `Split segment ${seg.index + 1}`);
      };
      box.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          doSplit();
        } else if (e.key === 'Escape') {
          e.preventDefault();
          fillSource();
        }
      });
      clear(srcCell);
      srcCell.append(
        box,
        h(
          'div',
          { class: 'tr-segtools' },
          h('button', { class: 'btn small primary', 'data-testid': 'translate-split-here', onclick: doSplit }, 'Split here'),
          h('button', { class: 'btn small', onclick: () => fillSource() }, 'Cancel'),
          h('span', { class: 'muted small' }, 'Put the caret where the new segment begins'),
        ),
      );
      box.focus();
      const middle = box.value.indexOf(' ', Math.floor(box.value.length / 2));
      box.setSelectionRange(middle + 1, middle + 1);
    };
    // A segment the run never produced (cancelled or failed before it): no text, no candidates, never edited. It is
    // shown as such, without a register label an empty string would earn ("NEUTRAL"), so an unfinished run never
    // looks finished.
    const untranslated = () => !seg.text.trim() && seg.candidates.length === 0 && statuses.get(seg.index) === 'draft';
    const fillStatus = () => {
      const status = statuses.get(seg.index) ?? 'translated';
      row.dataset.status = untranslated() ? 'untranslated' : status;
      clear(statusCell);
      if (untranslated()) {
        statusCell.append(h('span', { class: 'badge status-untranslated', 'data-testid': 'translate-status' }, 'not translated'));
        return;
      }
      statusCell.append(h('span', { class: `badge status-${status}`, 'data-testid': 'translate-status' }, STATUS_LABELS[status]));
      if (status !== 'approved' && seg.text.trim())
        statusCell.append(h('button', { class: 'btn small', 'data-testid': 'translate-approve', title: 'Approve (Ctrl+Enter)', onclick: () => void approve(false) }, '✓ Approve'));
    };
    const fillMeta = () => {
      clear(meta);
      if (untranslated()) {
        meta.append(h('span', { class: `badge ${seg.register}` }, `asked: ${seg.register}`), h('span', { class: 'muted small', 'data-testid': 'translate-untranslated' }, 'not translated: the run stopped before this segment'));
        return;
      }
      meta.append(h('span', { class: `badge ${seg.register}` }, `asked: ${seg.register}`), labelBadge(seg.analysis.label, seg.verdict));
      if (seg.flagged) meta.append(h('span', { class: 'tr-flag', 'data-testid': 'translate-flag' }, `⚑ ${seg.flag_reason ?? 'wrong register'}`));
      const ov = flagOverrides.get(seg.index);
      if (seg.flagged && ov)
        meta.append(h('span', { class: 'badge status-reviewed', 'data-testid': 'translate-override', title: `Overridden ${ov.created_at}` }, `flag overridden by ${ov.who} (${ov.created_at.slice(0, 10)}): ${ov.reason}`));
      if (seg.before_repair) meta.append(h('span', { class: 'muted', title: seg.before_repair }, 'repaired'));
      const tm = tmMatches.get(seg.index);
      if (tm && tm.target !== seg.text) {
        meta.append(
          h('span', { class: 'badge tm', 'data-testid': 'translate-tm', title: `Approved in run ${tm.run_id}:\n${tm.source}\n→ ${tm.target}` }, `TM ${tm.similarity}%`),
          h('button', { class: 'btn small', 'data-testid': 'translate-use-tm', title: tm.target, onclick: () => void commit(tm.target) }, 'Use TM'),
        );
      }
      if (seg.candidates.length > 1) {
        const pick = h(
          'select',
          { class: 'input small', 'data-testid': 'translate-candidates' },
          h('option', { value: '' }, `${seg.candidates.length} candidates…`),
          ...seg.candidates.map((c, i) =>
            h('option', { value: i }, `${c.label.toLowerCase()} · ${c.score.toFixed(2)}${c.consensus == null ? '' : ` · agreement ${c.consensus.toFixed(0)}`}${c.meaning == null ? '' : ` · meaning ${c.meaning.toFixed(2)}`} · ${c.text}`),
          ),
        );
        pick.addEventListener('change', () => {
          const c = seg.candidates[Number(pick.value)];
          if (c) void commit(c.text);
        });
        meta.append(pick);
      }
      meta.append(
        h('button', {
          class: 'btn small', 'data-testid': 'translate-copy', title: 'Copy this translation',
          onclick: async () => {
            try {
              await copyText(seg.text);
              ctx.notify(`Copied segment ${seg.index + 1}`);
            } catch (e) {
              ctx.notify(errorMessage(e), 'error');
            }
          },
        }, 'Copy'),
      );
      if (seg.flagged) meta.append(h('button', { class: 'btn small', 'data-testid': 'translate-repair', title: 'Repair (Ctrl+Shift+R)', onclick: () => void repair() }, 'Repair'));
    };
    /** Stores `text` as the segment's translation (re-analysed; a person's edit makes it `reviewed`) and re-renders. */
    const commit = async (text: string): Promise<boolean> => {
      const shownBefore = out.textContent ?? '';
      try {
        const check = runId !== null ? await saveTranslationEdit(runId, seg.index, runLang, seg.register, text) : await checkTranslation(runLang, seg.register, text);
        Object.assign(seg, { text, analysis: check.analysis, verdict: check.verdict, flagged: check.flagged, flag_reason: check.flag_reason });
        // Every output check ran again on the new text: a person's edit is reviewed only when no flag is left open.
        if (runId !== null) statuses.set(seg.index, check.status ?? 'reviewed');
        flagOverrides.delete(seg.index);
        // The answer may come while the user is already typing again in this cell: redrawing it then would eat the
        // new keystrokes. The cell keeps its text; leaving it stores that as the next edit.
        const typingAgain = document.activeElement === out && (out.textContent ?? '') !== shownBefore;
        if (!typingAgain) {
          clear(out);
          out.append(...highlight(seg.text, seg.analysis, seg.register));
        }
        row.classList.toggle('flagged', seg.flagged);
        fillMeta();
        fillStatus();
        renderSummary();
        grid.update();
        return true;
      } catch (e) {
        const why = errorMessage(e);
        // An edit that broke the file's inline tags is refused: the cell shows the stored text again.
        if (why.includes('inline tag') || why.includes('closing tag')) {
          clear(out);
          out.append(...highlight(seg.text, seg.analysis, seg.register));
        }
        ctx.notify(why, 'error');
        return false;
      }
    };
    const repair = async () => {
      try {
        if (runId === null) {
          await commit(await repairTranslation(runLang, seg.register, out.textContent ?? seg.text));
          return;
        }
        // An unsaved edit is stored (and checked) first; the repair works on the stored text.
        const typed = out.textContent ?? '';
        if (typed !== seg.text && !(await commit(typed))) return;
        const r = await repairSegment(runId, seg.index);
        const c = r.check;
        Object.assign(seg, { text: r.text, analysis: c.analysis, verdict: c.verdict, flagged: c.flagged, flag_reason: c.flag_reason });
        statuses.set(seg.index, c.status ?? 'translated');
        flagOverrides.delete(seg.index);
        clear(out);
        out.append(...highlight(seg.text, seg.analysis, seg.register));
        row.classList.toggle('flagged', seg.flagged);
        fillMeta();
        fillStatus();
        renderSummary();
        applyFilter();
        // The checks ran again on the repaired text: a flag Repair could not fix stays, and says why.
        if (seg.flagged) ctx.notify(`Segment ${seg.index + 1} is still flagged after Repair${r.changed ? '' : ' (no rule applied)'}: ${seg.flag_reason ?? ''}`, 'error');
        else ctx.notify(`Segment ${seg.index + 1} repaired: the checks pass`);
      } catch (e) {
        ctx.notify(errorMessage(e), 'error');
      }
    };
    /** Signs the segment off (storing an unsaved edit first); with `move`, goes on to the next visible segment. */
    const approve = async (move: boolean) => {
      if (runId === null) {
        ctx.notify('The run is still being translated: approve segments once it is stored.', 'error');
        return;
      }
      const text = out.textContent ?? '';
      if (text !== seg.text && !(await commit(text))) return;
      try {
        // An open flag is signed off only with an explicit override: who (the user), when, and why are stored.
        let reason: string | null = null;
        if (seg.flagged && !flagOverrides.has(seg.index)) {
          reason = await askOverrideReason(`Segment ${seg.index + 1} is still flagged: ${seg.flag_reason ?? 'flagged'}. Approve it anyway?`, 'Approve with override');
          if (reason === null) return;
        }
        const ov = await setSegmentStatus(runId, seg.index, 'approved', reason);
        if (ov) flagOverrides.set(seg.index, ov);
        statuses.set(seg.index, 'approved');
        fillMeta();
        fillStatus();
        renderSummary();
        if (move) moveFocus(row, 1);
        applyFilter();
      } catch (e) {
        ctx.notify(errorMessage(e), 'error');
      }
    };
    out.addEventListener('blur', () => {
      const text = out.textContent ?? '';
      if (text !== seg.text) void commit(text);
    });
    out.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void approve(true);
      } else if ((e.key === 'R' || e.key === 'r') && (e.ctrlKey || e.metaKey) && e.shiftKey) {
        e.preventDefault();
        void repair();
      } else if (e.key === 'Enter') {
        e.preventDefault();
        out.blur();
      } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !e.shiftKey && !e.altKey && !e.ctrlKey) {
        e.preventDefault();
        moveFocus(row, e.key === 'ArrowDown' ? 1 : -1);
      }
    });
    fillSource();
    fillMeta();
    fillStatus();
    return row;
  };

  /** The other register's translation of a segment, read-only here: "Open" shows that run in the grid to edit it. */
  const contrastCell = (seg: SegmentOut | undefined, status: SegmentStatus | undefined): HTMLElement => {
    const cell = h('td', { class: 'tr-contrast', 'data-testid': 'translate-contrast' });
    if (!seg || !contrast) return cell;
    const other = contrast.run_id;
    cell.append(
      h('div', { class: 'tr-out' }, ...highlight(seg.text, seg.analysis, seg.register)),
      h(
        'div',
        { class: 'tr-meta' },
        labelBadge(seg.analysis.label, seg.verdict),
        ...(seg.flagged ? [h('span', { class: 'tr-flag' }, `⚑ ${seg.flag_reason ?? 'wrong register'}`)] : []),
        h('span', { class: `badge status-${status ?? 'translated'}` }, STATUS_LABELS[status ?? 'translated']),
        h('button', { class: 'btn small', title: `Review the ${contrast.register} translation (run ${other})`, onclick: () => void openRun(other) }, 'Open'),
      ),
    );
    return cell;
  };

  /** Splits or joins segments of the run's document, translates what a split left empty, and shows the result. */
  const resegment = async (change: () => Promise<{ untranslated: number[] }>, what: string) => {
    if (runId === null) return;
    const id = runId;
    try {
      const done = await change();
      ctx.changed('documents');
      if (done.untranslated.length) {
        // The other register's run lost the same translations: both columns are filled again.
        for (const run of [id, ...(contrast ? [contrast.run_id] : [])]) {
          const panel = new RunStatePanel('translate-progress');
          gridProgress.replaceChildren(panel.el);
          const op = resumeRun(run, panel.update, (seg) => {
            if (runId === run) fillSegment(seg);
          });
          panel.attach(op);
          try {
            await op.result;
          } finally {
            panel.done();
          }
        }
      }
      await openRun(id);
      ctx.notify(done.untranslated.length ? `${what}: ${done.untranslated.length} segments translated again` : what);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
      await openRun(id);
    }
  };

  /** Rows painted before the whole run is there: a screenful and a margin. */
  const FIRST_ROWS = 40;
  /** Counts openRun calls: an answer for a run opened before the latest is dropped. */
  let opening = 0;
  /** The grid shows the first rows of a run whose other rows are still loading. */
  let loadingRest = false;

  /** Shows stored run `id` in the grid, with its review statuses and what Export will write. Re-analysing every
   * row of a long run takes the backend about a second for 10,000 segments, so the first rows are asked for and
   * painted first, then the whole run; rows already shown keep their elements and anything done in them meanwhile. */
  const openRun = async (id: number) => {
    const t0 = performance.now();
    const ticket = ++opening;
    try {
      const first = await reviewRunRows(id, 0, FIRST_ROWS);
      if (ticket !== opening) return;
      const loaded = performance.now();
      runId = first.run_id;
      runLang = first.lang;
      exportInfo = { export_format: first.export_format, export_name: first.export_name };
      hasDocument = first.document_id !== null;
      openState = runRows.find((r) => r.id === id)?.state ?? null;
      renderRunState();
      // A run opened from elsewhere (Documents) may be newer than the list: its state comes with the list.
      if (!openState) void renderRuns();
      contrast = null;
      segments = [];
      byIndex = new Map();
      statuses = new Map();
      tmMatches = new Map();
      flagOverrides = new Map();
      addRows(first.rows);
      loadingRest = true;
      renderHead();
      grid.reset(segments.filter(shownByFilter).map((s) => s.index));
      renderCount();
      // What the window test reads: the first answer's time, the time to the grid's first paint (the frame after
      // it) and the time until the whole run is in the grid.
      gridScroll.dataset.run = String(first.run_id);
      gridScroll.dataset.loadMs = (loaded - t0).toFixed(1);
      delete gridScroll.dataset.paintMs;
      delete gridScroll.dataset.fullMs;
      gridScroll.dataset.loading = '1';
      requestAnimationFrame(() => setTimeout(() => (gridScroll.dataset.paintMs = (performance.now() - t0).toFixed(1))));
      runPicker.value = String(id);
      renderSummary();

      const r = await reviewRun(id);
      if (ticket !== opening) return;
      addRows(r.rows);
      segments.sort((a, b) => a.index - b.index);
      loadingRest = false;
      exportInfo = { export_format: r.export_format, export_name: r.export_name };
      contrast = r.contrast;
      const order = segments.filter(shownByFilter).map((s) => s.index);
      // A contrastive run adds a column: every row is drawn again; otherwise the rows shown stay as they are.
      if (contrast) {
        renderHead();
        grid.reset(order);
      } else grid.setOrder(order);
      renderCount();
      delete gridScroll.dataset.loading;
      gridScroll.dataset.fullMs = (performance.now() - t0).toFixed(1);
      updateExport();
      renderSummary();
      // The quality check follows the run in the grid: its panel shows this run's result, never another's.
      void qa.show(r.run_id);
    } catch (e) {
      if (ticket === opening) loadingRest = false;
      ctx.notify(errorMessage(e), 'error');
    }
  };

  /** Adds the rows not shown yet (a row already there keeps its data, which may have changed since). */
  const addRows = (rows: ReviewRow[]) => {
    for (const row of rows) {
      const i = row.segment.index;
      if (byIndex.has(i)) continue;
      segments.push(row.segment);
      byIndex.set(i, row.segment);
      statuses.set(i, row.status);
      if (row.tm) tmMatches.set(i, row.tm);
      if (row.flag_override) flagOverrides.set(i, row.flag_override);
    }
  };

  /** The open run's state: live while this window resumes it, else as the store said. */
  const currentState = (): RunState | null => (runId === null ? null : liveState(runId) ?? openState);

  const renderRunState = () => {
    const s = currentState();
    clear(runStateSlot);
    if (s) runStateSlot.append(runStateView(s));
    // Resume is offered where the stopped run is shown, unless it is being resumed already.
    resumeBtn.hidden = !(s && s.resumable && runId !== null && liveState(runId) === undefined);
  };

  /** A segment a resume just stored takes its row's place (the grid keeps document order whatever order they come in). */
  const fillSegment = (seg: SegmentOut) => {
    const k = segments.findIndex((x) => x.index === seg.index);
    if (k >= 0) segments[k] = seg;
    else {
      segments.push(seg);
      segments.sort((a, b) => a.index - b.index);
    }
    byIndex.set(seg.index, seg);
    statuses.set(seg.index, 'translated');
    if (grid.row(seg.index)) grid.redraw(seg.index);
    else applyFilter();
    renderSummary();
  };

  /** Translates the segments run `id` did not reach, its rows filling in as they come, its state live everywhere. */
  const resume = async (id: number) => {
    if (liveState(id)) return;
    if (runId !== id) await openRun(id);
    if (runId !== id) return;
    const panel = new RunStatePanel('translate-progress', currentState());
    gridProgress.replaceChildren(panel.el);
    resumeBtn.hidden = true;
    const op = resumeRun(
      id,
      (s) => {
        panel.update(s);
        if (runId === id) renderRunState();
      },
      (seg) => {
        if (runId === id) fillSegment(seg);
      },
    );
    panel.attach(op);
    try {
      const out = await op.result;
      ctx.notify(`Run ${id}: ${out.state.label} (${out.produced} segment${out.produced === 1 ? '' : 's'} translated now)`, out.state.phase === 'failed' ? 'error' : 'info');
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    } finally {
      panel.done();
      ctx.changed('runs');
      // The stored run as it is now: statuses, flags and what Export writes.
      if (runId === id) await openRun(id);
    }
  };

  /** Segments of the open run with no translation: rows the run never reached and those not even listed. */
  const notTranslated = (): { missing: number; total: number } => {
    const empty = segments.filter((s) => !s.text.trim() && s.candidates.length === 0 && statuses.get(s.index) === 'draft').length;
    const total = Math.max(currentState()?.total ?? 0, segments.length);
    return { missing: Math.max(empty, total - (segments.length - empty)), total };
  };

  const updateExport = () => {
    const format = exportInfo ? (FORMAT_LABELS[exportInfo.export_format] ?? exportInfo.export_format) : 'text';
    exportBtn.textContent = `Export ${format}…`;
    exportBtn.disabled = runId === null || segments.length === 0;
    copyAllBtn.disabled = segments.length === 0;
    tmxBtn.disabled = runId === null || ![...statuses.values()].includes('approved');
  };

  const renderSummary = () => {
    const flagged = segments.filter((s) => s.flagged).length;
    const ok = segments.filter((s) => s.verdict === 'ok').length;
    // A segment's `seconds` is when it was done, counted from the start of the run (segments are decoded together).
    const secs = segments.reduce((a, s) => Math.max(a, s.seconds), 0);
    const approved = segments.filter((s) => statuses.get(s.index) === 'approved').length;
    summary.textContent = loadingRest
      ? `the first ${segments.length} segments · loading the rest of run ${runId}…`
      : segments.length
      ? `${segments.length} segments · ${ok} in the requested register · ${flagged} flagged · ${approved} approved${secs > 0 ? ` · ${(secs / Math.max(segments.length, 1)).toFixed(1)} s/segment` : ''}${runId !== null ? ` · run ${runId}` : ''}`
      : '';
    updateExport();
  };

  const onTranslate = async () => {
    const controls = system.value === 'generic' ? 'none' : controlBoxes.filter((b) => b.checked).map((b) => b.value).join(',') || 'none';
    const doc = Number(docSelect.value) || null;
    const panel = new ProgressPanel('translate-progress');
    progressSlot.append(panel.el);
    runBtn.disabled = true;
    runLang = lang.value;
    // A new action clears what the status bar said about the last one (an old error stayed under later runs).
    ctx.notify('');
    opening++;
    loadingRest = false;
    runId = null;
    segments = [];
    statuses = new Map();
    tmMatches = new Map();
    flagOverrides = new Map();
    exportInfo = null;
    contrast = null;
    byIndex = new Map();
    renderHead();
    grid.reset([]);
    renderCount();
    renderSummary();
    const progress = rateProgress(panel, 'segments');
    // Each segment appears as it finishes, in document order among those already shown.
    const both = contrastive.checked;
    const onSegment = (seg: SegmentOut) => {
      // A contrastive run streams the formal side here; the informal side appears as the second column at the end.
      if (both && seg.register === 'informal') return;
      segments = [...segments.filter((s) => s.index !== seg.index), seg].sort((a, b) => a.index - b.index);
      byIndex.set(seg.index, seg);
      grid.redraw(seg.index);
      applyFilter();
      renderSummary();
    };
    const op = translateText(
      ctx.project.id,
      {
        text: source.value,
        document_id: doc,
        lang: lang.value,
        register: register.value as Register,
        overrides,
        model: model.value.trim() || null,
        controls,
        system: system.value === 'pivot' ? 'pivot' : 'controlled',
        n_best: Number(nBest.value) || 4,
        gender: gender.value || null,
        contrastive: both,
        fixed_examples: fixedExamples.checked,
      },
      progress.update,
      onSegment,
    );
    panel.attach(op);
    try {
      const r = await op.result;
      // The grid shows the stored run: what a reopened run shows, statuses and the document's export format included.
      await openRun(r.run_id);
      const secs = r.segments.reduce((a, s) => Math.max(a, s.seconds), 0);
      for (const seg of segments) seg.seconds = r.segments.find((s) => s.index === seg.index)?.seconds ?? secs;
      renderSummary();
      ctx.changed('runs');
      // Progress counts both passes of a contrastive translation.
      if (progress.total() > segments.length * (both ? 2 : 1)) ctx.notify(`Cancelled: ${segments.length} of ${progress.total()} segments kept in run ${r.run_id}`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    } finally {
      panel.done();
      runBtn.disabled = false;
    }
  };

  /** Kinds of QA error an untranslated segment raises: answered by the question about untranslated segments. */
  const UNTRANSLATED_KINDS: readonly string[] = ['no-target', 'empty'];

  const onExport = async () => {
    if (runId === null) return;
    const id = runId;
    // An incomplete run is exported only when the translator says so (never silently).
    const { missing, total } = notTranslated();
    const incomplete = missing > 0 || currentState()?.phase === 'cancelled' || currentState()?.phase === 'failed';
    if (incomplete && !(await ctx.confirm(`${missing} of ${total} segments are not translated — export anyway?`, 'Export anyway'))) return;
    const panel = new ProgressPanel('export-progress');
    gridProgress.replaceChildren(panel.el);
    exportBtn.disabled = true;
    try {
      // Errors of the quality check stop an export until fixed, unless the translator decides otherwise.
      const check = qaRun(id, null, false, panel.update);
      panel.attach(check);
      const found = await check.result;
      let reason: string | null = null;
      if (found.blocking) {
        const errors = found.report.issues.filter((i) => i.severity === 'error');
        const other = errors.filter((i) => !(incomplete && UNTRANSLATED_KINDS.includes(i.kind)));
        if (other.length === 0) {
          // Only the untranslated segments: the question above was the translator's decision.
          reason = `${missing} of ${total} segments not translated: exported anyway`;
        } else {
          const first = other[0];
          reason = await askOverrideReason(
            `The quality check found ${other.length} error${other.length === 1 ? '' : 's'}${first ? ` (first: segment ${first.segment + 1}: ${first.message})` : ''}. Export anyway? It is recorded with your name, the time and the errors.`,
            'Export anyway',
          );
          if (reason === null) return;
        }
      }
      const file = await chooseFile('save-text', exportInfo?.export_name ?? `translation.${runLang}.txt`);
      if (!file) return;
      const op = exportDocument(id, file, found.blocking, reason, panel.update);
      panel.attach(op);
      ctx.notify(`Saved ${await op.result}`);
      if (found.blocking) void qa.show(id);
    } catch (e) {
      ctx.notify(panel.cancelled ? 'Export cancelled: nothing was written.' : errorMessage(e), panel.cancelled ? 'info' : 'error');
    } finally {
      panel.done();
      updateExport();
    }
  };

  const onExportTmx = async () => {
    if (runId === null) return;
    try {
      const file = await chooseFile('save-text', `${(exportInfo?.export_name ?? 'translation').replace(/\.[^.]*$/, '')}.tmx`);
      if (!file) return;
      ctx.notify(`Saved ${await exportTmx(runId, file)}`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  runBtn.addEventListener('click', () => void onTranslate());
  resumeBtn.addEventListener('click', () => {
    if (runId !== null) void resume(runId);
  });
  exportBtn.addEventListener('click', () => void onExport());
  tmxBtn.addEventListener('click', () => void onExportTmx());
  copyAllBtn.addEventListener('click', async () => {
    try {
      await copyText(segments.map((s) => s.text).join('\n'));
      ctx.notify(`Copied ${segments.length} segments`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  });
  filter.addEventListener('change', () => applyFilter(true));
  gotoInput.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const n = Number(gotoInput.value);
    if (Number.isInteger(n) && n > 0) goTo(n);
  });
  runPicker.addEventListener('change', () => {
    const id = Number(runPicker.value);
    if (id) void openRun(id);
  });
  docSelect.addEventListener('change', () => {
    overrides = {};
    showSourceBox();
    void renderSegList();
  });
  source.addEventListener('change', () => {
    overrides = {};
    void renderSegList();
  });
  lang.addEventListener('change', () => {
    // Respectful exists for Japanese only.
    const respectful = register.querySelector<HTMLOptionElement>('option[value="respectful"]');
    if (respectful) respectful.disabled = lang.value !== 'ja';
    if (lang.value !== 'ja' && register.value === 'respectful') register.value = 'formal';
    void renderSegList();
  });
  lang.dispatchEvent(new Event('change'));
  const gridCard = h(
    'section',
    { class: 'card' },
    // The bar stays in view while the grid scrolls, and so does the progress of what the run is doing in it.
    h('div', { class: 'row tr-gridbar' }, h('h3', {}, 'Translation'), runPicker, filter, gridCount, gotoInput, exportBtn, tmxBtn, copyAllBtn, gridProgress),
    h('p', { class: 'muted small' }, '↑/↓ move between segments · Enter stores an edit · Ctrl+Enter approves and moves on · Ctrl+Shift+R repairs · go to # jumps to a segment'),
    h('div', { class: 'row tr-runbar' }, runStateSlot, resumeBtn),
    summary,
    gridScroll,
  );
  const segDetails = h('details', { 'data-testid': 'translate-seg-details' }, h('summary', { class: 'muted small' }, 'Per-sentence register'), segList);
  // "Open with Registro" (main.ts openStartupFile): the shell imported a file and asks for it as the source; its
  // segments are shown at once.
  el.addEventListener('registro:open-document', (e) => {
    renderDocs();
    docSelect.value = String((e as CustomEvent<number>).detail);
    showSourceBox();
    overrides = {};
    segDetails.open = true;
    void renderSegList().then(() => segDetails.scrollIntoView({ block: 'nearest' }));
  });

  el.append(
    h('header', { class: 'view-header' }, h('h2', {}, 'Translate'), h('p', { class: 'muted' }, 'Translate English into DE, ES, FR, HI, IT, JA, KO, NL, PT, RU or VI in a chosen register; every sentence is checked, repaired or flagged.')),
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'tr-form' },
        h('label', {}, 'Target language', lang),
        h('label', {}, 'Register (document default)', register),
        h('label', {}, 'System', system),
        h('label', {}, 'Addressee', gender),
        h('label', {}, 'Model', model, modelList),
        h('label', {}, 'Source', docSelect),
      ),
      source,
      segDetails,
      h(
        'details',
        { 'data-testid': 'translate-advanced' },
        h('summary', { class: 'muted small' }, 'Advanced: how the register is enforced'),
        h('div', { class: 'tr-controls' }, ...controlBoxes.map((b) => h('label', { title: b.value }, b, ` ${CONTROL_LABELS[b.value as (typeof CONTROLS)[number]]}`))),
        h('label', { class: 'tr-inline' }, 'Candidates per sentence ', nBest),
        h(
          'label',
          {
            class: 'tr-inline',
            title:
              'The model keeps what it computed for these examples, so the next document starts without it. Examples chosen by each document\'s words translate better: 0.6 BLEU more on the development split.',
          },
          fixedExamples,
          ' same examples for every document (the next document starts sooner)',
        ),
      ),
      h(
        'div',
        { class: 'row' },
        runBtn,
        h('label', { class: 'tr-inline', title: 'Two linked runs over the same text, shown as two target columns; per-sentence registers do not apply' }, contrastive, ' both registers side by side (formal | informal)'),
      ),
      progressSlot,
    ),
    gridCard,
    qa.el,
    runs,
  );
  renderHead();
  renderDocs();
  void renderSegList();
  void renderRuns();
  void qa.refresh();
  // A translate run clicked in Documents opens here, in the review grid.
  const stopOpening = ctx.opensRuns('translate', (r) => {
    if (r.target_lang) void openRun(r.id).then(() => gridCard.scrollIntoView({ block: 'start' }));
  });
  // A resume started anywhere (Documents, this view) shows in the open run's state line.
  const stopStates = onRunState((st, ended) => {
    // The run picker names each run's state too.
    const row = runRows.find((r) => r.id === st.run_id);
    const option = runPicker.querySelector<HTMLOptionElement>(`option[value="${st.run_id}"]`);
    if (row && option) option.textContent = runOption({ ...row, state: st });
    if (st.run_id !== runId) return;
    if (ended) openState = st;
    renderRunState();
  });
  const unsubscribe = ctx.subscribe((what) => {
    if (what === 'documents') renderDocs();
    void renderRuns();
    if (what === 'runs') void qa.refresh();
  });
  return () => {
    stopOpening();
    stopStates();
    unsubscribe();
  };
}
