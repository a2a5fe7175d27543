import type { AppliedShipment, DestState, Pin } from './state.js';

/**
 * Which applied shipments keep their undo data. Rollback to a shipment S
 * needs the undo data of every shipment applied after S, so what is kept
 * is always a run of the last shipments: from the oldest one any rule
 * keeps, up to the last. The rules: the last `keepUndo` shipments (default
 * 3; `keepAll` for every one), those applied within `keepDays` days of
 * `now`, and every shipment after a pinned one (`brickpost pin`).
 */

/** How many applied shipments keep their undo area by default (rollback reaches back that far). */
export const UNDO_KEEP = 3;

/** The retention a state sets. */
export interface Retention {
  keepUndo: number;
  keepAll: boolean;
  keepDays: number | null;
  pins: Pin[];
}

export function retentionOf(state: DestState | null | undefined, keep?: number): Retention {
  return { keepUndo: keep ?? state?.keepUndo ?? UNDO_KEEP, keepAll: state?.keepAll === true, keepDays: state?.keepDays ?? null, pins: state?.pins ?? [] };
}

/** The fields of DestState that say what is kept (carried from one state to the next). */
export function retentionFields(r: Retention): Pick<DestState, 'keepUndo' | 'keepAll' | 'keepDays' | 'pins'> {
  return {
    keepUndo: r.keepUndo,
    ...(r.keepAll ? { keepAll: true } : {}),
    ...(r.keepDays !== null ? { keepDays: r.keepDays } : {}),
    ...(r.pins.length > 0 ? { pins: r.pins } : {}),
  };
}

/** The index in `applied` of the oldest shipment whose undo data is kept (applied.length: none). */
export function keptFrom(applied: AppliedShipment[], r: Retention, now = Date.now()): number {
  let from = applied.length;
  if (r.keepAll) from = 0;
  if (r.keepUndo > 0) from = Math.min(from, Math.max(0, applied.length - r.keepUndo));
  if (r.keepDays !== null) {
    const since = now - r.keepDays * 86_400_000;
    const i = applied.findIndex((a) => Date.parse(a.appliedAt) >= since);
    if (i >= 0) from = Math.min(from, i);
  }
  for (const p of r.pins) {
    const i = applied.findIndex((a) => a.seq > p.seq);
    if (i >= 0) from = Math.min(from, i);
  }
  return from;
}

/** The shipments whose undo data is kept. */
export function keptShipments(applied: AppliedShipment[], r: Retention, now = Date.now()): Set<string> {
  return new Set(applied.slice(keptFrom(applied, r, now)).map((a) => a.shipment));
}
