// The reviewer's explicit override: signing off a segment whose flag is still open, or exporting a run whose quality
// check found errors. The dialog says what is overridden and asks why; the reason is stored with the user's name and
// the time (registro_store::ReviewOverride) and shown in the grid, the QA panel and `registro review show`.

import { h } from '../../dom';

/** Asks for the reason of an override; resolves the reason, or null when the user cancels. */
export function askOverrideReason(message: string, confirmLabel: string): Promise<string | null> {
  return new Promise((resolve) => {
    const reason = h('textarea', { class: 'input', rows: 2, 'data-testid': 'override-reason', placeholder: 'Why (stored with your name and the time)', 'aria-label': 'reason for the override' }) as HTMLTextAreaElement;
    const ok = h('button', { class: 'btn danger', 'data-testid': 'override-ok', disabled: true }, confirmLabel) as HTMLButtonElement;
    const close = (answer: string | null) => {
      overlay.remove();
      document.removeEventListener('keydown', onKey);
      resolve(answer);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(null);
    };
    reason.addEventListener('input', () => {
      ok.disabled = !reason.value.trim();
    });
    ok.addEventListener('click', () => {
      if (reason.value.trim()) close(reason.value.trim());
    });
    const overlay = h(
      'div',
      { class: 'overlay', 'data-testid': 'override-dialog' },
      h(
        'div',
        { class: 'dialog', role: 'alertdialog', 'aria-modal': 'true' },
        h('p', { class: 'dialog-message', 'data-testid': 'override-message' }, message),
        reason,
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { class: 'btn', 'data-testid': 'override-cancel', onclick: () => close(null) }, 'Cancel'),
          ok,
        ),
      ),
    );
    document.addEventListener('keydown', onKey);
    document.body.append(overlay);
    reason.focus();
  });
}
