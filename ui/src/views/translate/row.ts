// One row of the Translate view's review grid: the source (with Split… and Join with next where the run has a
// document), the translation to edit in place (register markers highlighted, inline tags as chips), its label,
// flag, override, translation-memory match, candidates, Copy and Repair, and its review status with Approve. Keys:
// ↑/↓ move between rows, Enter stores an edit, Ctrl+Enter approves and moves on, Ctrl+Shift+R repairs. A contrastive
// run's other register is a read-only cell beside it.

import { errorMessage } from '../../components';
import type { ViewContext } from '../../context';
import { clear, h } from '../../dom';
import {
  type SegmentOut,
  type SegmentStatus,
  checkTranslation,
  joinSegments,
  repairSegment,
  repairTranslation,
  saveTranslationEdit,
  setSegmentStatus,
  splitSegment,
} from './api';
import type { VirtualGrid } from './grid';
import { STATUS_LABELS, copyText, highlight, labelBadge, withTags } from './markup';
import { askOverrideReason } from './override';
import type { OpenRun } from './state';

/** What a row needs from the view around it. */
export interface RowHost {
  run: OpenRun;
  ctx: ViewContext;
  grid: VirtualGrid;
  /** A row's text, flag or status changed: the summary and Export follow. */
  changed(): void;
  /** The grid shows again what its filter lets through. */
  applyFilter(): void;
  /** Puts the caret in the row `step` rows away (1 = next). */
  moveFocus(from: HTMLElement, step: number): void;
  /** Splits or joins segments of the run's document and translates what that left empty. */
  resegment(change: () => Promise<{ untranslated: number[] }>, what: string): Promise<void>;
  /** Shows another stored run in the grid. */
  openRun(id: number): Promise<void>;
}

/** The grid row of `seg`, with everything a reviewer does in it. */
export function renderRow(host: RowHost, seg: SegmentOut): HTMLElement {
  const run = host.run;
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
    ...(run.contrast ? [contrastCell(host, run.contrast.rows[seg.index]?.segment, run.contrast.rows[seg.index]?.status)] : []),
    h('td', { class: 'tr-status-cell' }, statusCell),
  );
  const fillSource = () => {
    clear(srcCell);
    srcCell.append(h('div', {}, ...withTags(seg.source)));
    if (run.runId === null || !run.hasDocument) return;
    const last = seg.index === run.segments.length - 1;
    srcCell.append(
      h(
        'div',
        { class: 'tr-segtools' },
        h('button', { class: 'btn small link', 'data-testid': 'translate-split', title: 'Split this segment in two', onclick: () => editSplit() }, 'Split…'),
        ...(last ? [] : [h('button', { class: 'btn small link', 'data-testid': 'translate-join', title: 'Join with the next segment', onclick: () => void host.resegment(() => joinSegments(run.runId!, seg.index), `Joined segments ${seg.index + 1} and ${seg.index + 2}`) }, 'Join with next')]),
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
      void host.resegment(() => splitSegment(run.runId!, seg.index, at), `Split segment ${seg.index + 1}`);
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
  const untranslated = () => run.untranslated(seg);
  const fillStatus = () => {
    const status = run.statuses.get(seg.index) ?? 'translated';
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
    const ov = run.flagOverrides.get(seg.index);
    if (seg.flagged && ov)
      meta.append(h('span', { class: 'badge status-reviewed', 'data-testid': 'translate-override', title: `Overridden ${ov.created_at}` }, `flag overridden by ${ov.who} (${ov.created_at.slice(0, 10)}): ${ov.reason}`));
    if (seg.before_repair) meta.append(h('span', { class: 'muted', title: seg.before_repair }, 'repaired'));
    if (seg.back_translation)
      meta.append(
        h(
          'span',
          { class: 'muted small', 'data-testid': 'translate-back', title: 'The translation read back in English by the same model: the second opinion on negations and on who does what to whom' },
          `read back: “${seg.back_translation}”`,
        ),
      );
    const tm = run.tmMatches.get(seg.index);
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
            host.ctx.notify(`Copied segment ${seg.index + 1}`);
          } catch (e) {
            host.ctx.notify(errorMessage(e), 'error');
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
      const check = run.runId !== null ? await saveTranslationEdit(run.runId, seg.index, run.lang, seg.register, text) : await checkTranslation(run.lang, seg.register, text);
      Object.assign(seg, { text, analysis: check.analysis, verdict: check.verdict, flagged: check.flagged, flag_reason: check.flag_reason });
      // Every output check ran again on the new text: a person's edit is reviewed only when no flag is left open.
      if (run.runId !== null) run.statuses.set(seg.index, check.status ?? 'reviewed');
      run.flagOverrides.delete(seg.index);
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
      host.changed();
      host.grid.update();
      return true;
    } catch (e) {
      const why = errorMessage(e);
      // An edit that broke the file's inline tags is refused: the cell shows the stored text again.
      if (why.includes('inline tag') || why.includes('closing tag')) {
        clear(out);
        out.append(...highlight(seg.text, seg.analysis, seg.register));
      }
      host.ctx.notify(why, 'error');
      return false;
    }
  };
  const repair = async () => {
    try {
      if (run.runId === null) {
        await commit(await repairTranslation(run.lang, seg.register, out.textContent ?? seg.text));
        return;
      }
      // An unsaved edit is stored (and checked) first; the repair works on the stored text.
      const typed = out.textContent ?? '';
      if (typed !== seg.text && !(await commit(typed))) return;
      const r = await repairSegment(run.runId, seg.index);
      const c = r.check;
      Object.assign(seg, { text: r.text, analysis: c.analysis, verdict: c.verdict, flagged: c.flagged, flag_reason: c.flag_reason });
      run.statuses.set(seg.index, c.status ?? 'translated');
      run.flagOverrides.delete(seg.index);
      clear(out);
      out.append(...highlight(seg.text, seg.analysis, seg.register));
      row.classList.toggle('flagged', seg.flagged);
      fillMeta();
      fillStatus();
      host.changed();
      host.applyFilter();
      // The checks ran again on the repaired text: a flag Repair could not fix stays, and says why.
      if (seg.flagged) host.ctx.notify(`Segment ${seg.index + 1} is still flagged after Repair${r.changed ? '' : ' (no rule applied)'}: ${seg.flag_reason ?? ''}`, 'error');
      else host.ctx.notify(`Segment ${seg.index + 1} repaired: the checks pass`);
    } catch (e) {
      host.ctx.notify(errorMessage(e), 'error');
    }
  };
  /** Signs the segment off (storing an unsaved edit first); with `move`, goes on to the next visible segment. */
  const approve = async (move: boolean) => {
    if (run.runId === null) {
      host.ctx.notify('The run is still being translated: approve segments once it is stored.', 'error');
      return;
    }
    const text = out.textContent ?? '';
    if (text !== seg.text && !(await commit(text))) return;
    try {
      // An open flag is signed off only with an explicit override: who (the user), when, and why are stored.
      let reason: string | null = null;
      if (seg.flagged && !run.flagOverrides.has(seg.index)) {
        reason = await askOverrideReason(`Segment ${seg.index + 1} is still flagged: ${seg.flag_reason ?? 'flagged'}. Approve it anyway?`, 'Approve with override');
        if (reason === null) return;
      }
      const ov = await setSegmentStatus(run.runId, seg.index, 'approved', reason);
      if (ov) run.flagOverrides.set(seg.index, ov);
      run.statuses.set(seg.index, 'approved');
      fillMeta();
      fillStatus();
      host.changed();
      if (move) host.moveFocus(row, 1);
      host.applyFilter();
    } catch (e) {
      host.ctx.notify(errorMessage(e), 'error');
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
      host.moveFocus(row, e.key === 'ArrowDown' ? 1 : -1);
    }
  });
  fillSource();
  fillMeta();
  fillStatus();
  return row;
}

/** The other register's translation of a segment, read-only here: "Open" shows that run in the grid to edit it. */
function contrastCell(host: RowHost, seg: SegmentOut | undefined, status: SegmentStatus | undefined): HTMLElement {
  const contrast = host.run.contrast;
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
      h('button', { class: 'btn small', title: `Review the ${contrast.register} translation (run ${other})`, onclick: () => void host.openRun(other) }, 'Open'),
    ),
  );
  return cell;
}
