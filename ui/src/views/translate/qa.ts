// The Translate view's QA panel: pick a translate run, check it (register consistency across the document, numbers,
// tags, untranslated/empty/length/whitespace, and terms from a termbase the user picks), see every finding with the
// words it points at, and "Make consistent": the deviating segments repaired in the run (old text kept) and those no
// rule can repair flagged. Errors would block an export; warnings never do. The panel is keyed by run id: it shows
// the result of the run it names (the one open in the grid, or the one picked here) and is cleared when the run changes,
// so a result never stays under another run.

import { type ChosenFile, type Id, type Operation, type Progress, chooseFile, listRuns, startOperation } from '../../api';
import type { QaIssue, QaOutcome } from '../../bindings';
import { ProgressPanel, errorMessage } from '../../components';
import type { ViewContext } from '../../context';
import { clear, h } from '../../dom';

/** Findings listed at most: rendering every one of a long document's findings froze the window for a second. */
const MAX_LISTED = 200;

/** Checks run `runId` (with `fix`, makes it consistent first); how far it is goes to `onProgress`, and a cancelled
 * check writes nothing. */
export const qaRun = (runId: Id, termbase: ChosenFile | null, fix: boolean, onProgress: (p: Progress) => void = () => {}): Operation<QaOutcome> =>
  startOperation<QaOutcome>('qa_run', { runId, termbase: termbase?.token ?? null, fix }, onProgress);

/** `text` with the issue's spans wrapped in <mark>. */
function marked(text: string, issue: QaIssue): Node[] {
  const chars = Array.from(text);
  const out: Node[] = [];
  let pos = 0;
  for (const s of [...issue.spans].sort((a, b) => a.char_start - b.char_start)) {
    if (s.char_start < pos || s.char_end > chars.length) continue;
    if (s.char_start > pos) out.push(document.createTextNode(chars.slice(pos, s.char_start).join('')));
    out.push(h('mark', { class: `tr-m ${issue.severity === 'error' ? 'wrong' : 'weak'}`, 'data-testid': 'qa-span' }, chars.slice(s.char_start, s.char_end).join('')));
    pos = s.char_end;
  }
  if (pos < chars.length) out.push(document.createTextNode(chars.slice(pos).join('')));
  return out;
}

/** The deviating segments' numbers: the first 30, then how many more (a long document lists hundreds). */
function deviating(segments: number[]): string {
  if (segments.length === 0) return 'none';
  const shown = segments.slice(0, 30).map((i) => i + 1).join(', ');
  return segments.length > 30 ? `${shown} … and ${segments.length - 30} more` : shown;
}

export interface QaPanel {
  el: HTMLElement;
  /** Re-lists the project's translate runs; a run that appeared since the last listing is selected (and checked). */
  refresh(): Promise<void>;
  /** Shows run `runId` (the grid's run): the panel is cleared and the run checked. */
  show(runId: number): Promise<void>;
}

export function qaPanel(ctx: ViewContext): QaPanel {
  const runSelect = h('select', { class: 'input', 'data-testid': 'qa-run' });
  const tbName = h('span', { class: 'muted small', 'data-testid': 'qa-termbase-name' }, 'no termbase');
  let termbase: ChosenFile | null = null;
  const checkBtn = h('button', { class: 'btn primary', 'data-testid': 'qa-check' }, 'Check document');
  const fixBtn = h('button', { class: 'btn', 'data-testid': 'qa-fix', disabled: true }, 'Make consistent');
  const tbBtn = h('button', { class: 'btn', 'data-testid': 'qa-termbase' }, 'Termbase…');
  const summary = h('div', { class: 'tr-summary', 'data-testid': 'qa-summary' });
  const register = h('div', { class: 'tr-summary', 'data-testid': 'qa-register' });
  const fixes = h('div', { class: 'muted small', 'data-testid': 'qa-fixes' });
  const anyway = h('div', { class: 'muted small', 'data-testid': 'qa-exported-anyway' });
  const body = h('tbody', {});
  const table = h('table', { class: 'tr-table', 'data-testid': 'qa-issues' }, body);
  /** The run the shown result belongs to (null: nothing shown). */
  let shownRun: number | null = null;
  /** The check in flight, if any. */
  let checking: Operation<QaOutcome> | null = null;
  const progressSlot = h('div', { class: 'qa-progress-slot' });

  /** Empties the panel and names the run it now belongs to. */
  const reset = (id: number | null) => {
    shownRun = null;
    el.dataset.run = id === null ? '' : String(id);
    summary.textContent = id === null ? '' : `Run ${id}: checking…`;
    delete summary.dataset.cancelled;
    // A check of the run shown before is no longer wanted: on a long document it would keep the backend busy.
    const before = checking;
    checking = null;
    void before?.cancel();
    summary.classList.remove('qa-blocking');
    register.textContent = '';
    delete register.dataset.mixed;
    fixes.textContent = '';
    anyway.textContent = '';
    fixBtn.disabled = true;
    clear(body);
  };

  const render = (o: QaOutcome) => {
    // An answer for a run that is no longer the one picked (the user switched while it was checked) is dropped.
    if (String(o.run_id) !== runSelect.value) return;
    shownRun = o.run_id;
    el.dataset.run = String(o.run_id);
    const r = o.report;
    const c = r.consistency;
    summary.textContent = `Run ${o.run_id} · ${r.lang} · ${r.register ?? 'no register'}: ${r.errors} error${r.errors === 1 ? '' : 's'} · ${r.warnings} warning${r.warnings === 1 ? '' : 's'}${o.blocking ? ' · export blocked until the errors are fixed' : ' · ready to export'}${r.terms ? ` · terms: ${r.terms.source_occurrences} found, ${r.terms.missing} missing, ${r.terms.forbidden} forbidden` : ''}${r.sources_known ? '' : ' · no stored source: only the register was checked'}`;
    summary.classList.toggle('qa-blocking', o.blocking);
    const forms = c.forms.map((f) => `${f.form} ×${f.segments.length}`).join(', ');
    register.textContent = !c.dominant
      ? 'Register: no address form in any segment'
      : c.mixed
        ? `Register: MIXED — ${forms}; the document is ${c.target ?? '?'}; deviating: ${deviating(c.deviating)}`
        : `Register: consistent — ${forms}`;
    register.dataset.mixed = c.mixed ? '1' : '0';
    fixBtn.disabled = c.deviating.length === 0;
    anyway.textContent = o.exported_anyway.map((x) => `Exported anyway by ${x.who} on ${x.created_at.slice(0, 16).replace('T', ' ')}: ${x.reason} (${x.what})`).join('\n');
    fixes.textContent = o.fixes.length ? `${o.fixed} segment${o.fixed === 1 ? '' : 's'} repaired (the old text is kept in the run) · ${o.unrepaired} could not be repaired and are flagged` : '';
    clear(body);
    // A long document can have thousands of findings: the first ones are listed, the count says how many more.
    for (const i of r.issues.slice(0, MAX_LISTED)) {
      const text = o.targets[i.segment] ?? '';
      body.append(
        h(
          'tr',
          { 'data-testid': 'qa-issue', 'data-kind': i.kind, 'data-severity': i.severity, 'data-segment': i.segment },
          h('td', { class: 'muted small' }, String(i.segment + 1)),
          h('td', {}, h('span', { class: `badge ${i.severity === 'error' ? 'failed' : 'cancelled'}` }, i.severity), ' ', h('span', { class: 'muted small' }, i.kind)),
          h('td', {}, h('div', {}, i.message), h('div', { class: 'tr-out' }, ...marked(text, i))),
        ),
      );
    }
    if (r.issues.length > MAX_LISTED)
      body.append(h('tr', { 'data-testid': 'qa-more' }, h('td', { colspan: 3, class: 'muted' }, `… and ${r.issues.length - MAX_LISTED} more findings (fix these, or use “Make consistent”, and check again)`)));
    if (r.issues.length === 0) body.append(h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No findings.')));
  };

  const run = async (fix: boolean) => {
    const id = Number(runSelect.value);
    if (!id) return;
    if (shownRun !== id) reset(id);
    checkBtn.disabled = fixBtn.disabled = true;
    // A picked file's token is good for one use: the termbase counts for this check, the next needs a new pick.
    const tb = termbase;
    termbase = null;
    if (tb) tbName.textContent = `${tb.name} (checked; pick it again to check terms again)`;
    // A long document's check shows how far it is and can be cancelled (a cancelled fix writes nothing).
    const panel = new ProgressPanel('qa-progress');
    progressSlot.replaceChildren(panel.el);
    const op = qaRun(id, tb, fix, panel.update);
    panel.attach(op);
    checking = op;
    try {
      render(await op.result);
      if (fix) ctx.changed('runs');
    } catch (e) {
      // Superseded by a check of another run (reset cancelled it): nothing to say.
      if (checking !== op && !panel.cancelled) return;
      if (panel.cancelled) {
        summary.textContent = `Run ${id}: check cancelled${fix ? ' (nothing was changed)' : ''}`;
        summary.dataset.cancelled = '1';
      } else ctx.notify(errorMessage(e), 'error');
    } finally {
      if (checking === op) checking = null;
      panel.done();
      checkBtn.disabled = false;
    }
  };
  checkBtn.addEventListener('click', () => void run(false));
  runSelect.addEventListener('change', () => {
    reset(Number(runSelect.value) || null);
    void run(false);
  });
  fixBtn.addEventListener('click', () => void run(true));
  tbBtn.addEventListener('click', async () => {
    try {
      const f = await chooseFile('import');
      if (!f) return;
      termbase = f;
      tbName.textContent = f.name;
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  });

  let newest = 0;
  const refresh = async () => {
    try {
      const runs = (await listRuns(ctx.project.id, { task: 'translate' })).filter((r) => r.target_lang);
      const top = Math.max(0, ...runs.map((r) => r.id));
      // A run just translated is the one to check; otherwise the user's pick stays.
      const before = Number(runSelect.value) || null;
      const keep = top > newest ? top : before;
      newest = top;
      clear(runSelect);
      runSelect.append(...runs.map((r) => h('option', { value: r.id }, `run ${r.id} · ${r.target_lang} · ${r.register ?? ''} · ${r.completed_segments} segments`)));
      if (keep && runs.some((r) => r.id === keep)) runSelect.value = String(keep);
      checkBtn.disabled = runs.length === 0;
      // Another run is picked now: what the panel showed belonged to the one before.
      const now = Number(runSelect.value) || null;
      if (now !== before || (now !== null && shownRun !== null && shownRun !== now)) {
        reset(now);
        if (now !== null && before !== null) void run(false);
        else if (now !== null) summary.textContent = `Run ${now}: not checked yet`;
      }
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const el = h(
    'section',
    { class: 'card', 'data-testid': 'qa-panel' },
    h('h3', {}, 'Quality check'),
    h('div', { class: 'row' }, h('label', {}, 'Run ', runSelect), tbBtn, tbName, checkBtn, fixBtn),
    progressSlot,
    summary,
    register,
    fixes,
    anyway,
    h('div', { class: 'table-wrap' }, table),
  );
  const show = async (runId: number) => {
    if (!runSelect.querySelector(`option[value="${runId}"]`)) await refresh();
    if (Number(runSelect.value) !== runId || shownRun !== runId) {
      runSelect.value = String(runId);
      reset(runId);
    }
    await run(false);
  };
  return { el, refresh, show };
}
