import type { Context } from '../context.js';
import type { ShipmentRecord } from '@brickpost/manifest';
import { SignatureFileWriter } from '../sigfile/writer.js';
import type { Missing, OldFile } from './apply-plan.js';

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
      if (f.ok) await w.addFile(f.path, f.size, f.chunks.map((c) => [c.id, c.len] as [Buffer, number]));
    }
    for (const m of missing) await w.addMissing(m.path, m.reason);
    await w.close(me.signingKey);
  } catch (e) {
    await w.abort();
    throw e;
  }
}
