import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { DestHistory } from '../api.js';
import { DestFolder } from './state.js';

/**
 * The shipments applied to a destination, oldest first, from its state
 * folder (no key or catalog needed).
 * @throws BrickpostError NOT_FOUND when DEST is not a brickpost destination.
 */
export async function history(destPath: string): Promise<DestHistory> {
  const dest = resolve(destPath);
  if (!(await stat(dest).catch(() => null))?.isDirectory()) throw new BrickpostError('NOT_FOUND', `destination ${quote(destPath)} is not a folder`);
  const state = await new DestFolder(dest).readState();
  if (!state) {
    throw new BrickpostError('NOT_FOUND', `${quote(destPath)} holds no brickpost state (nothing was ingested into it)`, { hint: "give the folder you passed to 'brickpost ingest'" });
  }
  return {
    dest,
    dataset: state.dataset,
    datasetId: state.datasetId,
    publisherKeyId: state.publisher,
    shipments: state.applied.map((a) => ({ shipmentId: a.shipment, seq: a.seq, label: a.label, appliedAt: a.appliedAt, files: a.files, bytes: a.bytes })),
  };
}
