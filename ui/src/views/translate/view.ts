// Translate view: English into any target language core lists, in a register chosen per document (overridable per
// sentence). The result is a review grid over the stored run: source | target (editable; register markers
// highlighted in the requested register's colour, wrong ones in red) | badges, flags, candidates | review status.
// Keyboard first: ↑/↓ move between segments, Enter stores an edit, Ctrl+Enter approves and moves on, Ctrl+Shift+R
// repairs; filters show the flagged or unapproved segments. Any stored run can be reopened; Export writes the
// document's own format (DOCX, XLIFF, …) and the approved segments as a TMX translation memory.
//
// The parts, each in its file here: form.ts (what to translate and how: core's request), row.ts (one grid row and
// what a reviewer does in it), state.ts (the run the grid shows), grid.ts (the grid's virtualisation), markup.ts
// (markers, tags, badges), qa.ts (the QA panel), override.ts (the reason asked for an override), api.ts (the
// commands). This file wires them: translating (run-progress.ts), opening a stored run, resuming it, exporting it.

import './translate.css';

import { LANGUAGES, type RunRow, type RunState, chooseFile, listRuns } from '../../api';
import { ProgressPanel, errorMessage } from '../../components';
import type { ViewContext } from '../../context';
import { clear, h, select } from '../../dom';
import { runTable } from '../../lists';
import { RunStatePanel, liveState, onRunState, resumeRun, runStateView } from '../../run-state';
import { runWithProgress } from '../../run-progress';
import { type SegmentOut, exportDocument, exportTmx, reviewRun, reviewRunRows, translateText } from './api';
import { translateForm } from './form';
import { VirtualGrid } from './grid';
import { copyText } from './markup';
import { askOverrideReason } from './override';
import { qaPanel, qaRun } from './qa';
import { type RowHost, renderRow } from './row';
import { OpenRun } from './state';

const FORMAT_LABELS: Record<string, string> = { docx: 'DOCX', xliff: 'XLIFF', po: 'PO', srt: 'SRT', vtt: 'WebVTT', markdown: 'Markdown', html: 'HTML', text: 'text' };
/** Kinds of QA error an untranslated segment raises: answered by the question about untranslated segments. */
const UNTRANSLATED_KINDS: readonly string[] = ['no-target', 'empty'];
/** Rows painted before the whole run is there: a screenful and a margin. */
const FIRST_ROWS = 40;
/** "DE, ES, … or VI": the target languages core lists. */
const TARGET_CODES = ((codes: string[]) => `${codes.slice(0, -1).join(', ')} or ${codes[codes.length - 1]}`)(LANGUAGES.filter((l) => l.translate).map((l) => l.code.toUpperCase()));

export function mount(el: HTMLElement, ctx: ViewContext): () => void {
  const form = translateForm(ctx);
  const run = new OpenRun();
  const runPicker = h('select', { class: 'input', 'data-testid': 'translate-open-run' });
  const filter = select({ class: 'input small', 'data-testid': 'translate-filter' }, [
    ['all', 'all segments'],
    ['flagged', 'flagged only'],
    ['unapproved', 'not approved yet'],
  ]);
  const tmxBtn = h('button', { class: 'btn', 'data-testid': 'translate-export-tmx', disabled: true, title: 'The approved segments as a translation memory for your CAT tool' }, 'Export TMX…');
  const runBtn = h('button', { class: 'btn primary', 'data-testid': 'translate-run' }, 'Translate') as HTMLButtonElement;
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
  const runs = h('section', { class: 'card' });
  const qa = qaPanel(ctx);

  /** The project's translate runs as last listed, with their states. */
  let runRows: RunRow[] = [];
  /** The open run's state as the store had it when it was opened (a resume in this window reports it live). */
  let openState: RunState | null = null;
  /** Counts openRun calls: an answer for a run opened before the latest is dropped. */
  let opening = 0;

  /** The column headers; a contrastive run adds the other register's translation as a second target column. */
  const renderHead = () => {
    const contrast = run.contrast;
    clear(headRow);
    const main = contrast ? `Translation (${run.segments[0]?.register ?? 'formal'})` : 'Translation';
    // Fixed column widths: rows scrolled in and out of the DOM must not make the columns jump.
    // Both registers side by side get columns of equal width.
    results.classList.toggle('contrast', !!contrast);
    headRow.append(h('th', { class: 'tr-num-h' }, '#'), h('th', { class: contrast ? 'tr-src-h narrow' : 'tr-src-h' }, 'Source'), h('th', { class: 'tr-main-h', 'data-testid': 'translate-main-head' }, main));
    if (contrast) headRow.append(h('th', { class: 'tr-contrast-h', 'data-testid': 'translate-contrast-head' }, `${contrast.register} (run ${contrast.run_id})`));
    headRow.append(h('th', { class: 'tr-status-h' }, 'Status'));
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
    filter.value === 'flagged' ? seg.flagged : filter.value === 'unapproved' ? (run.statuses.get(seg.index) ?? 'translated') !== 'approved' : true;

  /** The grid shows the segments the filter lets through; `toTop` starts from the first of them. */
  const applyFilter = (toTop = false) => {
    grid.setOrder(run.segments.filter(shownByFilter).map((s) => s.index), toTop);
    renderCount();
  };

  const renderCount = () => {
    const n = grid.count;
    const all = run.segments.length;
    gridCount.textContent = !all ? '' : run.loadingRest ? `${n.toLocaleString('en')} shown · loading…` : filter.value === 'all' ? `${all.toLocaleString('en')} segments` : `${n.toLocaleString('en')} of ${all.toLocaleString('en')} shown`;
    gridCount.dataset.shown = String(n);
  };

  /** Scrolls segment `n` (1-based) into view with the caret in its translation; a filter hiding it is lifted. */
  const goTo = (n: number) => {
    const t0 = performance.now();
    const index = n - 1;
    if (!run.byIndex.has(index)) {
      if (run.loadingRest) {
        ctx.notify(`Segment ${n} is still loading: try again in a moment.`, 'error');
        return;
      }
      ctx.notify(run.segments.length ? `There is no segment ${n}: the run has segments 1 to ${(run.segments[run.segments.length - 1]?.index ?? 0) + 1}.` : 'Open a run first.', 'error');
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

  /** Splits or joins segments of the run's document, translates what a split left empty, and shows the result. */
  const resegment = async (change: () => Promise<{ untranslated: number[] }>, what: string) => {
    if (run.runId === null) return;
    const id = run.runId;
    try {
      const done = await change();
      ctx.changed('documents');
      if (done.untranslated.length) {
        // The other register's run lost the same translations: both columns are filled again.
        for (const other of [id, ...(run.contrast ? [run.contrast.run_id] : [])]) {
          const panel = new RunStatePanel('translate-progress');
          gridProgress.replaceChildren(panel.el);
          const op = resumeRun(other, panel.update, (seg) => {
            if (run.runId === other) fillSegment(seg);
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

  const host: RowHost = {
    run,
    ctx,
    get grid() {
      return grid;
    },
    changed: () => {
      renderSummary();
      grid.update();
    },
    applyFilter: () => applyFilter(),
    moveFocus,
    resegment,
    openRun: (id) => openRun(id),
  };
  const grid: VirtualGrid = new VirtualGrid({ scroller: gridScroll, body: resultBody, columns: () => headRow.children.length, renderRow: (i) => renderRow(host, run.byIndex.get(i)!) });

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
          openId: run.runId,
          onResume: (r) => void resume(r.id),
          filterKey: 'translate',
        }),
      );
      fillRunPicker(list);
      if (run.runId !== null) {
        const row = list.find((r) => r.id === run.runId);
        if (row) openState = row.state;
        renderRunState();
      }
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const runOption = (r: RunRow) => `run ${r.id} · ${r.document_name ?? 'pasted text'} · ${r.target_lang} · ${r.register ?? ''} · ${r.state.label}`;

  const fillRunPicker = (list: RunRow[]) => {
    const keep = run.runId;
    clear(runPicker);
    runPicker.append(
      h('option', { value: '' }, list.length ? 'open a stored run…' : 'no stored run yet'),
      ...list.filter((r) => r.target_lang).map((r) => h('option', { value: r.id }, runOption({ ...r, state: liveState(r.id) ?? r.state }))),
    );
    runPicker.value = keep !== null && list.some((r) => r.id === keep) ? String(keep) : '';
  };

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
      run.runId = first.run_id;
      run.lang = first.lang;
      run.exportInfo = { export_format: first.export_format, export_name: first.export_name };
      run.hasDocument = first.document_id !== null;
      openState = runRows.find((r) => r.id === id)?.state ?? null;
      renderRunState();
      // A run opened from elsewhere (Documents) may be newer than the list: its state comes with the list.
      if (!openState) void renderRuns();
      run.clear();
      run.addRows(first.rows);
      run.loadingRest = true;
      renderHead();
      grid.reset(run.segments.filter(shownByFilter).map((s) => s.index));
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
      run.addRows(r.rows);
      run.segments.sort((a, b) => a.index - b.index);
      run.loadingRest = false;
      run.exportInfo = { export_format: r.export_format, export_name: r.export_name };
      run.contrast = r.contrast;
      const order = run.segments.filter(shownByFilter).map((s) => s.index);
      // A contrastive run adds a column: every row is drawn again; otherwise the rows shown stay as they are.
      if (run.contrast) {
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
      if (ticket === opening) run.loadingRest = false;
      ctx.notify(errorMessage(e), 'error');
    }
  };

  /** The open run's state: live while this window resumes it, else as the store said. */
  const currentState = (): RunState | null => (run.runId === null ? null : liveState(run.runId) ?? openState);

  const renderRunState = () => {
    const s = currentState();
    clear(runStateSlot);
    if (s) runStateSlot.append(runStateView(s));
    // Resume is offered where the stopped run is shown, unless it is being resumed already.
    resumeBtn.hidden = !(s && s.resumable && run.runId !== null && liveState(run.runId) === undefined);
  };

  /** A segment a resume just stored takes its row's place (the grid keeps document order whatever order they come in). */
  const fillSegment = (seg: SegmentOut) => {
    run.put(seg);
    run.statuses.set(seg.index, 'translated');
    if (grid.row(seg.index)) grid.redraw(seg.index);
    else applyFilter();
    renderSummary();
  };

  /** Translates the segments run `id` did not reach, its rows filling in as they come, its state live everywhere. */
  const resume = async (id: number) => {
    if (liveState(id)) return;
    if (run.runId !== id) await openRun(id);
    if (run.runId !== id) return;
    const panel = new RunStatePanel('translate-progress', currentState());
    gridProgress.replaceChildren(panel.el);
    resumeBtn.hidden = true;
    const op = resumeRun(
      id,
      (s) => {
        panel.update(s);
        if (run.runId === id) renderRunState();
      },
      (seg) => {
        if (run.runId === id) fillSegment(seg);
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
      if (run.runId === id) await openRun(id);
    }
  };

  /** Segments of the open run with no translation: rows the run never reached and those not even listed. */
  const notTranslated = (): { missing: number; total: number } => {
    const empty = run.segments.filter((s) => run.untranslated(s)).length;
    const total = Math.max(currentState()?.total ?? 0, run.segments.length);
    return { missing: Math.max(empty, total - (run.segments.length - empty)), total };
  };

  const updateExport = () => {
    const info = run.exportInfo;
    const format = info ? (FORMAT_LABELS[info.export_format] ?? info.export_format) : 'text';
    exportBtn.textContent = `Export ${format}…`;
    exportBtn.disabled = run.runId === null || run.segments.length === 0;
    copyAllBtn.disabled = run.segments.length === 0;
    tmxBtn.disabled = run.runId === null || ![...run.statuses.values()].includes('approved');
  };

  const renderSummary = () => {
    const segments = run.segments;
    const flagged = segments.filter((s) => s.flagged).length;
    const ok = segments.filter((s) => s.verdict === 'ok').length;
    // A segment's `seconds` is when it was done, counted from the start of the run (segments are decoded together).
    const secs = segments.reduce((a, s) => Math.max(a, s.seconds), 0);
    const approved = segments.filter((s) => run.statuses.get(s.index) === 'approved').length;
    summary.textContent = run.loadingRest
      ? `the first ${segments.length} segments · loading the rest of run ${run.runId}…`
      : segments.length
      ? `${segments.length} segments · ${ok} in the requested register · ${flagged} flagged · ${approved} approved${secs > 0 ? ` · ${(secs / Math.max(segments.length, 1)).toFixed(1)} s/segment` : ''}${run.runId !== null ? ` · run ${run.runId}` : ''}`
      : '';
    updateExport();
  };

  /** Translates what the form says: the segments stream into the grid, which then shows the stored run. */
  const onTranslate = () => {
    const request = form.request();
    const source = form.source();
    const both = request.contrastive;
    return runWithProgress({
      slot: progressSlot,
      button: runBtn,
      testid: 'translate-progress',
      unit: 'segments',
      notify: ctx.notify,
      start: (onProgress) => {
        opening++;
        run.runId = null;
        run.lang = request.lang;
        run.loadingRest = false;
        run.exportInfo = null;
        run.clear();
        renderHead();
        grid.reset([]);
        renderCount();
        renderSummary();
        // Each segment appears as it finishes, in document order among those already shown.
        const onSegment = (seg: SegmentOut) => {
          // A contrastive run streams the formal side here; the informal side appears as the second column at the end.
          if (both && seg.register === 'informal') return;
          run.put(seg);
          grid.redraw(seg.index);
          applyFilter();
          renderSummary();
        };
        return translateText(ctx.project.id, source, request, onProgress, onSegment);
      },
      done: async (r, total) => {
        // The grid shows the stored run: what a reopened run shows, statuses and the document's export format included.
        await openRun(r.run_id);
        const secs = r.segments.reduce((a, s) => Math.max(a, s.seconds), 0);
        for (const seg of run.segments) seg.seconds = r.segments.find((s) => s.index === seg.index)?.seconds ?? secs;
        renderSummary();
        ctx.changed('runs');
        // Pasted text is kept as a document of the project (so the run can be resumed): the lists follow.
        if (source.document_id === null) ctx.changed('documents');
        // Progress counts both passes of a contrastive translation. The run is over a document (pasted text is kept as
        // one), so the grid lists the segments it did not reach too, as not translated.
        const kept = run.segments.filter((s) => !run.untranslated(s)).length;
        if (total > kept * (both ? 2 : 1)) ctx.notify(`Cancelled: ${kept} of ${total} segments kept in run ${r.run_id}`);
      },
      failed: (e) => ctx.notify(errorMessage(e), 'error'),
    });
  };

  const onExport = async () => {
    if (run.runId === null) return;
    const id = run.runId;
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
      const file = await chooseFile('save-text', run.exportInfo?.export_name ?? `translation.${run.lang}.txt`);
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
    if (run.runId === null) return;
    try {
      const file = await chooseFile('save-text', `${(run.exportInfo?.export_name ?? 'translation').replace(/\.[^.]*$/, '')}.tmx`);
      if (!file) return;
      ctx.notify(`Saved ${await exportTmx(run.runId, file)}`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  runBtn.addEventListener('click', () => void onTranslate());
  resumeBtn.addEventListener('click', () => {
    if (run.runId !== null) void resume(run.runId);
  });
  exportBtn.addEventListener('click', () => void onExport());
  tmxBtn.addEventListener('click', () => void onExportTmx());
  copyAllBtn.addEventListener('click', async () => {
    try {
      await copyText(run.segments.map((s) => s.text).join('\n'));
      ctx.notify(`Copied ${run.segments.length} segments`);
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
  // "Open with Registro" (main.ts openStartupFile): the shell imported a file and asks for it as the source; its
  // segments are shown at once.
  el.addEventListener('registro:open-document', (e) => void form.showDocument((e as CustomEvent<number>).detail));

  el.append(
    h('header', { class: 'view-header' }, h('h2', {}, 'Translate'), h('p', { class: 'muted' }, `Translate English into ${TARGET_CODES} in a chosen register; every sentence is checked, repaired or flagged.`)),
    h('section', { class: 'card' }, ...form.parts, h('div', { class: 'row' }, runBtn, form.contrastiveOption), progressSlot),
    gridCard,
    qa.el,
    runs,
  );
  renderHead();
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
    if (st.run_id !== run.runId) return;
    if (ended) openState = st;
    renderRunState();
  });
  const unsubscribe = ctx.subscribe((what) => {
    if (what === 'documents') form.renderDocs();
    void renderRuns();
    if (what === 'runs') void qa.refresh();
  });
  return () => {
    stopOpening();
    stopStates();
    unsubscribe();
  };
}
