// Settings → Models: every catalogue model (core `models::summaries`: shipped, REGISTRO_CATALOGUE, imported) with
// its state on disk, size and licence; Download (continue, repair) with progress and Cancel, Verify (rehash every
// file), Remove (after a confirmation), and Import a GGUF chosen in the native dialog the backend opens (the page
// gets a token, never a path it could name itself).
//
// Test ids: models-table, model-row (data-model-id, data-state), model-state, model-download, model-verify,
// model-remove, model-quality, model-progress (+ -label, -cancel), model-result, model-error, models-import, models-import-progress,
// models-import-result (holding models-import-done or models-import-error), models-cache-dir.

import { chooseFile } from '../api';
import type { ChosenFile, ModelSummary } from '../api';
import { confirmDialog, errorMessage } from '../components';
import { clear, h } from '../dom';
import { DownloadPanel, STATE_LABEL, bytes, downloadModel, errorBlock, firstStart, importModel, listModels, removeModel, stateText, verifyModel } from './setup-api';

/** Called after a model changed on disk (the shell refreshes its start-up banners). */
export type OnModelsChanged = () => void;

export function renderModels(body: HTMLElement, onChanged: OnModelsChanged): void {
  clear(body);
  const tbody = h('tbody');
  const importResult = h('div', { 'data-testid': 'models-import-result' });
  const importBtn = h('button', { class: 'btn', 'data-testid': 'models-import' }, 'Import a GGUF…');
  const cacheDir = h('p', { class: 'small muted', 'data-testid': 'models-cache-dir' });
  const table = h(
    'table',
    { class: 'table models-table', 'data-testid': 'models-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Model'), h('th', {}, 'Kind'), h('th', {}, 'Licence'), h('th', { class: 'num' }, 'Size'), h('th', {}, 'State'), h('th', {}, ''))),
    tbody,
  );
  body.append(
    h(
      'div',
      { class: 'card' },
      h('div', { class: 'models-header' }, h('h3', {}, 'Models'), importBtn),
      h('p', { class: 'muted small' }, 'Downloads are checked against their sha256 checksums before use; a cancelled download continues where it stopped.'),
      h('div', { class: 'table-wrap' }, table),
      importResult,
      cacheDir,
    ),
  );

  const refresh = async () => {
    try {
      const [models, start] = await Promise.all([listModels(), firstStart()]);
      clear(tbody);
      for (const m of models) tbody.append(...row(m));
      cacheDir.textContent = `Model cache: ${start.cache_dir}`;
    } catch (e) {
      clear(tbody);
      tbody.append(h('tr', {}, h('td', { class: 'error', colspan: 6 }, errorMessage(e))));
    }
  };

  /** The model's row and the line under it for progress and messages; actions redraw both in place. */
  const row = (m: ModelSummary): HTMLElement[] => {
    const tr = h('tr', { 'data-testid': 'model-row', 'data-model-id': m.id, 'data-state': m.state });
    const extra = h('tr', { class: 'model-extra', 'data-model-id': m.id }, h('td', { colspan: 6 }));
    const cell = extra.firstElementChild as HTMLElement;
    const actions = h('td', { class: 'model-actions' });
    const redraw = (next: ModelSummary | null) => {
      if (!next) {
        tr.remove();
        extra.remove();
        return;
      }
      const [newTr, newExtra] = row(next);
      // Keep what the last action said under the redrawn row.
      newExtra.firstElementChild!.replaceChildren(...cell.childNodes);
      tr.replaceWith(newTr);
      extra.replaceWith(newExtra);
    };
    const say = (el: HTMLElement) => {
      clear(cell);
      cell.append(el);
    };
    const busy = (on: boolean) => {
      for (const b of actions.querySelectorAll('button')) b.disabled = on;
    };

    const usable = m.state === 'ready' || m.state === 'unverified';
    if (!usable) {
      const label = m.state === 'partial' ? 'Continue' : m.state === 'damaged' ? 'Repair' : 'Download';
      actions.append(
        h(
          'button',
          {
            class: 'btn small primary',
            'data-testid': 'model-download',
            onclick: async () => {
              busy(true);
              const panel = new DownloadPanel('model-progress');
              say(panel.el);
              const op = downloadModel(m.id, panel.update);
              panel.attach(op);
              try {
                const out = await op.result;
                say(h('p', { class: out.cancelled ? 'muted small' : 'ok small', 'data-testid': 'model-result' }, out.cancelled ? `Stopped. ${stateText(out.model)}` : `${out.model.name} is ready.`));
                redraw(out.model);
              } catch (e) {
                say(errorBlock(errorMessage(e), 'model-error'));
                redraw((await listModels().catch(() => [] as ModelSummary[])).find((x) => x.id === m.id) ?? m);
              }
              onChanged();
            },
          },
          label,
        ),
      );
    }
    if (m.state !== 'missing') {
      actions.append(
        h(
          'button',
          {
            class: 'btn small',
            'data-testid': 'model-verify',
            disabled: m.state === 'partial',
            title: m.state === 'partial' ? 'Finish the download first' : 'Recompute every file’s sha256 checksum',
            onclick: async () => {
              busy(true);
              const panel = new DownloadPanel('model-progress');
              say(panel.el);
              const op = verifyModel(m.id, panel.update);
              panel.attach(op);
              try {
                const v = await op.result;
                say(h('div', { class: v.ok ? 'ok small' : 'error', 'data-testid': 'model-result', 'data-ok': v.ok ? '1' : '0' }, ...v.lines.map((l) => h('div', {}, l))));
                redraw(v.model);
              } catch (e) {
                say(errorBlock(errorMessage(e), 'model-error'));
                busy(false);
              }
              onChanged();
            },
          },
          'Verify',
        ),
        h(
          'button',
          {
            class: 'btn small danger',
            'data-testid': 'model-remove',
            onclick: async () => {
              const what = m.state === 'partial' ? `the ${bytes(m.have_bytes)} downloaded of ${m.name}` : `${m.name} (${bytes(m.have_bytes || m.bytes)})`;
              if (!(await confirmDialog(`Remove ${what} from this computer? You can download it again later.`, 'Remove'))) return;
              busy(true);
              try {
                const r = await removeModel(m.id);
                say(h('p', { class: 'muted small', 'data-testid': 'model-result' }, `Removed; ${bytes(r.freed_bytes)} freed.`));
                redraw(r.model);
              } catch (e) {
                say(errorBlock(errorMessage(e), 'model-error'));
                busy(false);
              }
              onChanged();
            },
          },
          'Remove',
        ),
      );
    }

    // Partial and damaged models say what is there and what Download does; the badge says the rest.
    const detail = m.state === 'partial' || m.state === 'damaged' ? h('div', { class: 'small muted model-detail' }, stateText(m)) : null;
    tr.append(
      h(
        'td',
        {},
        h('div', {}, m.name, m.default ? h('span', { class: 'badge default-badge' }, 'default') : null, m.imported ? h('span', { class: 'badge' }, 'imported') : null),
        h('div', { class: 'small muted' }, m.id),
        // What the model is worth per target language, measured into its manifest (core models::quality_for).
        m.quality_summary ? h('div', { class: 'small muted', 'data-testid': 'model-quality', title: m.quality.map((q) => q.text).join('\n') }, `Translation quality: ${m.quality_summary}`) : null,
      ),
      h('td', {}, m.role),
      h('td', { class: 'model-licence small', title: m.licence }, m.licence || '—'),
      h('td', { class: 'num' }, m.bytes > 0 ? bytes(m.bytes) : '—'),
      h('td', { 'data-testid': 'model-state' }, h('span', { class: `badge model-${m.state}` }, STATE_LABEL[m.state]), detail),
      actions,
    );
    return [tr, extra];
  };

  importBtn.onclick = async () => {
    clear(importResult);
    let file: ChosenFile | null;
    try {
      file = await chooseFile('import-model');
    } catch (e) {
      importResult.append(h('p', { class: 'error', 'data-testid': 'models-import-error' }, errorMessage(e)));
      return;
    }
    if (!file) return;
    importBtn.disabled = true;
    const panel = new DownloadPanel('models-import-progress');
    importResult.append(h('p', { class: 'small' }, `Importing ${file.name}…`), panel.el);
    const op = importModel(file, panel.update);
    panel.attach(op);
    try {
      const m = await op.result;
      clear(importResult);
      importResult.append(h('p', { class: 'ok small', 'data-testid': 'models-import-done' }, `Imported ${file.name} as ${m.id} (${bytes(m.bytes)}). Pick it as the model in Translate.`));
      await refresh();
      onChanged();
    } catch (e) {
      clear(importResult);
      importResult.append(errorBlock(`${file.name}: ${errorMessage(e)}`, 'models-import-error'));
    } finally {
      importBtn.disabled = false;
    }
  };

  void refresh();
}
