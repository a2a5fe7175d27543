import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { DestHistory } from '../api.js';
import { UNDO_KEEP } from './commit.js';
import { DestFolder } from './state.js';

/**
 * The shipments applied to a destination, oldest first, from its state
 * folder (no key or catalog needed), with which of them rollback can undo.
 * @throws BrickpostError NOT_FOUND when DEST is not a brickpost destination.
 */
export async function history(destPath: string): Promise<DestHistory> {
  const dest = resolve(destPath);
  if (!(await stat(dest).catch(() => null))?.isDirectory()) throw new BrickpostError('NOT_FOUND', `destination ${quote(destPath)} is not a folder`);
  const folder = new DestFolder(dest);
  const state = await folder.readState();
  if (!state) {
    throw new BrickpostError('NOT_FOUND', `${quote(destPath)} holds no brickpost state (nothing was ingested into it)`, { hint: "give the folder you passed to 'brickpost ingest'" });
  }
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
  return { dest, dataset: state.dataset, datasetId: state.datasetId, publisherKeyId: state.publisher, keepUndo: keep, shipments };
}
