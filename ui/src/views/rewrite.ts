// Rewrite view: paste an informal draft (or pick a stored document), rewrite it with rules, round-trip MT or an
// LLM, and review it side by side — original left, rewrite right, every edit labelled with its type and
// toggleable, candidates to switch between, formality before → after per sentence, undo, export. Every decision is
// kept in the run as it is made, and a click on a stored run reopens it as it was left.
// Conventions: see the top of src/main.ts.

import './rewrite.css';

import { LANGUAGES, type RunRow, type RunState, chooseFile, listRuns } from '../api';
import { errorMessage } from '../components';
import type { ViewContext } from '../context';
import { defaultRewriteRequest } from '../defaults';
import { clear, h, select } from '../dom';
import { runTable } from '../lists';
import { runWithProgress } from '../run-progress';
import { liveState, onRunState, resumeRun, runStateView } from '../run-state';
import { modelPicker } from './model-picker';
import {
  type Method,
  type Piece,
  type RewriteChoice,
  type RewriteLang,
  type RewriteOutcome,
  type RewriteRequest,
  type ScorerChoice,
  type SentenceResult,
  exportRewrite,
  openRewriteRun,
  rewriteText,
  saveRewriteChoices,
  scoreFormality,
} from './rewrite-api';


/** What the user decided for one sentence; the undo stack holds copies of these. */
interface SentenceState {
  candidate: number;
  /** Per piece index of the current candidate: false = edit rejected. */
  accepted: boolean[];
  rejected: boolean;
  /** Formality of the current text, once re-scored. */
  formality: number | null;
}

function freshState(outcome: RewriteOutcome, i: number, candidate = 0): SentenceState {
  const c = outcome.sentences[i].candidates[candidate];
  return {
    candidate,
    accepted: c ? c.pieces.map(() => true) : [],
    rejected: false,
    formality: c ? c.scores.formality : outcome.sentences[i].formality_before,
  };
}

/** The state as the store keeps it (registro_core::rewrite::RewriteChoice). */
function toChoice(st: SentenceState): RewriteChoice {
  return {
    candidate: st.candidate,
    rejected_edits: st.accepted.flatMap((on, k) => (on ? [] : [k])),
    kept_original: st.rejected,
    formality: st.formality,
  };
}

function fromChoice(outcome: RewriteOutcome, i: number, c: RewriteChoice | null): SentenceState {
  if (!c || !outcome.sentences[i].candidates[c.candidate]) return freshState(outcome, i);
  const st = freshState(outcome, i, c.candidate);
  for (const k of c.rejected_edits) if (k < st.accepted.length) st.accepted[k] = false;
  st.rejected = c.kept_original;
  if (c.formality !== null) st.formality = c.formality;
  return st;
}

function currentText(outcome: RewriteOutcome, i: number, st: SentenceState): string {
  const s = outcome.sentences[i];
  const c = s.candidates[st.candidate];
  if (!c || st.rejected) return s.input;
  return c.pieces.map((p, k) => (p.kind === null || st.accepted[k] ? p.new : p.old)).join('');
}

const fmt = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(2);

// Every word shown about a candidate (its method, rank, score, why and flags) and every edit label comes from
// Rust (registro_rewrite::verdict): the CLI shows the same.

export function mount(el: HTMLElement, ctx: ViewContext): () => void {
  // What the form starts from: core's defaults (the tuned weights among them), never the view's own.
  const defaults = defaultRewriteRequest();
  // The languages rewriting knows, from core's one list.
  const lang = select({ 'data-testid': 'rewrite-lang' }, LANGUAGES.filter((l) => l.rewrite).map((l) => [l.code, `${l.name} (${l.code})`] as const));
  lang.value = defaults.lang;
  const method = select({ 'data-testid': 'rewrite-method' }, [
    ['rules', 'rules'],
    ['roundtrip', 'round-trip MT'],
    ['llm', 'LLM'],
  ]);
  method.value = defaults.method;
  const n = h('input', { class: 'input narrow', type: 'number', min: 0, value: defaults.n, 'data-testid': 'rewrite-n', title: 'LLM paraphrases per sentence, besides its minimal edit' }) as HTMLInputElement;
  const roundtrip = h('input', { type: 'checkbox', 'data-testid': 'rewrite-roundtrip', checked: defaults.roundtrip }) as HTMLInputElement;
  const keep = h('input', { class: 'input', value: defaults.keep.join(', '), placeholder: 'words to keep, comma-separated', 'data-testid': 'rewrite-keep', title: 'A candidate that drops one of these words is flagged and ranked last' }) as HTMLInputElement;
  // Local models and the backend connected in Settings → Backends (the pipeline runs on it the same way).
  const { input: model, list: modelList } = modelPicker('rewrite', defaults.model ?? '', false, 'model id (roundtrip / LLM)');
  const weight = (testid: string, value: number) => h('input', { class: 'input narrow', type: 'number', step: 0.5, min: 0, value, 'data-testid': testid }) as HTMLInputElement;
  const wF = weight('rewrite-weight-formality', defaults.weights.formality);
  const wM = weight('rewrite-weight-meaning', defaults.weights.meaning);
  const wL = weight('rewrite-weight-fluency', defaults.weights.fluency);
  const wC = weight('rewrite-weight-consensus', defaults.weights.consensus);
  const scorer = select({ 'data-testid': 'rewrite-scorer' }, [['surface', 'surface scorer'], ['lexical', 'lexical scorer (EN)'], ['embedding', 'embedding scorer (EN, MiniLM)']]);
  scorer.value = defaults.scorer.kind;
  const useDoc = h('input', { type: 'checkbox', 'data-testid': 'rewrite-use-document' });
  const input = h('textarea', {
    class: 'input grow',
    rows: 5,
    'data-testid': 'rewrite-input',
    placeholder: 'Paste an informal draft, one sentence per line…',
  });
  const runBtn = h('button', { class: 'btn primary', 'data-testid': 'rewrite-run' }, 'Rewrite');
  const formError = h('p', { class: 'error', 'data-testid': 'rewrite-error' });
  const progressSlot = h('div');
  const results = h('section', { class: 'card', 'data-testid': 'rewrite-results' }, h('p', { class: 'empty' }, 'No rewrite yet.'));
  const runs = h('section', { class: 'card' });

  el.append(
    h('header', { class: 'view-header' }, h('h2', {}, 'Rewrite'), h('p', { class: 'muted' }, 'Rewrite an informal draft formally: rules, round-trip MT or an LLM, with every edit labelled.')),
    h(
      'section',
      { class: 'card rw-form' },
      h('div', { class: 'row' }, h('label', {}, 'Language ', lang), h('label', {}, 'Method ', method), h('label', {}, 'Model ', model, modelList), scorer),
      h('div', { class: 'row' }, h('label', {}, 'LLM paraphrases ', n), h('label', {}, roundtrip, ' also a round trip'), h('label', {}, 'Keep ', keep)),
      h('div', { class: 'row' }, h('span', { class: 'muted small' }, 'The first candidate is the best by a weighted geometric mean of:'), h('label', {}, 'formality ', wF), h('label', {}, 'meaning ', wM), h('label', {}, 'fluency ', wL), h('label', {}, 'agreement ', wC)),
      h('div', { class: 'row' }, input),
      h('div', { class: 'row' }, h('label', {}, useDoc, ' rewrite the document selected in Documents instead'), runBtn),
      formError,
      progressSlot,
    ),
    results,
    runs,
  );

  let outcome: RewriteOutcome | null = null;
  /** The open run's state (core's words), live while it is resumed. */
  let openState: RunState | null = null;
  const runStateLine = (): HTMLElement | null => {
    const id = outcome?.run_id;
    const st = id == null ? null : liveState(id) ?? openState;
    if (!st || id == null) return null;
    return h(
      'div',
      { class: 'row rw-runstate', 'data-testid': 'rewrite-run-state' },
      runStateView(st),
      st.resumable && !liveState(id) ? h('button', { class: 'btn small', 'data-testid': 'rewrite-resume', title: 'Rewrite the sentences this run did not reach, with its own settings', onclick: () => void resume(id) }, 'Resume') : null,
    );
  };
  let states: SentenceState[] = [];
  /** The project's rewrite runs as last listed, with their states. */
  let listed: RunRow[] = [];
  /** The segment index of each sentence in its run (a reopened run stopped early may have gaps). */
  let segments: number[] = [];
  const undo: SentenceState[][] = [];
  // Saves go one after another, so an older decision never lands after a newer one.
  let saving: Promise<unknown> = Promise.resolve();

  /** Keeps the decisions on sentences `which` in the run, as they are now. */
  const persist = (which: number[]) => {
    const o = outcome;
    if (!o || o.run_id === null || which.length === 0) return;
    const runId = o.run_id;
    const choices = which.map((i): [number, RewriteChoice] => [segments[i] ?? i, toChoice(states[i])]);
    saving = saving.then(() => saveRewriteChoices(runId, choices)).catch((e) => ctx.notify(`Your choice was not saved: ${errorMessage(e)}`, 'error'));
  };
  const all = () => states.map((_, i) => i);

  const snapshot = () => {
    undo.push(states.map((s) => ({ ...s, accepted: [...s.accepted] })));
    if (undo.length > 200) undo.shift();
  };

  const rescore = async (i: number) => {
    if (!outcome) return;
    const o = outcome;
    try {
      const [f] = await scoreFormality([currentText(o, i, states[i])], o.lang, scorer.value);
      if (o === outcome) {
        states[i].formality = f;
        renderResults();
        persist([i]);
      }
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const change = (i: number, f: (s: SentenceState) => void) => {
    snapshot();
    f(states[i]);
    renderResults();
    persist([i]);
    void rescore(i);
  };

  const pieceView = (i: number, k: number, p: Piece, side: 'old' | 'new') => {
    if (p.kind === null) return side === 'old' ? p.old : p.new;
    const label = p.label ?? p.kind;
    if (side === 'old') return p.old ? h('span', { class: 'rw-del', title: label }, p.old) : null;
    const st = states[i];
    const on = st.accepted[k] && !st.rejected;
    const shown = on ? p.new : p.old;
    return h(
      'button',
      {
        class: `rw-edit${on ? '' : ' rejected'}${shown ? '' : ' empty-new'}`,
        'data-testid': 'rewrite-edit',
        'data-kind': p.kind,
        'data-accepted': on ? '1' : '0',
        title: `${label}: “${p.old}” → “${p.new}” — click to ${on ? 'reject' : 'accept'}`,
        onclick: () => change(i, (s) => {
          s.rejected = false;
          s.accepted[k] = !s.accepted[k];
        }),
      },
      shown || '∅',
      h('span', { class: 'rw-label', 'data-testid': 'rewrite-edit-label' }, label),
    );
  };

  const renderResults = () => {
    clear(results);
    if (!outcome) {
      results.append(h('p', { class: 'empty' }, 'No rewrite yet.'));
      return;
    }
    const o = outcome;
    const m = o.summary;
    const w = o.weights;
    const undoBtn = h('button', { class: 'btn small', 'data-testid': 'rewrite-undo', disabled: undo.length === 0, onclick: () => {
      const prev = undo.pop();
      if (prev) {
        states = prev;
        renderResults();
        persist(all());
      }
    } }, 'Undo');
    const acceptAll = h('button', { class: 'btn small', 'data-testid': 'rewrite-accept-all', onclick: () => {
      snapshot();
      states.forEach((s) => {
        s.rejected = false;
        s.accepted = s.accepted.map(() => true);
      });
      renderResults();
      persist(all());
      o.sentences.forEach((_, i) => void rescore(i));
    } }, 'Accept all');
    const exportBtn = h('button', { class: 'btn small primary', 'data-testid': 'rewrite-export', onclick: async () => {
      try {
        const file = await chooseFile('save-text', 'rewrite.txt');
        if (!file) return;
        ctx.notify(`Saved ${await exportRewrite(file, o.sentences.map((_, i) => currentText(o, i, states[i])).join('\n') + '\n')}`);
      } catch (e) {
        ctx.notify(errorMessage(e), 'error');
      }
    } }, 'Export accepted text…');
    results.append(
      h('h3', {}, `Rewrite (${o.method}${o.model ? `, ${o.model}` : ''})${o.run_id !== null ? ` — run ${o.run_id}` : ''}`),
      runStateLine() ?? '',
      h(
        'p',
        { class: 'muted small', 'data-testid': 'rewrite-summary' },
        `${m.sentences} sentences · formality ${fmt(m.formality_before)} → ${fmt(m.formality_after)} · chrF to input ${m.chrf_to_input.toFixed(1)}` +
          (m.perplexity !== null ? ` · perplexity ${m.perplexity.toFixed(1)}` : '') +
          ` · joint score ${Math.round(m.gm * 100)}/100 (weights formality ${w.formality}, meaning ${w.meaning}, fluency ${w.fluency}, agreement ${w.consensus}) · ${m.seconds_per_sentence.toFixed(3)} s/sentence · scorer ${o.scorer}`,
      ),
      h('div', { class: 'row' }, undoBtn, acceptAll, exportBtn, h('span', { class: 'muted rw-legend' }, 'Click an edit to accept or reject it.')),
    );
    const list = h('div', { class: 'rw-sentences' });
    o.sentences.forEach((s, i) => {
      const st = states[i];
      const c = s.candidates[st.candidate];
      const row = h('div', { class: `rw-sentence${st.rejected ? ' rejected' : ''}`, 'data-testid': 'rewrite-sentence' });
      if (!c) {
        row.append(h('div', { class: 'rw-old' }, s.input), h('div', { class: 'rw-new muted' }, s.input));
        list.append(row);
        return;
      }
      const old = h('div', { class: 'rw-old', 'data-testid': 'rewrite-original' }, ...c.pieces.map((p, k) => pieceView(i, k, p, 'old')));
      const neu = h('div', { class: 'rw-new', 'data-testid': 'rewrite-output' }, ...c.pieces.map((p, k) => pieceView(i, k, p, 'new')));
      const after = st.rejected ? s.formality_before : st.formality ?? c.scores.formality;
      const delta = after - s.formality_before;
      const cand = h(
        'div',
        { class: 'rw-cands', 'data-testid': 'rewrite-candidates' },
        ...s.candidates.map((cv, k) =>
          h(
            'button',
            {
              class: `rw-cand${k === st.candidate ? ' current' : ''}${cv.scores.flags.length ? ' flagged' : ''}`,
              'data-testid': 'rewrite-candidate',
              'data-origin': cv.origin,
              title: `${cv.text}\n${cv.verdict.headline}`,
              onclick: () => {
                if (k === st.candidate) return;
                snapshot();
                states[i] = freshState(o, i, k);
                renderResults();
                persist([i]);
              },
            },
            `${k === 0 ? '★ ' : ''}${cv.verdict.method} · ${cv.verdict.score}/100`,
          ),
        ),
      );
      const why = h('div', { class: 'rw-why', 'data-testid': 'rewrite-why' }, c.verdict.summary);
      const flags = c.verdict.flags.map((f) => h('span', { class: 'rw-flag', 'data-testid': 'rewrite-flag' }, `⚠ ${f}`));
      row.append(
        old,
        neu,
        h(
          'div',
          { class: 'rw-meta' },
          h('span', { 'data-testid': 'rewrite-formality' }, 'formality ', fmt(s.formality_before), ' → ', h('span', { class: delta >= 0 ? 'rw-up' : 'rw-down' }, fmt(after))),
          cand,
          h('button', { class: 'btn small', 'data-testid': 'rewrite-accept-sentence', onclick: () => change(i, (x) => {
            x.rejected = false;
            x.accepted = x.accepted.map(() => true);
          }) }, 'Accept sentence'),
          h('button', { class: 'btn small', 'data-testid': 'rewrite-reject-sentence', onclick: () => change(i, (x) => {
            x.rejected = true;
          }) }, 'Keep original'),
        ),
      );
      row.append(why, ...flags);
      list.append(row);
    });
    results.append(list);
  };

  /** Shows a stored run as it was left: its sentences, candidates and the writer's decisions. */
  const openRun = async (id: number) => {
    try {
      const stored = await openRewriteRun(id);
      const o = stored.outcome;
      outcome = o;
      openState = listed.find((r) => r.id === id)?.state ?? null;
      segments = stored.segments;
      states = o.sentences.map((_, i) => fromChoice(o, i, stored.choices[i] ?? null));
      undo.length = 0;
      formError.textContent = '';
      // The form as the run was made, so Rewrite again starts from the same draft and settings.
      lang.value = o.lang;
      method.value = o.method;
      [wF.value, wM.value, wL.value, wC.value] = [o.weights.formality, o.weights.meaning, o.weights.fluency, o.weights.consensus].map(String);
      useDoc.checked = stored.run.document_id !== null;
      if (stored.run.document_id === null) input.value = o.sentences.map((s) => s.input).join('\n');
      renderResults();
      void renderRuns();
      results.scrollIntoView({ block: 'start' });
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const renderRuns = async () => {
    try {
      const list = await listRuns(ctx.project.id, { task: 'rewrite' });
      listed = list;
      clear(runs);
      runs.append(
        h('h3', {}, 'Rewrite runs'),
        h('p', { class: 'muted small' }, 'Click a run to reopen it with your choices.'),
        runTable(list, { onOpen: (r) => void openRun(r.id), openId: outcome?.run_id ?? null, onResume: (r) => void resume(r.id), filterKey: 'rewrite' }),
      );
      const open = outcome?.run_id;
      const now = open == null ? undefined : list.find((r) => r.id === open)?.state;
      if (now && JSON.stringify(now) !== JSON.stringify(openState)) {
        openState = now;
        renderResults();
      }
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  /** Core's request with what the form says. */
  const request = (): RewriteRequest => {
    const r = defaultRewriteRequest();
    r.lang = lang.value as RewriteLang;
    r.method = method.value as Method;
    r.n = Math.max(0, Number(n.value) || 0);
    r.roundtrip = roundtrip.checked;
    r.keep = keep.value.split(',').map((w) => w.trim()).filter((w) => w.length > 0);
    // Empty: the default model where the method needs one (core's).
    r.model = model.value.trim() || null;
    r.weights = { formality: Number(wF.value), meaning: Number(wM.value), fluency: Number(wL.value), consensus: Number(wC.value) };
    r.scorer = { kind: scorer.value } as ScorerChoice;
    return r;
  };

  runBtn.addEventListener('click', () => {
    formError.textContent = '';
    const docId = useDoc.checked ? ctx.selectedDocumentId() : null;
    if (useDoc.checked && docId === null) {
      formError.textContent = 'Select a document in the Documents tab first.';
      return;
    }
    if (!useDoc.checked && !input.value.trim()) {
      formError.textContent = 'Paste some text to rewrite.';
      return;
    }
    const req = request();
    void runWithProgress({
      slot: progressSlot,
      button: runBtn,
      testid: 'rewrite-progress',
      unit: 'sentences',
      notify: ctx.notify,
      start: (onProgress) => {
        // Each sentence shows as it is done (original → chosen rewrite); the full review replaces this list at the end.
        const live = h('div', { class: 'rw-sentences' });
        clear(results);
        results.append(h('h3', {}, 'Rewriting…'), live);
        const onSentence = (s: SentenceResult) => {
          const best = s.candidates[0];
          live.append(
            h('div', { class: 'rw-sentence', 'data-testid': 'rewrite-live-sentence' }, h('div', { class: 'rw-old' }, s.input), h('div', { class: 'rw-new' }, best ? best.text : s.input)),
          );
        };
        return rewriteText(ctx.project.id, { text: input.value, document_id: docId }, req, onProgress, onSentence);
      },
      done: (o, total) => {
        outcome = o;
        states = o.sentences.map((_, i) => freshState(o, i));
        segments = o.sentences.map((_, i) => i);
        undo.length = 0;
        renderResults();
        ctx.changed('runs');
        if (total > o.sentences.length) ctx.notify(`Cancelled: ${o.sentences.length} of ${total} sentences kept${o.run_id !== null ? ` in run ${o.run_id}` : ''}`);
      },
      failed: (e) => {
        formError.textContent = errorMessage(e);
        renderResults();
      },
    });
  });

  /** Rewrites the sentences run `id` did not reach (its state live in every list), then reopens it. */
  const resume = async (id: number) => {
    if (liveState(id)) return;
    try {
      const out = await resumeRun(id).result;
      ctx.notify(`Run ${id}: ${out.state.label} (${out.produced} sentence${out.produced === 1 ? '' : 's'} rewritten now)`, out.state.phase === 'failed' ? 'error' : 'info');
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    } finally {
      ctx.changed('runs');
      if (outcome?.run_id === id) await openRun(id);
    }
  };
  const stopStates = onRunState((st) => {
    if (st.run_id === outcome?.run_id) renderResults();
  });

  void renderRuns();
  const stopOpening = ctx.opensRuns('rewrite', (r) => void openRun(r.id));
  const unsubscribe = ctx.subscribe((what) => {
    if (what === 'runs') void renderRuns();
  });
  return () => {
    stopStates();
    stopOpening();
    unsubscribe();
  };
}
