/**
 * What a shipment recorded but ingest or extract did not create or apply
 * (IngestSummary.notApplied, ExtractSummary.notApplied): counts by reason,
 * as plain sentences. The reasons are the engine's words; the option in
 * parentheses is the brickpost command's way to apply them.
 */
import { h } from './dom.js';

/** "Symbolic links pointing outside the tree (--outside-links): 2." */
export function notAppliedLines(notApplied: Record<string, number>): string[] {
  return Object.entries(notApplied)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${why.charAt(0).toUpperCase()}${why.slice(1)}: ${n.toLocaleString()}.`);
}

/**
 * A note of what was recorded but not applied, or null when everything was;
 * `list`: the file that names each entry, when there is one.
 */
export function notAppliedNote(notApplied: Record<string, number>, list: string | null): HTMLElement | null {
  const lines = notAppliedLines(notApplied);
  if (lines.length === 0) return null;
  return h(
    'div',
    { class: 'banner warn', 'data-testid': 'not-applied' },
    h('p', { class: 'banner-title' }, 'Recorded on the drive but not applied here'),
    h(
      'p',
      {},
      'The shipment holds these, and they were left as they are. The brickpost command applies them with the option in parentheses, where this computer allows it.',
    ),
    h('ul', {}, ...lines.map((l) => h('li', {}, l))),
    list ? h('p', {}, 'Each entry is listed in ', h('code', { 'data-testid': 'not-applied-list' }, list), '.') : null,
  );
}
