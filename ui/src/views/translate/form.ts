// The Translate view's form: what to translate (pasted text or a stored document, with a register per sentence) and
// how — language, register, system, addressee, model, the control steps, candidates, examples, both registers side
// by side. It starts from core's defaults (src/defaults.ts) and its languages are core's (LANGUAGES, generated from
// registro_core::languages): a register, the pivot system or the addressee's gender is offered only where the
// language has it. `request()` is core's TranslateRequest with what the fields say; `source()` the TranslateSource.

import { type Control, type Gender, LANGUAGES, type Language, type Lang, type Register, documentSegments } from '../../api';
import { errorMessage } from '../../components';
import type { ViewContext } from '../../context';
import { defaultTranslateRequest } from '../../defaults';
import { clear, h, select } from '../../dom';
import { modelPicker } from '../model-picker';
import type { TranslateRequest, TranslateSource } from './api';

/** What each control does, in a translator's words; every control core has (a new one fails the build until it is
 * worded here), in the pipeline's order. */
const CONTROL_LABELS: Record<Control, string> = {
  prompt: 'Ask for the register in the instructions',
  fewshot: 'Show the model example translations in the register',
  constrain: 'Steer word choice towards the register while writing',
  rerank: 'Write several candidates and keep the one in the register',
  consensus: 'Among those, keep the one the others agree with most',
  repair: 'Fix what is still in the wrong register',
};

/** The languages a translation can go into. */
const TARGETS: Language[] = LANGUAGES.filter((l) => l.translate);

export interface TranslateForm {
  /** The form's parts, top to bottom: the fields, the pasted text, the per-sentence registers, the advanced options. */
  parts: HTMLElement[];
  /** "Both registers side by side", shown beside the Translate button. */
  contrastiveOption: HTMLElement;
  /** Core's request, the fields' values in it. */
  request(): TranslateRequest;
  /** What to translate: the pasted text or the chosen document, with the per-sentence registers. */
  source(): TranslateSource;
  /** The project's documents changed: the source list follows. */
  renderDocs(): void;
  /** Shows document `id` as the source, its sentences listed for their registers. */
  showDocument(id: number): Promise<void>;
}

export function translateForm(ctx: ViewContext): TranslateForm {
  const defaults = defaultTranslateRequest();
  const lang = select({ 'data-testid': 'translate-lang' }, TARGETS.map((l) => [l.code, `${l.name} (${l.code})`] as const));
  lang.value = defaults.lang;
  const register = h('select', { class: 'input', 'data-testid': 'translate-register' }) as HTMLSelectElement;
  const system = select({ 'data-testid': 'translate-system' }, [
    ['controlled', 'Registro control layer'],
    ['generic', 'generic (uncontrolled)'],
    ['pivot', 'pivot: translate, then formalize (MTFC)'],
  ]);
  system.value = defaults.system.kind === 'pivot' ? 'pivot' : defaults.controls.length === 0 ? 'generic' : 'controlled';
  const gender = select({ 'data-testid': 'translate-gender' }, [
    ['', 'addressee: unspecified'],
    ['masculine', 'addressee: masculine'],
    ['feminine', 'addressee: feminine'],
  ]);
  gender.value = defaults.gender ?? '';
  // The picker offers the installed models and picks the default one (core's, REGISTRO_DEFAULT_MODEL honoured);
  // left empty, the backend takes core's default model.
  const { input: model, list: modelList, setLang: setModelLang } = modelPicker('translate', '', true);
  const contrastive = h('input', { type: 'checkbox', 'data-testid': 'translate-contrastive', checked: defaults.contrastive }) as HTMLInputElement;
  const nBest = h('input', { class: 'input', type: 'number', min: 1, value: defaults.n_best, 'data-testid': 'translate-nbest' }) as HTMLInputElement;
  const fixedExamples = h('input', { type: 'checkbox', 'data-testid': 'translate-fixed-examples', checked: defaults.fixed_document_examples }) as HTMLInputElement;
  const backTranslation = h('input', { type: 'checkbox', 'data-testid': 'translate-back-translation', checked: defaults.back_translation }) as HTMLInputElement;
  const docSelect = h('select', { class: 'input', 'data-testid': 'translate-document' }) as HTMLSelectElement;
  const source = h('textarea', { class: 'input tr-source', 'data-testid': 'translate-source', placeholder: 'English text, one segment per line (or pick a document)' }) as HTMLTextAreaElement;
  const controlBoxes = (Object.keys(CONTROL_LABELS) as Control[]).map(
    (c) => h('input', { type: 'checkbox', checked: defaults.controls.includes(c), 'data-testid': `translate-control-${c}`, value: c }) as HTMLInputElement,
  );
  const segList = h('div', { class: 'tr-seglist', 'data-testid': 'translate-segments' });
  const segDetails = h('details', { 'data-testid': 'translate-seg-details' }, h('summary', { class: 'muted small' }, 'Per-sentence register'), segList) as HTMLDetailsElement;

  /** Per-segment register overrides, by segment index. */
  let overrides: Record<number, Register> = {};

  const language = (): Language => TARGETS.find((l) => l.code === lang.value) ?? TARGETS[0];

  /** The registers the chosen language has (respectful only where it exists); the choice kept where it can be. */
  const renderRegisters = () => {
    const keep = (register.value || defaults.register) as Register;
    const regs = language().registers;
    clear(register);
    register.append(...regs.map((r) => h('option', { value: r }, r)));
    register.value = regs.includes(keep) ? keep : regs.includes(defaults.register) ? defaults.register : regs[0];
    // The pivot system formalizes with the rewriting rules, and only a language that marks it has an addressee's gender.
    const pivot = system.querySelector<HTMLOptionElement>('option[value="pivot"]');
    if (pivot) pivot.disabled = !language().rewrite;
    if (!language().rewrite && system.value === 'pivot') system.value = 'controlled';
    gender.disabled = !language().addressee_gender;
    if (gender.disabled) gender.value = '';
  };

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
    const regs = language().registers;
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      const sel = h(
        'select',
        { class: 'input small', 'data-testid': 'translate-seg-register', 'data-index': i },
        h('option', { value: '' }, 'default'),
        ...regs.map((r) => h('option', { value: r }, r)),
      ) as HTMLSelectElement;
      sel.value = overrides[i] && regs.includes(overrides[i]) ? overrides[i] : '';
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

  docSelect.addEventListener('change', () => {
    overrides = {};
    showSourceBox();
    void renderSegList();
  });
  source.addEventListener('change', () => {
    overrides = {};
    void renderSegList();
  });
  // The picker says what the chosen model is worth for the chosen language, and warns when it is poor.
  lang.addEventListener('change', () => {
    setModelLang(lang.value);
    renderRegisters();
    // A sentence's register the new language does not have is dropped, not sent.
    for (const [i, r] of Object.entries(overrides)) if (!language().registers.includes(r)) delete overrides[Number(i)];
    void renderSegList();
  });
  renderRegisters();
  setModelLang(lang.value);
  renderDocs();
  void renderSegList();

  const parts = [
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
      h('div', { class: 'tr-controls' }, ...controlBoxes.map((b) => h('label', { title: b.value }, b, ` ${CONTROL_LABELS[b.value as Control]}`))),
      h('label', { class: 'tr-inline' }, 'Candidates per sentence ', nBest),
      h(
        'label',
        {
          class: 'tr-inline',
          title:
            "The model keeps what it computed for these examples, so the next document starts without it. Examples chosen by each document's words translate better: 0.6 BLEU more on the development split.",
        },
        fixedExamples,
        ' same examples for every document (the next document starts sooner)',
      ),
      h(
        'label',
        {
          class: 'tr-inline',
          title:
            'A sentence with a negation, or with "you" and "me" acting on one another, has its translation read back in English by the same model; a reading that reverses the negation or the roles is flagged. One more generation for those sentences.',
        },
        backTranslation,
        ' read negations and who-does-what back in English (second opinion)',
      ),
    ),
  ];

  return {
    parts,
    contrastiveOption: h(
      'label',
      { class: 'tr-inline', title: 'Two linked runs over the same text, shown as two target columns; per-sentence registers do not apply' },
      contrastive,
      ' both registers side by side (formal | informal)',
    ),
    request: () => {
      const r = defaultTranslateRequest();
      r.lang = lang.value as Lang;
      r.register = register.value as Register;
      r.controls = system.value === 'generic' ? [] : controlBoxes.filter((b) => b.checked).map((b) => b.value as Control);
      r.system = { kind: system.value === 'pivot' ? 'pivot' : 'controlled' };
      if (Number.isFinite(nBest.valueAsNumber)) r.n_best = nBest.valueAsNumber;
      r.gender = (gender.value || null) as Gender | null;
      r.contrastive = contrastive.checked;
      r.fixed_document_examples = fixedExamples.checked;
      r.back_translation = backTranslation.checked;
      // Empty: core's default model (the backend's `request_from_form`).
      r.model = model.value.trim();
      return r;
    },
    source: () => ({ text: source.value, document_id: Number(docSelect.value) || null, overrides: { ...overrides } }),
    renderDocs,
    showDocument: async (id: number) => {
      renderDocs();
      docSelect.value = String(id);
      showSourceBox();
      overrides = {};
      segDetails.open = true;
      await renderSegList();
      segDetails.scrollIntoView({ block: 'nearest' });
    },
  };
}
