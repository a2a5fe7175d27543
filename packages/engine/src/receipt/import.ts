import { access } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { BrickpostError, minisign, quote } from '@brickpost/manifest';
import type { ReceiptImportSummary } from '../api.js';
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
  if (!(await access(minisigPath(path)).then(() => true, () => false))) {
    throw new BrickpostError('UNSIGNED', `receipt ${quote(file)} is not signed: ${quote(minisigPath(path))} is missing`, { path: minisigPath(path), hint: 'copy the .minisig file that came with it next to it' });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const signer = await verifyDetached(path, minisign.createPrehash().update(bytes).digest(), trustedVerifiers(ctx.catalog), 'receipt');
  const r = parseReceipt(bytes, file);
  if (r.subscriber.keyId !== signer.keyId) {
    throw new BrickpostError('SIGNATURE_INVALID', `receipt ${quote(file)} names subscriber key ${r.subscriber.keyId} but is signed by ${signer.keyId}`, { path: minisigPath(path) });
  }
  if (signer.trustedComment !== receiptTrustedComment(r)) {
    throw new BrickpostError('SIGNATURE_INVALID', `signed comment ${quote(signer.trustedComment)} does not describe receipt ${quote(file)}`, { path: minisigPath(path) });
  }

  const db = ctx.catalog.db;
  const ds = db.prepare('SELECT name FROM datasets WHERE id = ? AND publisher = ?').get(r.datasetId, me.keyId) as { name: string } | undefined;
  if (r.publisher !== me.keyId || !ds) {
    throw new BrickpostError('DATASET_MISMATCH', `receipt ${quote(file)} is about dataset ${quote(r.dataset)} (${r.datasetId}) of publisher ${r.publisher}, which this home does not publish`, {
      hint: 'import receipts on the home that packed the dataset',
    });
  }
  const sh = db
    .prepare("SELECT seq FROM shipments WHERE id = ? AND dataset_id = ? AND role = 'published' AND state = 'sealed'")
    .get(r.current.shipment, r.datasetId) as { seq: number } | undefined;
  if (!sh) throw new BrickpostError('NOT_FOUND', `receipt ${quote(file)} names shipment ${quote(r.current.shipment)}, which this home did not publish in dataset ${quote(ds.name)}`);
  if (sh.seq !== r.current.seq) throw new BrickpostError('MALFORMED', `receipt ${quote(file)} gives shipment ${quote(r.current.shipment)} number ${r.current.seq}; it is number ${sh.seq}`);

  const v = r.verification;
  const info = db
    .prepare(
      `INSERT OR IGNORE INTO receipts (dataset_id, recipient, subscriber_key, subscriber_name, shipment_id, seq, verified, state_digest, created_at, imported_at, file_sha256)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(r.datasetId, r.subscriber.recipient, signer.keyId, signer.name ?? r.subscriber.name, r.current.shipment, r.current.seq, v.ok ? v.level : 'failed', r.stateDigest, r.created, new Date().toISOString(), sha256);
  const recipientRecorded = fillRecipient(ctx.catalog, signer.keyId, r.subscriber.recipient);
  return {
    file: path,
    sha256,
    alreadyImported: info.changes === 0,
    subscriber: { name: signer.name, keyId: signer.keyId, recipient: r.subscriber.recipient },
    recipientRecorded,
    dataset: ds.name,
    datasetId: r.datasetId,
    shipment: r.current.shipment,
    seq: r.current.seq,
    level: v.level,
    ok: v.ok,
    problems: v.problems.length,
    created: r.created,
  };
}
