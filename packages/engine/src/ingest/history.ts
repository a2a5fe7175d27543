import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DestHistory } from '../api/index.js';
import { DestDb } from './dest-db.js';
import { keptFrom, retentionOf } from './retention.js';
import { openDest, type DestFolder, type DestState } from './state.js';
import type { SeenLag } from '../api/index.js';
import type { Catalog } from '../catalog/index.js';
import { newestSeen } from '../catalog/subscribers.js';
import { underWay } from './status.js';
import { chunkCosts } from './undo-db.js';
import { wholeBytes } from './undo-store.js';

/**
 * The shipments applied to a destination, oldest first, from its state
 * folder (no key or catalog needed), with which of them rollback can undo
 * and return to, their pins, what their undo data costs on disk, and an
 * ingest or rollback under way or interrupted (reported, not finished:
 * history changes nothing).
 * With a catalog, how far behind the newest shipment of the dataset this
 * home saw on a drive DEST is.
 * @throws BrickpostError NOT_FOUND when DEST is not a brickpost destination.
 */
export async function history(destPath: string, catalog?: Catalog): Promise<DestHistory> {
  const { dest, folder, state } = await openDest(destPath);
  const r = retentionOf(state);
  const from = keptFrom(state.applied, r);
  const costs = undoCosts(folder, state);
  const shipments = [];
  for (const [i, a] of state.applied.entries()) {
    const undoable = i > 0 && i >= from && (await stat(folder.undo(a.shipment)).catch(() => null)) !== null;
    const whole = await wholeBytes(folder, a.shipment);
    shipments.push({
      shipmentId: a.shipment,
      seq: a.seq,
      parent: a.parent ?? null,
      label: a.label,
      appliedAt: a.appliedAt,
      files: a.files,
      bytes: a.bytes,
      bytesFromDrive: a.bytesFromDrive ?? null,
      undoable,
      kept: false,
      pins: r.pins.filter((p) => p.shipment === a.shipment).map((p) => p.name),
      undoBytes: (costs.byShipment.get(a.shipment) ?? 0) + whole,
    });
  }
  // A point is reachable when every shipment after it can be undone.
  for (let i = shipments.length - 1, ok = true; i >= 0; i--) {
    shipments[i]!.kept = ok;
    ok = ok && shipments[i]!.undoable;
  }
  const inProgress = await underWay(folder, folder.holder() !== null);
  const seen = catalog ? newestSeen(catalog, state.datasetId, state.publisher) : null;
  const held = state.applied[state.applied.length - 1]?.seq ?? 0;
  const newest: SeenLag | null = seen
    ? { newestSeq: seen.seq, newestShipment: seen.shipment, seenAt: seen.seenAt, behind: Math.max(0, seen.seq - held) }
    : null;
  return {
    dest,
    dataset: state.dataset,
    datasetId: state.datasetId,
    publisherKeyId: state.publisher,
    keepUndo: r.keepUndo,
    keepAll: r.keepAll,
    keepDays: r.keepDays,
    pins: r.pins.map((p) => ({ name: p.name, shipmentId: p.shipment, seq: p.seq, at: p.at })),
    undoBytes: costs.total + shipments.reduce((n, s) => n + s.undoBytes, 0) - [...costs.byShipment.values()].reduce((n, b) => n + b, 0),
    shipments,
    inProgress,
    newestSeen: newest,
  };
}

/** The chunk store's cost by shipment, from the journal (none when DEST has no journal yet). */
function undoCosts(folder: DestFolder, state: DestState): { byShipment: Map<string, number>; total: number } {
  if (!existsSync(join(folder.state, 'journal.sqlite'))) return { byShipment: new Map(), total: 0 };
  const db = new DestDb(folder.state);
  try {
    return chunkCosts(
      db,
      state.applied.map((a) => a.shipment),
    );
  } finally {
    db.db.close();
  }
}
