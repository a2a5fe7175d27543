import type { DestHistory, S3Options } from '../api/index.js';
import { BrickpostError } from '@brickpost/manifest';
import { s3Client } from './client.js';
import { Objects } from './objects.js';
import { COMMIT, STATE, type S3Commit, type S3State } from './state.js';
import { parseS3Url } from './url.js';

/**
 * The shipments applied to an object storage destination, oldest first,
 * from PREFIX/.brickpost/state.json (no key needed; nothing changes). None
 * is undoable: rollback works on folder destinations only. A commit under
 * way or interrupted (commit.json) is reported as an ingest in progress.
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
    const commit = await o.getJson<S3Commit>(COMMIT);
    const from = { shipmentId: state.shipment, seq: state.seq };
    return {
      dest: place.url,
      dataset: state.dataset,
      datasetId: state.datasetId,
      publisherKeyId: state.publisher,
      keepUndo: 0,
      keepAll: false,
      keepDays: null,
      pins: [],
      undoBytes: 0,
      shipments: state.history.map((h, i) => ({
        shipmentId: h.shipment,
        seq: h.seq,
        parent: i > 0 ? state.history[i - 1]!.shipment : null,
        label: h.label,
        appliedAt: h.applied,
        files: h.files ?? 0,
        bytes: h.bytes ?? 0,
        bytesFromDrive: h.bytesFromDrive ?? null,
        undoable: false,
        // Rollback works on folder destinations only: no point of a bucket's history is kept for it.
        kept: i === state.history.length - 1,
        pins: [],
        undoBytes: 0,
      })),
      inProgress: commit
        ? {
            kind: 'ingest',
            shipmentId: commit.shipment,
            seq: commit.state.seq,
            from,
            started: null,
            phase: 'install',
            running: false,
            lines: [
              `an ingest of shipment ${commit.shipment} into ${place.url} passed its commit point and is not finished: objects under the prefix may be old or new`,
              `the next ingest into ${place.url} finishes it first: brickpost ingest DRIVE ${place.url}`,
            ],
          }
        : null,
      newestSeen: null,
    };
  } finally {
    o.client.destroy();
  }
}
