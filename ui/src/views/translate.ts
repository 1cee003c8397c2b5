// Translate view: English → DE/ES/FR/HI/IT/JA/KO/NL/PT/RU/VI in a register chosen per document (overridable per sentence).
// Source and translation side by side; register markers highlighted in the requested register's colour and wrong
// ones in red; a register badge per sentence and a flag when it is still wrong; candidates to pick from; in-place
// editing (re-analysed and stored in the run); progress with cancel; export.

import './translate.css';

import { type Register, chooseFile, documentSegments, listRuns } from '../api';
import { ProgressPanel, errorMessage, rateProgress } from '../components';
import type { ViewContext } from '../context';
import { clear, h } from '../dom';
import { runTable } from '../lists';
import { modelPicker } from './model-picker';
import { qaPanel } from './translate-qa';
import {
  type Analysis,
  type SegmentOut,
  type Verdict,
  checkTranslation,
  exportTranslation,
  repairTranslation,
  saveTranslationEdit,
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
const CONTROLS = ['prompt', 'fewshot', 'constrain', 'rerank', 'repair'] as const;

/** The text with the analysis markers wrapped in <mark>, coloured by register; markers against `requested` red. */
export function highlight(text: string, analysis: Analysis, requested: Register): Node[] {
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
  const lang = h('select', { class: 'input', 'data-testid': 'translate-lang' }, ...LANGS.map(([c, n]) => h('option', { value: c }, `${n} (${c})`)));
  const register = h(
    'select',
    { class: 'input', 'data-testid': 'translate-register' },
    h('option', { value: 'formal' }, 'formal'),
    h('option', { value: 'informal' }, 'informal'),
    h('option', { value: 'respectful' }, 'respectful (ja)'),
  );
  const system = h(
    'select',
    { class: 'input', 'data-testid': 'translate-system' },
    h('option', { value: 'controlled' }, 'Registro control layer'),
    h('option', { value: 'generic' }, 'generic (uncontrolled)'),
    h('option', { value: 'pivot' }, 'pivot: translate, then formalize (MTFC)'),
  );
  const gender = h(
    'select',
    { class: 'input', 'data-testid': 'translate-gender' },
    h('option', { value: '' }, 'addressee: unspecified'),
    h('option', { value: 'masculine' }, 'addressee: masculine'),
    h('option', { value: 'feminine' }, 'addressee: feminine'),
  );
  const { input: model, list: modelList } = modelPicker('translate', 'qwen2.5-coder-1.5b-instruct', true);
  const nBest = h('input', { class: 'input', type: 'number', min: 1, max: 8, value: 4, 'data-testid': 'translate-nbest' });
  const docSelect = h('select', { class: 'input', 'data-testid': 'translate-document' });
  const source = h('textarea', { class: 'input tr-source', 'data-testid': 'translate-source', placeholder: 'English text, one segment per line (or pick a document)' });
  const controlBoxes = CONTROLS.map((c) => h('input', { type: 'checkbox', checked: true, 'data-testid': `translate-control-${c}`, value: c }));
  const segList = h('div', { class: 'tr-seglist', 'data-testid': 'translate-segments' });
  const runBtn = h('button', { class: 'btn primary', 'data-testid': 'translate-run' }, 'Translate');
  const exportBtn = h('button', { class: 'btn', 'data-testid': 'translate-export', disabled: true }, 'Export…');
  const progressSlot = h('div', {});
  const summary = h('div', { class: 'tr-summary muted', 'data-testid': 'translate-summary' });
  const resultBody = h('tbody', {});
  const results = h('table', { class: 'tr-table', 'data-testid': 'translate-results' }, resultBody);
  const runs = h('section', { class: 'card' });
  const qa = qaPanel(ctx);

  /** Per-segment register overrides, by segment index. */
  let overrides: Record<number, Register> = {};
  let segments: SegmentOut[] = [];
  let runId: number | null = null;
  let runLang = 'de';

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
        h('option', { value: 'respectful' }, 'respectful'),
      );
      sel.value = overrides[i] ?? '';
      sel.addEventListener('change', () => {
        if (sel.value) overrides[i] = sel.value as Register;
        else delete overrides[i];
      });
      segList.append(h('div', { class: 'tr-segrow' }, h('span', { class: 'muted small' }, String(i + 1)), h('span', { class: 'grow', title: line }, line), sel));
    });
  };

  const renderDocs = () => {
    const current = docSelect.value || String(ctx.selectedDocumentId() ?? '');
    clear(docSelect);
    docSelect.append(h('option', { value: '' }, 'pasted text'), ...ctx.documents().map((d) => h('option', { value: d.id }, d.name)));
    docSelect.value = ctx.documents().some((d) => String(d.id) === current) ? current : '';
  };

  const renderRuns = async () => {
    try {
      const list = await listRuns(ctx.project.id, { task: 'translate' });
      clear(runs);
      runs.append(h('h3', {}, 'Translate runs'), runTable(list));
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const renderRow = (seg: SegmentOut): HTMLElement => {
    const out = h('div', { class: 'tr-out', contenteditable: 'true', spellcheck: 'false', 'data-testid': 'translate-output' }, ...highlight(seg.text, seg.analysis, seg.register));
    const meta = h('div', { class: 'tr-meta' });
    const row = h('tr', { class: `tr-row${seg.flagged ? ' flagged' : ''}`, 'data-testid': 'translate-row', 'data-index': seg.index }, h('td', { class: 'tr-src' }, seg.source), h('td', {}, out, meta));
    const fillMeta = () => {
      clear(meta);
      meta.append(h('span', { class: `badge ${seg.register}` }, `asked: ${seg.register}`), labelBadge(seg.analysis.label, seg.verdict));
      if (seg.flagged) meta.append(h('span', { class: 'tr-flag', 'data-testid': 'translate-flag' }, `⚑ ${seg.flag_reason ?? 'wrong register'}`));
      if (seg.before_repair) meta.append(h('span', { class: 'muted', title: seg.before_repair }, 'repaired'));
      if (seg.candidates.length > 1) {
        const pick = h(
          'select',
          { class: 'input small', 'data-testid': 'translate-candidates' },
          h('option', { value: '' }, `${seg.candidates.length} candidates…`),
          ...seg.candidates.map((c, i) => h('option', { value: i }, `${c.label.toLowerCase()} · ${c.score.toFixed(2)} · ${c.text}`)),
        );
        pick.addEventListener('change', () => {
          const c = seg.candidates[Number(pick.value)];
          if (c) void commit(c.text);
        });
        meta.append(pick);
      }
      if (seg.flagged) {
        meta.append(
          h('button', {
            class: 'btn small', 'data-testid': 'translate-repair',
            onclick: async () => {
              try {
                await commit(await repairTranslation(runLang, seg.register, seg.text));
              } catch (e) {
                ctx.notify(errorMessage(e), 'error');
              }
            },
          }, 'Repair'),
        );
      }
    };
    /** Stores `text` as the segment's translation (re-analysed) and re-renders the row. */
    const commit = async (text: string) => {
      try {
        const check = runId !== null ? await saveTranslationEdit(runId, seg.index, runLang, seg.register, text) : await checkTranslation(runLang, seg.register, text);
        Object.assign(seg, { text, analysis: check.analysis, verdict: check.verdict, flagged: check.flagged, flag_reason: check.flag_reason });
        clear(out);
        out.append(...highlight(seg.text, seg.analysis, seg.register));
        row.classList.toggle('flagged', seg.flagged);
        fillMeta();
        renderSummary();
      } catch (e) {
        ctx.notify(errorMessage(e), 'error');
      }
    };
    out.addEventListener('blur', () => {
      const text = out.textContent ?? '';
      if (text !== seg.text) void commit(text);
    });
    out.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        out.blur();
      }
    });
    fillMeta();
    return row;
  };

  const renderSummary = () => {
    const flagged = segments.filter((s) => s.flagged).length;
    const ok = segments.filter((s) => s.verdict === 'ok').length;
    // A segment's `seconds` is when it was done, counted from the start of the run (segments are decoded together).
    const secs = segments.reduce((a, s) => Math.max(a, s.seconds), 0);
    summary.textContent = segments.length
      ? `${segments.length} segments · ${ok} in the requested register · ${flagged} flagged · ${(secs / Math.max(segments.length, 1)).toFixed(1)} s/segment${runId !== null ? ` · run ${runId}` : ''}`
      : '';
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
    runId = null;
    segments = [];
    clear(resultBody);
    renderSummary();
    const progress = rateProgress(panel, 'segments');
    // Each segment appears as it finishes, in document order among those already shown.
    const onSegment = (seg: SegmentOut) => {
      segments = [...segments.filter((s) => s.index !== seg.index), seg].sort((a, b) => a.index - b.index);
      const row = renderRow(seg);
      const after = Array.from(resultBody.children).find((r) => Number((r as HTMLElement).dataset.index) > seg.index);
      resultBody.insertBefore(row, after ?? null);
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
      },
      progress.update,
      onSegment,
    );
    panel.attach(op);
    try {
      const r = await op.result;
      runId = r.run_id;
      segments = r.segments;
      clear(resultBody);
      resultBody.append(...segments.map(renderRow));
      exportBtn.disabled = segments.length === 0;
      renderSummary();
      ctx.changed('runs');
      if (progress.total() > segments.length) ctx.notify(`Cancelled: ${segments.length} of ${progress.total()} segments kept in run ${r.run_id}`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    } finally {
      panel.done();
      runBtn.disabled = false;
    }
  };

  const onExport = async () => {
    try {
      const file = await chooseFile('save-text', `translation.${runLang}.txt`);
      if (!file) return;
      ctx.notify(`Saved ${await exportTranslation(file, segments.map((s) => s.text).join('\n') + '\n')}`);
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  runBtn.addEventListener('click', () => void onTranslate());
  exportBtn.addEventListener('click', () => void onExport());
  docSelect.addEventListener('change', () => {
    overrides = {};
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
  });
  lang.dispatchEvent(new Event('change'));

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
        h('label', {}, 'Candidates (N-best)', nBest),
        h('label', {}, 'Source', docSelect),
      ),
      h('div', { class: 'tr-controls' }, h('span', { class: 'muted' }, 'Controls:'), ...controlBoxes.map((b) => h('label', {}, b, ` ${b.value}`))),
      source,
      h('details', {}, h('summary', { class: 'muted small' }, 'Per-sentence register'), segList),
      h('div', { class: 'row' }, runBtn, exportBtn),
      progressSlot,
    ),
    h('section', { class: 'card' }, h('h3', {}, 'Translation'), summary, h('div', { class: 'table-wrap' }, results)),
    qa.el,
    runs,
  );

  renderDocs();
  void renderSegList();
  void renderRuns();
  void qa.refresh();
  return ctx.subscribe((what) => {
    if (what === 'documents') renderDocs();
    void renderRuns();
    if (what === 'runs') void qa.refresh();
  });
}
