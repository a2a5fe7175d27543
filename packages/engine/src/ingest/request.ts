import { dirname, join, resolve } from 'node:path';
import type { Context } from '../context.js';
import { makeFolders } from '../io/folders.js';
import type { BrickpostError, ShipmentRecord } from '@brickpost/manifest';
import type { OpenedShipment } from '../drive/open.js';
import { SignatureFileWriter } from '../sigfile/writer.js';
import { missingError, type Missing, type OldFile } from './apply-plan.js';
import type { DestFolder, DestState } from './state.js';

/**
 * Writes a request file (FORMAT.md §15, kind `request`, keyed ids): the
 * files of the destination that still hold what its tree says, and what a
 * refused shipment found missing. The publisher packs `--against` it to
 * build a repair shipment. Signed with this home's key.
 */
export async function writeRequest(
  ctx: Context,
  file: string,
  h: ShipmentRecord,
  state: { shipment: string; seq: number } | null,
  missing: Missing[],
  tree: AsyncIterable<OldFile>,
): Promise<void> {
  const me = ctx.identity();
  const w = await SignatureFileWriter.create(file, {
    kind: 'request',
    ids: 'hmac',
    dataset: h.dataset,
    datasetId: h.datasetId,
    publisher: h.publisher,
    state,
    subscriber: me.keyId,
    recipient: me.recipient,
  });
  try {
    for await (const f of tree) {
      if (f.ok)
        await w.addFile(
          f.path,
          f.size,
          f.chunks.map((c) => [c.id, c.len] as [Buffer, number]),
        );
    }
    for (const m of missing) await w.addMissing(m.path, m.reason);
    await w.close(me.signingKey);
  } catch (e) {
    await w.abort();
    throw e;
  }
}

/** Writes a request file naming what DEST holds and lacks, and returns the error refusing the shipment. */
export async function refuse(
  ctx: Context,
  folder: DestFolder,
  s: OpenedShipment,
  h: ShipmentRecord,
  state: DestState | null,
  missing: Missing[],
  requestOut: string | undefined,
  oldTree: () => AsyncIterable<OldFile>,
): Promise<BrickpostError> {
  const file = resolve(requestOut ?? join(folder.state, 'requests', `${s.id}.bpsig`));
  try {
    await makeFolders(dirname(file), 0o700);
    const cur = state?.applied[state.applied.length - 1];
    await writeRequest(ctx, file, h, cur ? { shipment: cur.shipment, seq: cur.seq } : null, missing, oldTree());
  } catch (e) {
    e;
    return missingError(missing, null);
  }
  return missingError(missing, file);
}
