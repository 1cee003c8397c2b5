// Tiny DOM helpers shared by the shell and the views (no framework: the UI is lists, forms and tables).

type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;
type Child = Node | string | number | null | undefined | false;

/**
 * `h('button', { class: 'btn', 'data-testid': 'save', onclick: save }, 'Save')`. Attributes starting with `on`
 * and given a function become event listeners; `false`/`null`/`undefined` attributes and children are skipped.
 * Text is always inserted as text, never parsed as HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') {
      el.addEventListener(key.replace(/^on/, ''), value as EventListener);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, ...children);
  return el;
}

/**
 * A form `<select>` of `[value, label]` options: `select({ 'data-testid': 'dash-test' }, [['bootstrap', 'paired
 * bootstrap'], …])`. It has the `input` class unless `attrs` gives another.
 */
export function select(attrs: Attrs, options: readonly (readonly [string, string])[]): HTMLSelectElement {
  return h('select', { class: 'input', ...attrs }, ...options.map(([value, label]) => h('option', { value }, label)));
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

/** Removes every child of `el`. */
export function clear(el: Element): void {
  el.replaceChildren();
}

/** `2026-11-22T06:15:00.123Z` → `2026-11-22 06:15` (UTC, as stored). */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) : '';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
