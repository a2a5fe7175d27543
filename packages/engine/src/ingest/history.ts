import { stat } from 'node:fs/promises';
import type { DestHistory } from '../api.js';
import type { SeenLag } from '../api-subscribers.js';
import type { Catalog } from '../catalog/index.js';
import { newestSeen } from '../catalog/subscribers.js';
import { UNDO_KEEP } from './commit.js';
import { openDest } from './state.js';
import { underWay } from './status.js';

/**
 * The shipments applied to a destination, oldest first, from its state
 * folder (no key or catalog needed), with which of them rollback can undo,
 * and an ingest or rollback under way or interrupted (reported, not
 * finished: history changes nothing). With a catalog, how far behind the
 * newest shipment of the dataset this home saw on a drive DEST is.
 * @throws BrickpostError NOT_FOUND when DEST is not a brickpost destination.
 */
export async function history(destPath: string, catalog?: Catalog): Promise<DestHistory> {
  const { dest, folder, state } = await openDest(destPath);
  const keep = state.keepUndo ?? UNDO_KEEP;
  const n = state.applied.length;
  const shipments = [];
  for (const [i, a] of state.applied.entries()) {
    const undoable = i > 0 && i >= n - keep && (await stat(folder.undo(a.shipment)).catch(() => null)) !== null;
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
    });
  }
  const inProgress = await underWay(folder, folder.holder() !== null);
  const seen = catalog ? newestSeen(catalog, state.datasetId, state.publisher) : null;
  const held = state.applied[n - 1]?.seq ?? 0;
  const newest: SeenLag | null = seen ? { newestSeq: seen.seq, newestShipment: seen.shipment, seenAt: seen.seenAt, behind: Math.max(0, seen.seq - held) } : null;
  return { dest, dataset: state.dataset, datasetId: state.datasetId, publisherKeyId: state.publisher, keepUndo: keep, shipments, inProgress, newestSeen: newest };
}
