// Registro's web UI: the shell (project sidebar, view tabs, status bar) and the views mounted into it.
//
// UI CONVENTIONS (read before touching a view)
// - Views: `src/views/<name>.ts` (or `src/views/<name>/view.ts` for a view in parts, as Translate) exports
//   `mount(el: HTMLElement, ctx: ViewContext)` (see src/context.ts). The shell
//   mounts each view once per open project into its own container and only hides/shows it when tabs change, so a
//   running operation survives a tab switch. `mount` may return a cleanup function, called when the project
//   closes or changes. Re-render on `ctx.subscribe(what => …)` ('documents' | 'runs'); after creating or deleting
//   data call `ctx.changed('runs')` so the sidebar counts and the other views update.
// - Commands: only through typed wrappers in src/api.ts (`call<T>(command, args)`; argument names camelCase, struct
//   fields snake_case as Rust serializes them). Errors are `CommandError`s whose message is the backend's context
//   chain: show it with `ctx.notify(errorMessage(e), 'error')` or next to the form that failed.
// - Long operations: `startOperation<T>(command, args, onProgress)` returns `{ id, result, cancel }`; the command
//   takes `op_id: String` + `on_progress: Channel<Progress>` (see src-tauri/src/lib.rs). Show them with
//   `new ProgressPanel(testid)` from src/components.ts: `panel.update` as onProgress, `panel.attach(op)` wires its
//   Cancel button to the backend, `panel.done()` removes it; a view's main action (Translate, Rewrite) goes through
//   `runWithProgress` (src/run-progress.ts), which does all of that around the button.
// - Defaults and languages: a form starts from core's request (`defaultTranslateRequest()` / `defaultRewriteRequest()`
//   in src/defaults.ts, read once at start) and lists languages from `LANGUAGES` (generated from core): no view
//   writes a default value or a language list of its own.
// - Files: never a path from the page. `chooseFile(purpose, defaultName?)` asks the backend to open the native dialog
//   and returns a one-time token (plus the path to show); file commands take the token. The web view has no dialog,
//   fs or http permission, and only the commands in src-tauri/src/command_list.rs are granted.
// - Start-up problems (database cannot open, default model missing) come from `startupStatus()` and are shown as
//   banners above the views (`startup-problem`, data-level error|warning|info). Without the default model on disk
//   the window also opens on the setup card (views/setup.ts), which downloads it.
// - DOM: build elements with `h(tag, attrs, ...children)` from src/dom.ts (text is never parsed as HTML). The CSP
//   forbids inline scripts and inline `style="…"` attributes: style with classes (or `el.style.x = …` from code).
//   Confirm destructive actions with `ctx.confirm(message)` (an in-page dialog; never `window.confirm`).
// - Test ids: every element a test or a user flow needs gets a stable `data-testid` (kebab-case, prefixed by the
//   view: `translate-run`, `rewrite-input`, …). The shell's: sidebar, new-project-name, create-project,
//   project-item (data-project-name), open-project, delete-project, confirm-dialog/confirm-ok/confirm-cancel,
//   tab-<view>, view-<view>, notice, startup-problem; the Documents view's: import-browse, import-browse-folder,
//   import-format, import-path (the picked path), import-result, import-error, document-item, open-document, delete-document, segment-list, segment-row,
//   segment-text, run-list, run-item, delete-run. `body[data-ready="1"]` once the first project list has loaded.
// - CSS classes (src/styles.css): layout `card`, `row`, `grow`, `view-header`; controls `btn` (+ `primary`,
//   `danger`, `small`), `input`; lists `list`, `list-item`, `list-main`, `item-title`, `selected`; tables `table`
//   (+ `table-wrap` to scroll, `num` cells, `clickable` rows); text `muted`, `small`, `empty`, `ok`, `error`;
//   `badge` + a run status (`done`, `failed`, …) or `formal`/`informal`/`respectful`; `progress`.
//   Colours are CSS variables in :root (--accent, --danger, --formal, --informal, --respectful, …).

// Japanese, Korean and Hindi text must render on machines with no CJK, Hangul or Devanagari font installed (the web view falls back
// to boxes otherwise). Only the weights the UI uses; each file covers a unicode-range, so only the subsets a page
// needs are loaded.
import '@fontsource/noto-sans-jp/400.css';
import '@fontsource/noto-sans-jp/700.css';
import '@fontsource/noto-sans-devanagari/400.css';
import '@fontsource/noto-sans-devanagari/700.css';
import '@fontsource/noto-sans-kr/400.css';
import '@fontsource/noto-sans-kr/700.css';
import './styles.css';

import { listen } from '@tauri-apps/api/event';

import { type ChosenFile, type Document, type Project, type Run, type StartupProblem, appInfo, createProject, deleteProject, importDocument, listDocuments, listProjects, startupFile, startupStatus } from './api';
import { confirmDialog, errorMessage, notify } from './components';
import type { MountFn, ViewChange, ViewContext } from './context';
import { loadDefaults } from './defaults';
import { clear, h, plural } from './dom';
import { mountDocuments } from './shell/documents';
import { mount as mountDashboard } from './views/dashboard';
import { mount as mountRewrite } from './views/rewrite';
import { MODELS_CHANGED, openSettings } from './views/settings';
import { showSetupIfNeeded } from './views/setup';
import { mount as mountTranslate } from './views/translate/view';

type TabId = 'documents' | 'rewrite' | 'translate' | 'dashboard';

const TABS: Array<{ id: TabId; label: string }> = [
  { id: 'documents', label: 'Documents' },
  { id: 'rewrite', label: 'Rewrite' },
  { id: 'translate', label: 'Translate' },
  { id: 'dashboard', label: 'Dashboard' },
];

const state = {
  projects: [] as Project[],
  project: null as Project | null,
  documents: [] as Document[],
  selectedDocumentId: null as number | null,
  tab: 'documents' as TabId,
  listeners: new Set<(what: ViewChange) => void>(),
  /** The view that reopens stored runs of each task, by task. */
  runOpeners: new Map<string, (run: Run) => void>(),
  cleanups: [] as Array<() => void>,
  /** localStorage key of the last open project; per database, since ids repeat across databases. */
  lastProjectKey: 'registro.project',
};

const projectList = h('ul', { class: 'project-list', 'data-testid': 'project-list' });
const newProjectName = h('input', { type: 'text', class: 'input', 'data-testid': 'new-project-name', placeholder: 'New project name' });
const tabBar = h('nav', { class: 'tabs', role: 'tablist' });
const viewArea = h('div', { class: 'view-area' });
const dbLabel = h('span', { class: 'muted small', 'data-testid': 'db-path' });
const startupArea = h('div', { class: 'startup-problems', 'data-testid': 'startup-problems' });
const setupArea = h('div', { class: 'setup-area' });

function layout(root: HTMLElement) {
  const createForm = h(
    'form',
    { class: 'new-project', 'data-testid': 'new-project-form' },
    newProjectName,
    h('button', { class: 'btn primary', type: 'submit', 'data-testid': 'create-project' }, 'Create'),
  );
  createForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void onCreateProject();
  });
  root.append(
    h(
      'aside',
      { class: 'sidebar', 'data-testid': 'sidebar' },
      h('h1', { class: 'brand' }, 'Registro'),
      createForm,
      h('h2', { class: 'sidebar-heading' }, 'Projects'),
      projectList,
      h('button', { class: 'btn small settings-button', 'data-testid': 'open-settings', onclick: () => openSettings() }, 'Settings'),
    ),
    h('main', { class: 'main' }, setupArea, startupArea, tabBar, viewArea, h('footer', { class: 'statusbar' }, h('span', { class: 'notice', 'data-testid': 'notice', role: 'status' }), dbLabel)),
  );
}

function renderProjects() {
  clear(projectList);
  if (state.projects.length === 0) {
    projectList.append(h('li', { class: 'empty' }, 'No projects yet: create one above.'));
  }
  for (const p of state.projects) {
    projectList.append(
      h(
        'li',
        { class: `list-item${p.id === state.project?.id ? ' selected' : ''}`, 'data-testid': 'project-item', 'data-project-id': p.id, 'data-project-name': p.name },
        h(
          'button',
          { class: 'list-main', 'data-testid': 'open-project', onclick: () => void openProject(p.id) },
          h('span', { class: 'item-title' }, p.name),
          h('span', { class: 'muted small' }, `${plural(p.documents, 'document')} · ${plural(p.runs, 'run')}`),
        ),
        h('button', { class: 'btn small danger', 'data-testid': 'delete-project', title: `Delete ${p.name}`, onclick: () => void onDeleteProject(p) }, 'Delete'),
      ),
    );
  }
}

function renderTabs() {
  clear(tabBar);
  for (const t of TABS) {
    tabBar.append(
      h(
        'button',
        {
          class: `tab${t.id === state.tab ? ' active' : ''}`,
          role: 'tab',
          'aria-selected': String(t.id === state.tab),
          'data-testid': `tab-${t.id}`,
          disabled: !state.project,
          onclick: () => showTab(t.id),
        },
        t.label,
      ),
    );
  }
}

function showTab(tab: TabId) {
  state.tab = tab;
  renderTabs();
  for (const el of viewArea.querySelectorAll<HTMLElement>('[data-view]')) el.hidden = el.dataset.view !== tab;
}

async function refreshProjects() {
  state.projects = await listProjects();
  if (state.project) state.project = state.projects.find((p) => p.id === state.project!.id) ?? null;
  renderProjects();
}

async function refreshDocuments() {
  state.documents = state.project ? await listDocuments(state.project.id) : [];
  if (!state.documents.some((d) => d.id === state.selectedDocumentId)) state.selectedDocumentId = null;
}

function emit(what: ViewChange) {
  for (const l of [...state.listeners]) l(what);
}

async function changed(what: ViewChange) {
  try {
    if (what === 'documents') await refreshDocuments();
    await refreshProjects();
    emit(what);
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
}

function unmountViews() {
  for (const c of state.cleanups.splice(0)) c();
  state.listeners.clear();
  state.runOpeners.clear();
  clear(viewArea);
}

async function openProject(id: number | null) {
  unmountViews();
  state.project = state.projects.find((p) => p.id === id) ?? null;
  state.selectedDocumentId = null;
  renderProjects();
  if (!state.project) {
    localStorage.removeItem(state.lastProjectKey);
    viewArea.append(h('div', { class: 'welcome', 'data-testid': 'welcome' }, h('h2', {}, 'Welcome to Registro'), h('p', { class: 'muted' }, 'Create or open a project in the sidebar: it holds your documents and every run.')));
    renderTabs();
    return;
  }
  localStorage.setItem(state.lastProjectKey, String(state.project.id));
  try {
    await refreshDocuments();
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
  const project = state.project;
  const ctx: ViewContext = {
    project,
    documents: () => state.documents,
    selectedDocumentId: () => state.selectedDocumentId,
    changed: (what) => void changed(what),
    subscribe: (l) => {
      state.listeners.add(l);
      return () => state.listeners.delete(l);
    },
    notify,
    confirm: confirmDialog,
    canOpenRun: (run) => state.runOpeners.has(run.task),
    openRun: (run) => {
      const open = state.runOpeners.get(run.task);
      if (!open) return;
      const tab = TABS.find((t) => t.id === run.task);
      if (tab) showTab(tab.id);
      open(run);
    },
    opensRuns: (task, open) => {
      state.runOpeners.set(task, open);
      return () => {
        if (state.runOpeners.get(task) === open) state.runOpeners.delete(task);
      };
    },
  };
  const selectDocument = (docId: number | null) => {
    state.selectedDocumentId = docId;
    emit('documents');
  };
  const views: Array<[TabId, MountFn]> = [
    ['documents', (el, c) => mountDocuments(el, c, selectDocument)],
    ['rewrite', mountRewrite],
    ['translate', mountTranslate],
    ['dashboard', mountDashboard],
  ];
  for (const [id, mount] of views) {
    const el = h('div', { class: 'view', 'data-view': id, 'data-testid': `view-${id}` });
    viewArea.append(el);
    try {
      const cleanup = mount(el, ctx);
      if (cleanup) state.cleanups.push(cleanup);
    } catch (e) {
      // One broken view must not take the whole window down.
      el.append(h('p', { class: 'error' }, `This view failed to load: ${errorMessage(e)}`));
    }
  }
  showTab(state.tab);
}

async function onCreateProject() {
  const name = newProjectName.value.trim();
  if (!name) {
    notify('Type a name for the new project.', 'error');
    return;
  }
  try {
    const p = await createProject(name);
    newProjectName.value = '';
    await refreshProjects();
    state.tab = 'documents';
    await openProject(p.id);
    notify(`Created project “${p.name}”.`);
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
}

async function onDeleteProject(p: Project) {
  const what = `${plural(p.documents, 'document')} and ${plural(p.runs, 'run')}`;
  if (!(await confirmDialog(`Delete the project “${p.name}” with its ${what}? This cannot be undone.`))) return;
  try {
    await deleteProject(p.id);
    const wasOpen = state.project?.id === p.id;
    await refreshProjects();
    if (wasOpen) await openProject(null);
    notify(`Deleted project “${p.name}”.`);
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
}

/** Start-up problems as banners: an app opened from a desktop menu has no terminal to print them to. */
function renderStartup(problems: StartupProblem[]) {
  clear(startupArea);
  for (const p of problems) {
    startupArea.append(
      h(
        'div',
        { class: `startup-problem ${p.level}`, role: p.level === 'error' ? 'alert' : 'status', 'data-testid': 'startup-problem', 'data-level': p.level },
        h('strong', {}, p.level === 'error' ? 'Registro cannot work: ' : p.level === 'warning' ? 'Warning: ' : 'Note: '),
        p.message,
        p.fix ? h('div', { class: 'small' }, p.fix) : null,
      ),
    );
  }
}

async function start() {
  const root = document.getElementById('app')!;
  layout(root);
  renderTabs();
  let problems: StartupProblem[];
  try {
    problems = await startupStatus();
  } catch (e) {
    problems = [{ level: 'error', message: errorMessage(e), fix: '' }];
  }
  renderStartup(problems);
  try {
    const info = await appInfo();
    dbLabel.textContent = `Registro ${info.version} · ${info.db_path}`;
    state.lastProjectKey = `registro.project:${info.db_path}`;
    if (problems.some((p) => p.level === 'error')) {
      // Without a database nothing below can load: keep the banner, disable what would only fail again.
      for (const el of root.querySelectorAll<HTMLInputElement | HTMLButtonElement>('.new-project input, .new-project button')) el.disabled = true;
      document.body.dataset.ready = '1';
      return;
    }
    // The forms start from core's defaults: read before any view mounts.
    await loadDefaults();
    await refreshProjects();
    const last = Number(localStorage.getItem(state.lastProjectKey));
    await openProject(state.projects.some((p) => p.id === last) ? last : null);
    // A first start (no default model on disk) opens on the setup card, which downloads it.
    await showSetupIfNeeded(setupArea, () => void refreshStartup());
    // After the card, so the opened file's segments are scrolled into view in the final layout.
    await openStartupFile();
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
  document.body.dataset.ready = '1';
}

/** Re-checks the start-up problems after a model changed on disk (a downloaded default model clears its banner). */
async function refreshStartup() {
  try {
    renderStartup(await startupStatus());
  } catch (e) {
    notify(errorMessage(e), 'error');
  }
}
window.addEventListener(MODELS_CHANGED, () => void refreshStartup());

/** The project a file opened with Registro goes into when no project is open. */
const OPENED_FILES_PROJECT = 'Opened files';

/** "Open with Registro" (src-tauri open_with.rs): the file the app was started with comes as an import token, is
 * imported into the open project (or the "Opened files" project when none is) exactly as if picked in the Import
 * dialog, and is shown in the Translate view as the source document. */
async function openStartupFile() {
  const file = await startupFile();
  if (!file) return;
  try {
    if (!state.project) {
      const id = state.projects.find((p) => p.name === OPENED_FILES_PROJECT)?.id ?? (await createProject(OPENED_FILES_PROJECT)).id;
      await refreshProjects();
      await openProject(id);
    }
    const projectId = state.project!.id;
    notify(`Opening ${file.name}…`);
    const summary = await importDocument(projectId, file, { format: null, source_lang: null, name: null }, () => {}).result;
    await changed('documents');
    const doc = summary.documents[0];
    if (doc && state.project?.id === projectId) {
      state.selectedDocumentId = doc.id;
      showTab('translate');
      // The Translate view picks it as its source (views/translate/view.ts listens for this).
      viewArea.querySelector('[data-view="translate"]')?.dispatchEvent(new CustomEvent('registro:open-document', { detail: doc.id }));
    }
    notify(`Opened ${file.name}: ${plural(summary.segments, 'segment')}, in the project “${state.project?.name ?? ''}”`);
  } catch (e) {
    notify(`${file.name}: ${errorMessage(e)}`, 'error');
  }
}

/** Files dropped onto the window reach the page as import tokens the backend issued for them (src-tauri lib.rs):
 * each is imported into the open project exactly as if picked in the Import dialog. */
async function onFilesDropped(files: ChosenFile[]) {
  dropHint.hidden = true;
  if (!files.length) return;
  if (!state.project) {
    notify('Open or create a project first, then drop the file onto the window to import it.', 'error');
    return;
  }
  const projectId = state.project.id;
  for (const f of files) {
    notify(`Importing ${f.name}…`);
    try {
      const summary = await importDocument(projectId, f, { format: null, source_lang: null, name: null }, () => {}).result;
      await changed('documents');
      if (summary.documents[0] && state.project?.id === projectId) {
        state.selectedDocumentId = summary.documents[0].id;
        emit('documents');
      }
      notify(`Imported ${f.name}: ${plural(summary.documents.length, 'document')}, ${plural(summary.segments, 'segment')}`);
    } catch (e) {
      notify(`${f.name}: ${errorMessage(e)}`, 'error');
    }
  }
}

const dropHint = h('div', { class: 'drop-hint', 'data-testid': 'drop-hint', hidden: true }, 'Drop to import into the open project');
document.body.append(dropHint);
void listen<ChosenFile[]>('registro://files-dropped', (e) => void onFilesDropped(e.payload));
void listen('tauri://drag-enter', () => {
  dropHint.textContent = state.project ? `Drop to import into ${state.project.name}` : 'Open a project first to import by dropping';
  dropHint.hidden = false;
});
void listen('tauri://drag-leave', () => {
  dropHint.hidden = true;
});

void start();
