import { access } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { BrickpostError, minisign, quote } from '@brickpost/manifest';
import type { ReceiptImportSummary } from '../api/index.js';
import { datasetName, insertReceipt, sealedSeq } from '../catalog/published.js';
import type { Context } from '../context.js';
import { readLimited } from '../io/read-limited.js';
import { fillRecipient, trustedVerifiers } from '../keys/index.js';
import { minisigPath, verifyDetached } from '../sigfile/detached.js';
import { parseReceipt, RECEIPT_LIMITS, receiptTrustedComment } from './schema.js';

/**
 * `brickpost receipt import`, on the publisher: checks a receipt's
 * signature against the trust store (the subscriber's key must be trusted,
 * and be the key the receipt names), parses it strictly, checks it is about
 * a dataset this home publishes and a shipment it sealed, and records it in
 * the catalog's receipts table. `verified` there is the level ('stat' or
 * 'deep') when the subscriber's check passed, else 'failed'. Importing the
 * same file again changes nothing (rows are unique by the file's SHA-256).
 * When the trust store has no recipient for the subscriber's key yet, the
 * receipt's (signed by that key) is recorded there.
 * @throws BrickpostError UNSIGNED, UNTRUSTED_PUBLISHER, SIGNATURE_INVALID, MALFORMED, LIMIT_EXCEEDED, DATASET_MISMATCH (not a dataset of this home), NOT_FOUND (no such published shipment), NO_IDENTITY, IO
 */
export async function importReceipt(ctx: Context, file: string): Promise<ReceiptImportSummary> {
  const path = resolve(file);
  const me = ctx.identity();
  const bytes = await readLimited(path, RECEIPT_LIMITS.fileBytes, 'receipt').catch((e: unknown) => {
    if (e instanceof BrickpostError && e.code === 'FILE_MISSING') throw new BrickpostError('NOT_FOUND', `no such receipt: ${quote(file)}`, { path });
    throw e;
  });
  if (
    !(await access(minisigPath(path)).then(
      () => true,
      () => false,
    ))
  ) {
    throw new BrickpostError('UNSIGNED', `receipt ${quote(file)} is not signed: ${quote(minisigPath(path))} is missing`, {
      path: minisigPath(path),
      hint: 'copy the .minisig file that came with it next to it',
    });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const signer = await verifyDetached(path, minisign.createPrehash().update(bytes).digest(), trustedVerifiers(ctx.catalog), 'receipt');
  const r = parseReceipt(bytes, file);
  if (r.subscriber.keyId !== signer.keyId) {
    throw new BrickpostError('SIGNATURE_INVALID', `receipt ${quote(file)} names subscriber key ${r.subscriber.keyId} but is signed by ${signer.keyId}`, {
      path: minisigPath(path),
    });
  }
  if (signer.trustedComment !== receiptTrustedComment(r)) {
    throw new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(signer.trustedComment)} does not describe receipt ${quote(file)}`, {
      path: minisigPath(path),
    });
  }

  const dsName = datasetName(ctx.catalog, r.datasetId, me.keyId);
  if (r.publisher !== me.keyId || dsName === undefined) {
    throw new BrickpostError(
      'DATASET_MISMATCH',
      `receipt ${quote(file)} is about dataset ${quote(r.dataset)} (${r.datasetId}) of publisher ${r.publisher}, which this home does not publish`,
      {
        hint: 'import receipts on the home that packed the dataset',
      },
    );
  }
  const seq = sealedSeq(ctx.catalog, r.current.shipment, r.datasetId);
  if (seq === undefined)
    throw new BrickpostError(
      'NOT_FOUND',
      `receipt ${quote(file)} names shipment ${quote(r.current.shipment)}, which this home did not publish in dataset ${quote(dsName)}`,
    );
  if (seq !== r.current.seq)
    throw new BrickpostError('MALFORMED', `receipt ${quote(file)} gives shipment ${quote(r.current.shipment)} number ${r.current.seq}; it is number ${seq}`);

  const v = r.verification;
  const recorded = insertReceipt(ctx.catalog, {
    datasetId: r.datasetId,
    recipient: r.subscriber.recipient,
    subscriberKey: signer.keyId,
    subscriberName: signer.name ?? r.subscriber.name,
    shipment: r.current.shipment,
    seq: r.current.seq,
    verified: v.ok ? v.level : 'failed',
    stateDigest: r.stateDigest,
    createdAt: r.created,
    importedAt: new Date().toISOString(),
    fileSha256: sha256,
  });
  const recipientRecorded = fillRecipient(ctx.catalog, signer.keyId, r.subscriber.recipient);
  return {
    file: path,
    sha256,
    alreadyImported: !recorded,
    subscriber: { name: signer.name, keyId: signer.keyId, recipient: r.subscriber.recipient },
    recipientRecorded,
    dataset: dsName,
    datasetId: r.datasetId,
    shipment: r.current.shipment,
    seq: r.current.seq,
    level: v.level,
    ok: v.ok,
    problems: v.problems.length,
    created: r.created,
  };
}
