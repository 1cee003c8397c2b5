// The Documents view of the open project (shell-owned): import a file or paired folder (picked in a dialog),
// list documents, show a document's segments with their references, list runs (a click reopens one in the view
// that made it, where that view reopens runs), delete with confirmation.

import { type ChosenFile, type Document, type ImportFormat, LANGUAGES, type SegmentRow, chooseFile, deleteDocument, deleteRun, documentSegments, importDocument, listRuns } from '../api';
import { ProgressPanel, errorMessage } from '../components';
import type { ViewContext } from '../context';
import { clear, h, plural } from '../dom';
import { documentList, runTable } from '../lists';
import { resumeRun } from '../run-state';

const PAGE = 200;
const FORMATS: Array<[ImportFormat | '', string]> = [
  ['', 'detect from the file name (DOCX, XLIFF, PO, SRT, WebVTT, Markdown, HTML, text, TSV, CSV, JSONL)'],
  ['text', 'plain text, one segment per line'],
  ['tsv', 'TSV with a header'],
  ['csv', 'CSV with a header'],
  ['jsonl', 'JSONL'],
  ['cocoa', 'paired folder (CoCoA-MT / IWSLT)'],
  ['xformal', 'paired folder (XFORMAL / GYAFC)'],
];

export function mountDocuments(el: HTMLElement, ctx: ViewContext, selectDocument: (id: number | null) => void): () => void {
  const importCard = importForm(ctx, selectDocument);
  const docsCard = h('section', { class: 'card' });
  const segmentsCard = h('section', { class: 'card segments-card', 'data-testid': 'document-view' });
  const runsCard = h('section', { class: 'card' });
  el.append(h('header', { class: 'view-header' }, h('h2', {}, ctx.project.name), h('p', { class: 'muted' }, 'Documents and runs of this project.')), importCard, docsCard, segmentsCard, runsCard);

  const renderDocs = () => {
    clear(docsCard);
    docsCard.append(
      h('h3', {}, 'Documents'),
      documentList(ctx.documents(), {
        selectedId: ctx.selectedDocumentId(),
        onOpen: (d) => selectDocument(d.id),
        onDelete: async (d) => {
          if (!(await ctx.confirm(`Delete the document “${d.name}” with its ${plural(d.segments, 'segment')} and all its runs?`))) return;
          try {
            await deleteDocument(d.id);
            if (ctx.selectedDocumentId() === d.id) selectDocument(null);
            ctx.changed('documents');
            ctx.notify(`Deleted “${d.name}”.`);
          } catch (e) {
            ctx.notify(errorMessage(e), 'error');
          }
        },
      }),
    );
  };

  let shownDoc: number | null = null;
  const renderSegments = async () => {
    const id = ctx.selectedDocumentId();
    const doc = ctx.documents().find((d) => d.id === id);
    if (!doc) {
      shownDoc = null;
      clear(segmentsCard);
      segmentsCard.append(h('p', { class: 'empty' }, 'Open a document to see its segments.'));
      return;
    }
    if (shownDoc === doc.id) return;
    shownDoc = doc.id;
    clear(segmentsCard);
    const table = segmentTable(doc);
    segmentsCard.append(
      h('h3', { 'data-testid': 'document-title' }, doc.name),
      h('p', { class: 'muted small' }, `${plural(doc.segments, 'segment')} · ${doc.source_lang}${doc.target_lang ? `→${doc.target_lang}` : ''} · imported from ${doc.origin ?? 'text'}`),
      table.el,
    );
    try {
      await table.loadMore();
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const renderRuns = async () => {
    try {
      const runs = await listRuns(ctx.project.id);
      clear(runsCard);
      runsCard.append(
        h('h3', {}, 'Runs'),
        runTable(runs, {
          onOpen: (r) => ctx.openRun(r),
          canOpen: (r) => ctx.canOpenRun(r),
          // The row itself shows the resume's live state (starting: what it is doing, then running n/m).
          onResume: async (r) => {
            try {
              const out = await resumeRun(r.id).result;
              ctx.notify(`Run #${r.id}: ${out.state.label} (${out.produced} missing segment${out.produced === 1 ? '' : 's'} produced)`, out.state.phase === 'failed' ? 'error' : 'info');
            } catch (e) {
              ctx.notify(errorMessage(e), 'error');
            } finally {
              ctx.changed('runs');
            }
          },
          filterKey: 'documents',
          onDelete: async (r) => {
            if (!(await ctx.confirm(`Delete run #${r.id} (${r.task}, ${r.system}) with its outputs and scores?`))) return;
            try {
              await deleteRun(r.id);
              ctx.changed('runs');
            } catch (e) {
              ctx.notify(errorMessage(e), 'error');
            }
          },
        }),
      );
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };

  const renderAll = () => {
    renderDocs();
    void renderSegments();
    void renderRuns();
  };
  renderAll();
  return ctx.subscribe(renderAll);
}

function segmentTable(doc: Document): { el: HTMLElement; loadMore: () => Promise<void> } {
  const refNames = doc.reference_names;
  const body = h('tbody', {});
  const more = h('button', { class: 'btn small', 'data-testid': 'segments-more' }, 'Show more');
  let loaded = 0;
  const loadMore = async () => {
    const rows: SegmentRow[] = await documentSegments(doc.id, loaded, PAGE);
    for (const s of rows) {
      body.append(
        h(
          'tr',
          { 'data-testid': 'segment-row', 'data-index': s.index },
          h('td', { class: 'num' }, s.index + 1),
          h('td', { 'data-testid': 'segment-text', lang: s.lang }, s.text),
          ...refNames.map((n) => h('td', { class: 'ref' }, s.references[n] ?? '')),
        ),
      );
    }
    loaded += rows.length;
    more.hidden = loaded >= doc.segments;
  };
  more.addEventListener('click', () => void loadMore());
  const el = h(
    'div',
    { class: 'table-wrap' },
    h('table', { class: 'table segments', 'data-testid': 'segment-list' }, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'source'), ...refNames.map((n) => h('th', {}, n)))), body),
    more,
  );
  return { el, loadMore };
}

function importForm(ctx: ViewContext, selectDocument: (id: number | null) => void): HTMLElement {
  const format = h('select', { class: 'input', 'data-testid': 'import-format', title: 'Format' }, ...FORMATS.map(([v, label]) => h('option', { value: v }, label)));
  const sourceLang = h('select', { class: 'input', 'data-testid': 'import-source-lang', title: 'Source language' }, h('option', { value: '' }, 'source: auto'), ...LANGUAGES.map((l) => h('option', { value: l.code }, `source: ${l.code}`)));
  const name = h('input', { type: 'text', class: 'input', 'data-testid': 'import-name', placeholder: 'name (optional)' });
  const status = h('div', { class: 'import-status', 'data-testid': 'import-status' });
  const fileBtn = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'import-browse' }, 'Import a file…');
  const folderBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-browse-folder' }, 'Import a folder…');

  // One step: the dialog (opened by the backend, which hands back a one-time token, never a path the page could
  // forge) and then the import with the options set above.
  const run = async (directory: boolean) => {
    let chosen: ChosenFile | null;
    try {
      chosen = await chooseFile(directory ? 'import-folder' : 'import');
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
      return;
    }
    if (!chosen) return;
    const panel = new ProgressPanel('import-progress');
    clear(status);
    status.append(h('p', { class: 'muted small', 'data-testid': 'import-path' }, chosen.path), panel.el);
    fileBtn.disabled = folderBtn.disabled = true;
    const op = importDocument(
      ctx.project.id,
      chosen,
      { format: (format.value || null) as ImportFormat | null, source_lang: sourceLang.value || null, name: name.value.trim() || null },
      panel.update,
    );
    panel.attach(op);
    try {
      const summary = await op.result;
      panel.done();
      const names = summary.documents.map((d) => d.name).join(', ');
      status.append(h('p', { class: 'ok', 'data-testid': 'import-result' }, `Imported ${plural(summary.documents.length, 'document')} (${plural(summary.segments, 'segment')}): ${names}`));
      if (summary.ignored.length) status.append(h('p', { class: 'muted small' }, `Not imported (not a source or reference): ${summary.ignored.join(', ')}`));
      name.value = '';
      ctx.changed('documents');
      if (summary.documents[0]) selectDocument(summary.documents[0].id);
    } catch (err) {
      panel.done();
      status.append(h('p', { class: 'error', 'data-testid': 'import-error' }, errorMessage(err)));
    } finally {
      fileBtn.disabled = folderBtn.disabled = false;
    }
  };
  fileBtn.addEventListener('click', () => void run(false));
  folderBtn.addEventListener('click', () => void run(true));

  return h(
    'section',
    { class: 'card import-form', 'data-testid': 'import-form' },
    h('h3', {}, 'Import a document'),
    h('div', { class: 'row' }, format, sourceLang, name),
    h('div', { class: 'row' }, fileBtn, folderBtn),
    status,
  );
}
