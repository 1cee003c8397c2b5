// How the Translate view shows a translation: inline placeholders as chips, register markers highlighted in their
// register's colour (red where they go against the requested one), the detected label as a badge, and the clipboard.

import type { Register } from '../../api';
import { h } from '../../dom';
import type { Analysis, SegmentStatus, Verdict } from './api';

/** A segment's review status in words. */
export const STATUS_LABELS: Record<SegmentStatus, string> = { draft: 'draft', translated: 'translated', reviewed: 'reviewed', approved: 'approved' };

/** Copies `text`, also where the async clipboard is not offered to the page. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // WebKitGTK may refuse the async clipboard outside a user-initiated secure context: fall back to a selection.
  }
  const area = h('textarea', { class: 'offscreen' }) as HTMLTextAreaElement;
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the clipboard is not available');
}

/** An inline placeholder a translator's file puts in a segment for its markup (registro_qa::tags): `<1>`, `</1>`, `<2/>`. */
const TAG = /<(?:\/\d{1,6}|\d{1,6}\/?)>/g;

/** What a placeholder stands for, in words. */
function tagTitle(token: string): string {
  const n = token.replace(/[^0-9]/g, '');
  return token.startsWith('</') ? `end of formatting ${n}` : token.endsWith('/>') ? `inline element ${n}` : `start of formatting ${n}`;
}

/**
 * `text` as nodes with each inline placeholder a chip that cannot be edited inside (it can be moved or deleted whole;
 * an edit that drops or breaks one is refused when it is stored). The chip's text is the placeholder itself, so the
 * cell's text is the segment's text.
 */
export function withTags(text: string): Node[] {
  const out: Node[] = [];
  let pos = 0;
  for (const m of text.matchAll(TAG)) {
    const at = m.index ?? 0;
    if (at > pos) out.push(document.createTextNode(text.slice(pos, at)));
    out.push(h('span', { class: `tr-tag${m[0].startsWith('</') ? ' close' : m[0].endsWith('/>') ? ' empty' : ' open'}`, contenteditable: 'false', 'data-testid': 'translate-tag', title: tagTitle(m[0]), 'aria-label': tagTitle(m[0]) }, m[0]));
    pos = at + m[0].length;
  }
  if (pos < text.length) out.push(document.createTextNode(text.slice(pos)));
  return out;
}

/** The text with the analysis markers wrapped in <mark>, coloured by register; markers against `requested` red;
 * inline placeholders as chips. */
export function highlight(text: string, analysis: Analysis, requested: Register): Node[] {
  return highlightMarkers(text, analysis, requested).flatMap((n) => {
    if (n instanceof Text) return withTags(n.data);
    if (n instanceof HTMLElement && TAG.test(n.textContent ?? '')) {
      TAG.lastIndex = 0;
      n.replaceChildren(...withTags(n.textContent ?? ''));
    }
    TAG.lastIndex = 0;
    return [n];
  });
}

function highlightMarkers(text: string, analysis: Analysis, requested: Register): Node[] {
  const chars = Array.from(text);
  const wantFormal = requested !== 'informal';
  const out: Node[] = [];
  let pos = 0;
  const markers = [...analysis.markers].sort((a, b) => a.char_start - b.char_start);
  for (const m of markers) {
    if (m.char_start < pos || m.char_end > chars.length) continue;
    if (m.char_start > pos) out.push(document.createTextNode(chars.slice(pos, m.char_start).join('')));
    const wrong = (m.register !== 'informal') !== wantFormal;
    const cls = `tr-m ${wrong ? 'wrong' : m.register}${m.strong ? '' : ' weak'}`;
    out.push(
      h('mark', { class: cls, 'data-testid': wrong ? 'translate-marker-wrong' : 'translate-marker', title: `${m.register} ${m.kind}${m.strong ? '' : ' (ambiguous)'}` }, chars.slice(m.char_start, m.char_end).join('')),
    );
    pos = m.char_end;
  }
  if (pos < chars.length) out.push(document.createTextNode(chars.slice(pos).join('')));
  return out;
}

export function labelBadge(label: string, verdict: Verdict): HTMLElement {
  return h('span', { class: `badge ${label.toLowerCase()}`, 'data-testid': 'translate-badge', 'data-verdict': verdict }, label);
}
