import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, Receipt, ReceiptOptions, ReceiptSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { recordReceipt } from '../custody/index.js';
import { openSettled } from '../ingest/settle.js';
import { Progress } from '../io/progress.js';
import { writeAtomic } from '../io/sync.js';
import { hashFile, signDetached } from '../sigfile/detached.js';
import { checkDest } from './check-dest.js';
import { formatReceipt, RECEIPT_FORMAT, receiptTrustedComment } from './schema.js';

/**
 * `brickpost receipt`: checks a destination against its current shipment
 * (checkDest, level 'stat' or 'deep') and writes a receipt saying what it
 * holds, signed with this home's key in FILE.minisig, for the publisher to
 * import. The destination is locked while it is checked, and an ingest
 * or rollback a crash interrupted is finished first (settle.ts). A receipt is
 * written even when the check finds problems: it then says ok: false.
 * @throws BrickpostError NOT_FOUND (not a destination, no kept manifest), NO_IDENTITY, LOCKED, UNFINISHED, NO_MATCHING_KEY, CANCELLED, PERMISSION, IO
 */
export async function writeReceipt(ctx: Context, opts: ReceiptOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ReceiptSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const out = resolve(opts.out);
  if (!(await stat(resolve(out, '..')).catch(() => null))?.isDirectory())
    throw new BrickpostError('NOT_FOUND', `the folder of ${quote(opts.out)} does not exist`, { path: out });
  const { dest, folder, state, unlock } = await openSettled(
    opts.dest,
    'receipt',
    me.ageIdentities,
    onEvent,
    "give the folder you passed to 'brickpost ingest'; for any other folder, 'brickpost signature' describes what it holds",
  );
  const last = state.applied[state.applied.length - 1]!;
  try {
    const manifest = await folder.keptManifest(last.shipment, 'write the receipt');
    const { sha256: stateDigest } = await hashFile(manifest);
    const progress = new Progress(onEvent, 'verify');
    progress.bytesTotal = last.bytes;
    progress.filesTotal = last.files;
    progress.emit();
    const verification = await checkDest(dest, manifest, me.ageIdentities, opts.deep ?? false, progress, signal);
    progress.emit();
    const receipt: Receipt = {
      format: RECEIPT_FORMAT,
      dataset: state.dataset,
      datasetId: state.datasetId,
      publisher: state.publisher,
      subscriber: { name: me.name, keyId: me.keyId, recipient: me.recipient },
      applied: state.applied.map((a) => ({ shipment: a.shipment, seq: a.seq, appliedAt: a.appliedAt })),
      current: { shipment: last.shipment, seq: last.seq },
      verification,
      stateDigest,
      created: new Date().toISOString(),
    };
    await writeAtomic(out, formatReceipt(receipt));
    const h = await hashFile(out);
    await signDetached(out, h.prehash, me.signingKey, receiptTrustedComment(receipt), `brickpost receipt, sha256 ${h.sha256}`);
    await recordReceipt(ctx, last.shipment, h.sha256, verification.ok, dest, onEvent);
    return { dest, out, sha256: h.sha256, receipt, seconds: (performance.now() - started) / 1000 };
  } finally {
    await unlock();
  }
}
