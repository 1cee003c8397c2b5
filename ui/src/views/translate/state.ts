// The run the Translate view's review grid shows: its segments (streamed while it translates, then as stored), each
// one's review status, translation-memory match and flag override, what Export writes, and the other register's
// run of a contrastive pair. The view (view.ts) and each row (row.ts) read and change it.

import type { ContrastRun, ReviewOverride, ReviewRow, ReviewRun, SegmentOut, SegmentStatus, TmMatch } from './api';

export class OpenRun {
  /** The stored run, once there is one (`null` while a new translation streams in). */
  runId: number | null = null;
  /** Its target language (the code), for the checks of an edit. */
  lang = '';
  segments: SegmentOut[] = [];
  /** The same segments by index. */
  byIndex = new Map<number, SegmentOut>();
  /** Review status by segment index (a segment just translated is `translated`). */
  statuses = new Map<number, SegmentStatus>();
  /** The project's best approved translation of a similar source, by segment index (a fuzzy match ≥ 75%). */
  tmMatches = new Map<number, TmMatch>();
  /** The reviewer's override of a segment's open flag, by segment index (only while the text and flag are the same). */
  flagOverrides = new Map<number, ReviewOverride>();
  exportInfo: Pick<ReviewRun, 'export_format' | 'export_name'> | null = null;
  /** The other register's run of a contrastive translation, shown as a second target column. */
  contrast: ContrastRun | null = null;
  /** The run's document can be resegmented. */
  hasDocument = false;
  /** The grid shows the first rows of a run whose other rows are still loading. */
  loadingRest = false;

  /** Forgets every row (a new translation starts, or another run opens). */
  clear(): void {
    this.segments = [];
    this.byIndex = new Map();
    this.statuses = new Map();
    this.tmMatches = new Map();
    this.flagOverrides = new Map();
    this.contrast = null;
  }

  /** Adds the rows not shown yet (a row already there keeps its data, which may have changed since). */
  addRows(rows: ReviewRow[]): void {
    for (const row of rows) {
      const i = row.segment.index;
      if (this.byIndex.has(i)) continue;
      this.segments.push(row.segment);
      this.byIndex.set(i, row.segment);
      this.statuses.set(i, row.status);
      if (row.tm) this.tmMatches.set(i, row.tm);
      if (row.flag_override) this.flagOverrides.set(i, row.flag_override);
    }
  }

  /** A segment just translated takes its row's place, in document order whatever order segments come in. */
  put(seg: SegmentOut): void {
    const k = this.segments.findIndex((x) => x.index === seg.index);
    if (k >= 0) this.segments[k] = seg;
    else {
      this.segments.push(seg);
      this.segments.sort((a, b) => a.index - b.index);
    }
    this.byIndex.set(seg.index, seg);
  }

  /** A segment the run never produced (cancelled or failed before it): no text, no candidates, never edited. */
  untranslated(seg: SegmentOut): boolean {
    return !seg.text.trim() && seg.candidates.length === 0 && this.statuses.get(seg.index) === 'draft';
  }
}
