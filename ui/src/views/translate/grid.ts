// The review grid's rows, virtualised: a document of 10,000 segments keeps only the rows on screen (plus a margin)
// in the DOM, with one spacer row above and one below standing in for the rest. Rows have different heights (long
// sources wrap, flags and candidates add lines), so each row's height is measured once it has been shown and an
// estimate (the mean of those measured) stands in for the others; the first row on screen stays where it is when
// measuring moves the rows above it. A row that stays in the window keeps its element, so the caret in an edited
// cell survives scrolling, filtering and re-renders.

import { h } from '../../dom';

/** Rows kept beyond each edge of the visible area, so a short scroll or ↑/↓ finds its row already there. */
const MARGIN = 8;
/** A document this short is shown whole, as before virtualisation (and whether or not the grid is laid out yet). */
const WHOLE = 50;
/** Height of a row not measured yet until some are (px): a one-line source with its badges. */
const FIRST_ESTIMATE = 84;

export interface GridOptions {
  /** The grid's own scrolling box (the table inside it). */
  scroller: HTMLElement;
  /** The rows' tbody. */
  body: HTMLTableSectionElement;
  /** How many columns a row has (the spacers span them all). */
  columns: () => number;
  /** A new row element for segment `index`. */
  renderRow: (index: number) => HTMLElement;
}

export class VirtualGrid {
  private readonly o: GridOptions;
  /** The segment indices shown, in order (the filter's result). */
  private order: number[] = [];
  /** Position in `order` of each segment index shown. */
  private position = new Map<number, number>();
  /** Measured height by segment index. */
  private heights = new Map<number, number>();
  private measuredSum = 0;
  /** The height assumed for rows not measured yet: the mean of the first rows measured, then kept, so that rows
   * measured later do not move every row below them. */
  private assumed = 0;
  /** `tops[k]`: top of the k-th shown row from the top of the first; `tops[order.length]` is the total. */
  private tops = new Float64Array(1);
  private topsStale = true;
  /** The rows in the DOM, by segment index. */
  private rendered = new Map<number, HTMLElement>();
  private readonly topSpacer: HTMLElement;
  private readonly bottomSpacer: HTMLElement;
  private frame = 0;

  constructor(o: GridOptions) {
    this.o = o;
    const spacer = (testid: string) => h('tr', { class: 'tr-spacer', 'aria-hidden': 'true', 'data-testid': testid }, h('td', {}));
    this.topSpacer = spacer('grid-spacer-top');
    this.bottomSpacer = spacer('grid-spacer-bottom');
    o.body.append(this.topSpacer, this.bottomSpacer);
    o.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    // A grid mounted in a hidden tab has no size yet: it fills in once it is shown or resized.
    new ResizeObserver(() => this.schedule()).observe(o.scroller);
  }

  /** Segments shown (after the filter). */
  get count(): number {
    return this.order.length;
  }

  /** Rows now in the DOM. */
  get renderedCount(): number {
    return this.rendered.size;
  }

  /** Shows `order` (segment indices, ascending), forgetting every row and height: a new run or new columns. */
  reset(order: number[]): void {
    for (const row of this.rendered.values()) row.remove();
    this.rendered.clear();
    this.heights.clear();
    this.measuredSum = 0;
    this.assumed = 0;
    this.o.scroller.scrollTop = 0;
    this.setOrder(order);
  }

  /** Shows `order` (segment indices, ascending); rows still shown keep their elements and heights. */
  setOrder(order: number[], toTop = false): void {
    this.order = order;
    this.position = new Map(order.map((index, k) => [index, k]));
    this.topsStale = true;
    if (toTop) this.o.scroller.scrollTop = 0;
    this.render();
  }

  /** The row of segment `index` if it is in the DOM. */
  row(index: number): HTMLElement | undefined {
    return this.rendered.get(index);
  }

  /** Replaces segment `index`'s row (if shown) with a fresh one from `renderRow`. */
  redraw(index: number): void {
    const old = this.rendered.get(index);
    if (!old) return;
    const row = this.o.renderRow(index);
    old.replaceWith(row);
    this.rendered.set(index, row);
    this.render();
  }

  /** Segment index `step` rows away from `index` among those shown, or null past either end. */
  neighbour(index: number, step: number): number | null {
    const k = this.position.get(index);
    if (k === undefined) return null;
    return this.order[k + step] ?? null;
  }

  /** Scrolls segment `index`'s row into view (`nearest`: as little as needed; `center`: in the middle) and returns
   * it, or null when the filter hides it. */
  reveal(index: number, block: 'nearest' | 'center' = 'center'): HTMLElement | null {
    const k = this.position.get(index);
    if (k === undefined) return null;
    const s = this.o.scroller;
    let row = this.rendered.get(index);
    if (!row) {
      // Jump close by the estimates, lay the rows out there, then let the browser place the measured row exactly.
      this.ensureTops();
      s.scrollTop = Math.max(0, this.base() + this.tops[k] - s.clientHeight / 3);
      this.render();
      row = this.rendered.get(index);
    }
    if (!row) return null;
    // Scrolled inside the grid's own box only: scrollIntoView would scroll the page too and re-lay it all out.
    const box = s.getBoundingClientRect();
    const head = this.o.body.parentElement?.querySelector('thead')?.getBoundingClientRect().height ?? 0;
    const r = row.getBoundingClientRect();
    const top = r.top - box.top - head;
    const room = s.clientHeight - head;
    if (block === 'center') s.scrollTop += top - Math.max(0, (room - r.height) / 2);
    else if (top < 0) s.scrollTop += top;
    else if (top + r.height > room) s.scrollTop += top + r.height - room;
    // Rows that came into view with the last scroll are measured now, not on the next frame.
    this.render();
    return this.rendered.get(index) ?? null;
  }

  /** Re-lays the rows out now (after a row's content changed height, say). */
  update(): void {
    this.render();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private estimate(): number {
    if (!this.assumed && this.heights.size) this.assumed = this.measuredSum / this.heights.size;
    return this.assumed || FIRST_ESTIMATE;
  }

  private ensureTops(): void {
    if (!this.topsStale && this.tops.length === this.order.length + 1) return;
    const est = this.estimate();
    const tops = new Float64Array(this.order.length + 1);
    for (let k = 0; k < this.order.length; k++) tops[k + 1] = tops[k] + (this.heights.get(this.order[k]) ?? est);
    this.tops = tops;
    this.topsStale = false;
  }

  /** The tbody's top in the scroller's content (the sticky header above it). */
  private base(): number {
    const s = this.o.scroller;
    return this.o.body.getBoundingClientRect().top - s.getBoundingClientRect().top + s.scrollTop;
  }

  /** First k with tops[k + 1] > y: the shown row at height y. */
  private at(y: number): number {
    let lo = 0;
    let hi = this.order.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tops[mid + 1] > y) hi = mid;
      else lo = mid + 1;
    }
    return Math.max(0, lo);
  }

  private render(): void {
    this.ensureTops();
    const s = this.o.scroller;
    const n = this.order.length;
    const y0 = Math.max(0, s.scrollTop - this.base());
    let first = 0;
    let last = 0;
    let anchor = -1;
    let anchorOffset = 0;
    if (n) {
      anchor = this.at(y0);
      anchorOffset = this.tops[anchor] - y0;
      first = Math.max(0, anchor - MARGIN);
      last = Math.min(n, this.at(y0 + Math.max(s.clientHeight, 1)) + 1 + MARGIN);
      if (n <= WHOLE) {
        first = 0;
        last = n;
      }
    }
    const want = this.order.slice(first, last);
    const wanted = new Set(want);
    for (const [index, row] of this.rendered) {
      if (!wanted.has(index)) {
        row.remove();
        this.rendered.delete(index);
      }
    }
    // The rows kept are already in order: new ones go in around them, never moving a kept one (that would take the
    // caret out of a cell being edited).
    let next: ChildNode = this.topSpacer.nextSibling!;
    for (const index of want) {
      const have = this.rendered.get(index);
      if (have) {
        next = have.nextSibling!;
        continue;
      }
      const row = this.o.renderRow(index);
      this.o.body.insertBefore(row, next);
      this.rendered.set(index, row);
    }
    // Measure what is shown; a height that changed moves the rows below it.
    let changed = false;
    for (const index of want) {
      const height = this.rendered.get(index)!.offsetHeight;
      if (!height) continue;
      const before = this.heights.get(index);
      if (before === height) continue;
      this.measuredSum += height - (before ?? 0);
      this.heights.set(index, height);
      changed = true;
    }
    if (changed) {
      this.topsStale = true;
      this.ensureTops();
    }
    const cols = String(this.o.columns());
    const spacerHeight = (spacer: HTMLElement, px: number) => {
      const td = spacer.firstElementChild as HTMLTableCellElement;
      td.colSpan = Number(cols);
      td.style.height = `${px}px`;
      spacer.hidden = px <= 0;
    };
    spacerHeight(this.topSpacer, this.tops[first]);
    spacerHeight(this.bottomSpacer, this.tops[n] - this.tops[last]);
    // A long document's box has a fixed height and contains its layout: rows coming and going then re-lay out the
    // grid alone, not the whole view (a short one stays as tall as its rows).
    s.classList.toggle('long', n > WHOLE);
    s.dataset.shown = String(n);
    s.dataset.rendered = String(want.length);
    // Keep the row that was at the top of the view where it was, whatever the measuring did above it.
    if (changed && anchor >= 0 && y0 > 0) {
      const target = Math.min(this.base() + this.tops[anchor] - anchorOffset, s.scrollHeight - s.clientHeight);
      if (Math.abs(target - s.scrollTop) >= 1) s.scrollTop = target;
    }
  }
}
