/**
 * The words for an ingest or rollback under way or interrupted, the same in
 * every front end (CLI status and history, the desktop). No Node imports.
 */
import type { DestInProgress } from '../api/dest.js';

/**
 * What an ingest or rollback under way or interrupted means for someone
 * reading DEST, as lines: what it is, what DEST may hold meanwhile, and what
 * to do. The CLI (status, history) and the desktop show these words.
 */
export function inProgressLines(p: Omit<DestInProgress, 'lines'>, dest: string): string[] {
  const to = `shipment ${p.seq !== null ? `#${p.seq} ` : ''}${p.shipmentId}`;
  const what = p.kind === 'ingest' ? `the ingest of ${to}` : `the rollback to ${to}`;
  const phase = p.phase ? ` (at its ${p.phase} phase)` : '';
  return [
    p.running ? `${what} is under way${phase}` : `${what} was interrupted${phase}`,
    `until it finishes, ${dest} may hold some entries of ${p.from ? `#${p.from.seq}` : 'the tree it had'} and some of ${p.seq !== null ? `#${p.seq}` : 'the new tree'}, each entry whole`,
    p.running ? 'wait for it to finish' : `to finish it: brickpost resume ${dest}`,
  ];
}
