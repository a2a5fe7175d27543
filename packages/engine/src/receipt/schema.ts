import { BrickpostError, parseStrictJson, quote, type Json } from '@brickpost/manifest';
import type { Receipt, VerifyProblem } from '../api/index.js';

/** Version string of receipts, their `format` (FORMAT.md §receipt). */
export const RECEIPT_FORMAT = 'brickpost-receipt/v1';

/** Limits of a receipt (FORMAT.md §receipt). */
export const RECEIPT_LIMITS = {
  fileBytes: 1 << 20,
  problems: 100,
  messageChars: 1024,
  depth: 5,
} as const;

const KEY_ID = /^[0-9A-F]{16}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const RECIPIENT = /^age1[0-9a-z]+$/;

function fail(where: string, what: string): never {
  throw new BrickpostError('MALFORMED', `${where}: ${what}`);
}

function obj(v: Json | undefined, where: string, fields: readonly string[], optional: readonly string[] = []): Record<string, Json> {
  if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v)) fail(where, 'must be an object');
  const o = v as Record<string, Json>;
  for (const k of Object.keys(o)) if (!fields.includes(k) && !optional.includes(k)) fail(where, `unknown field ${quote(k)}`);
  for (const k of fields) if (!(k in o)) fail(where, `missing field ${quote(k)}`);
  return o;
}

function str(v: Json | undefined, where: string, max: number, re?: RegExp): string {
  if (typeof v !== 'string' || v.length > max || (re && !re.test(v)))
    fail(where, `must be a string of at most ${max} characters${re ? ` matching ${re.source}` : ''}`);
  return v;
}

function uint(v: Json | undefined, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(where, 'must be a non-negative integer');
  return v;
}

function list(v: Json | undefined, where: string, max: number): Json[] {
  if (!Array.isArray(v) || v.length > max) fail(where, `must be a list of at most ${max} items`);
  return v;
}

/**
 * Parses a receipt strictly (FORMAT.md §receipt): strict JSON, exactly the
 * listed fields, each of the right kind and range.
 * @throws BrickpostError MALFORMED, UNSUPPORTED_VERSION, LIMIT_EXCEEDED
 */
export function parseReceipt(bytes: Buffer, where: string): Receipt {
  if (bytes.length > RECEIPT_LIMITS.fileBytes) throw new BrickpostError('LIMIT_EXCEEDED', `${where}: larger than ${RECEIPT_LIMITS.fileBytes} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail(where, 'not valid UTF-8');
  }
  const o = obj(parseStrictJson(text, { where, maxDepth: RECEIPT_LIMITS.depth }), where, [
    'format',
    'dataset',
    'datasetId',
    'publisher',
    'subscriber',
    'applied',
    'current',
    'verification',
    'stateDigest',
    'created',
  ]);
  if (o.format !== RECEIPT_FORMAT) {
    throw new BrickpostError('UNSUPPORTED_VERSION', `${where}: format ${quote(String(o.format))} is not ${RECEIPT_FORMAT}`, {
      hint: 'it was written by a newer brickpost; upgrade to read it',
    });
  }
  const s = obj(o.subscriber, `${where} subscriber`, ['name', 'keyId', 'recipient']);
  const c = obj(o.current, `${where} current`, ['shipment', 'seq']);
  const v = obj(o.verification, `${where} verification`, ['level', 'ok', 'files', 'bytes', 'problems']);
  if (v.level !== 'stat' && v.level !== 'deep') fail(`${where} verification.level`, `unknown level ${quote(String(v.level))}`);
  if (typeof v.ok !== 'boolean') fail(`${where} verification.ok`, 'must be true or false');
  const problems = list(v.problems, `${where} verification.problems`, RECEIPT_LIMITS.problems).map((p, i): VerifyProblem => {
    const w = `${where} verification.problems[${i}]`;
    const q = obj(p, w, ['code', 'message', 'path']);
    return { code: str(q.code, w, 64, /^[A-Z_]+$/), message: str(q.message, w, RECEIPT_LIMITS.messageChars), path: str(q.path, w, 4096) };
  });
  if (v.ok && problems.length > 0) fail(`${where} verification`, 'ok with problems');
  const applied = list(o.applied, `${where} applied`, 1_000_000).map((a, i) => {
    const w = `${where} applied[${i}]`;
    const q = obj(a, w, ['shipment', 'seq', 'appliedAt']);
    return { shipment: str(q.shipment, w, 64), seq: uint(q.seq, w), appliedAt: str(q.appliedAt, w, 64) };
  });
  const current = { shipment: str(c.shipment, `${where} current.shipment`, 64), seq: uint(c.seq, `${where} current.seq`) };
  const last = applied[applied.length - 1];
  if (!last || last.shipment !== current.shipment || last.seq !== current.seq) fail(`${where} current`, 'must be the last applied shipment');
  return {
    format: RECEIPT_FORMAT,
    dataset: str(o.dataset, `${where} dataset`, 255),
    datasetId: str(o.datasetId, `${where} datasetId`, 64),
    publisher: str(o.publisher, `${where} publisher`, 16, KEY_ID),
    subscriber: {
      name: str(s.name, `${where} subscriber.name`, 1024),
      keyId: str(s.keyId, `${where} subscriber.keyId`, 16, KEY_ID),
      recipient: str(s.recipient, `${where} subscriber.recipient`, 4096, RECIPIENT),
    },
    applied,
    current,
    verification: {
      level: v.level,
      ok: v.ok,
      files: uint(v.files, `${where} verification.files`),
      bytes: uint(v.bytes, `${where} verification.bytes`),
      problems,
    },
    stateDigest: str(o.stateDigest, `${where} stateDigest`, 64, HEX64),
    created: str(o.created, `${where} created`, 64),
  };
}

/** The receipt as written: JSON, two-space indented, ending in LF. */
export function formatReceipt(r: Receipt): string {
  return JSON.stringify(r, null, 2) + '\n';
}

/** The trusted comment of a receipt's .minisig: binds it to the dataset, the shipment held and the signer. */
export function receiptTrustedComment(r: Pick<Receipt, 'datasetId' | 'current' | 'subscriber'>): string {
  return `brickpost/v1 receipt dataset:${r.datasetId} shipment:${r.current.shipment} seq:${r.current.seq} subscriber:${r.subscriber.keyId}`;
}
