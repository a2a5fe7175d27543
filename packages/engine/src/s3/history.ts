import type { DestHistory, S3Options } from '../api/index.js';
import { BrickpostError } from '@brickpost/manifest';
import { s3Client } from './client.js';
import { Objects } from './objects.js';
import { s3InProgress } from './rollback.js';
import { keptUndo, STATE, type S3State } from './state.js';
import { reachable } from './undo.js';
import { parseS3Url } from './url.js';

/**
 * The shipments applied to an object storage destination, oldest first,
 * from PREFIX/.brickpost/state.json (no key needed; nothing changes): which
 * keep their undo objects (undoable), which rollback can return to (kept),
 * and what their undo objects take. A commit or rollback under way or
 * interrupted (commit.json, rollback.json) is reported in progress.
 * @throws BrickpostError NOT_FOUND (no bucket, or no brickpost state under the prefix), PERMISSION, IO
 */
export async function s3History(dest: string, opts: S3Options = {}): Promise<DestHistory> {
  const place = parseS3Url(dest);
  const o = new Objects(s3Client(opts), place);
  try {
    const state = await o.getJson<S3State>(STATE);
    if (!state)
      throw new BrickpostError('NOT_FOUND', `${place.url} is not a brickpost destination: it has no .brickpost/state.json`, {
        hint: `ingest a shipment into it first: brickpost ingest DRIVE ${place.url}`,
      });
    const kept = new Set(reachable(state).map((h) => h.shipment));
    const keep = keptUndo(state);
    return {
      dest: place.url,
      dataset: state.dataset,
      datasetId: state.datasetId,
      publisherKeyId: state.publisher,
      keepUndo: Number.isFinite(keep) ? keep : (state.keepUndo ?? 0),
      keepAll: state.keepAll === true,
      keepDays: null,
      pins: [],
      undoBytes: state.history.reduce((n, h) => n + (h.undo?.bytes ?? 0), 0),
      shipments: state.history.map((h, i) => ({
        shipmentId: h.shipment,
        seq: h.seq,
        parent: i > 0 ? state.history[i - 1]!.shipment : null,
        label: h.label,
        appliedAt: h.applied,
        files: h.files ?? 0,
        bytes: h.bytes ?? 0,
        bytesFromDrive: h.bytesFromDrive ?? null,
        undoable: h.undo !== undefined && i > 0,
        kept: i === state.history.length - 1 || kept.has(h.shipment),
        pins: [],
        undoBytes: h.undo?.bytes ?? 0,
      })),
      inProgress: await s3InProgress(o, state),
      newestSeen: null,
    };
  } finally {
    o.client.destroy();
  }
}
