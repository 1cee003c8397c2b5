// Rewrite view. Placeholder from the foundation issue: lists the open project's documents and rewrite runs; the
// rewrite issue replaces the body of `mount`. Conventions: see the top of src/main.ts.

import { listRuns } from '../api';
import { errorMessage } from '../components';
import type { ViewContext } from '../context';
import { clear, h } from '../dom';
import { documentList, runTable } from '../lists';

export function mount(el: HTMLElement, ctx: ViewContext): () => void {
  const docs = h('section', { class: 'card' });
  const runs = h('section', { class: 'card' });
  el.append(
    h('header', { class: 'view-header' }, h('h2', {}, 'Rewrite'), h('p', { class: 'muted' }, 'Rewrite an informal draft formally: rules, round-trip MT or an LLM, with every edit labelled.')),
    docs,
    runs,
  );

  const render = async () => {
    clear(docs);
    docs.append(h('h3', {}, 'Documents'), documentList(ctx.documents(), { selectedId: ctx.selectedDocumentId() }));
    try {
      const list = await listRuns(ctx.project.id, { task: 'rewrite' });
      clear(runs);
      runs.append(h('h3', {}, 'Rewrite runs'), runTable(list));
    } catch (e) {
      ctx.notify(errorMessage(e), 'error');
    }
  };
  void render();
  return ctx.subscribe(() => void render());
}
