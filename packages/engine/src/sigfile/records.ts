import {
  BrickpostError,
  checkKeys as keys,
  checkObject as object,
  checkPath,
  checkStr as str,
  checkUint as uint,
  CHUNKS_PER_RECORD,
  malformed as fail,
  quote,
  RECORD_LIMITS,
  type Json,
} from '@brickpost/manifest';

/** Version string of signature and request files: first bytes and header `format` (FORMAT.md §signature-file). */
export const SIGNATURE_FORMAT = 'brickpost-signature/v1';

/** Low nibble of the magic of the skippable frame that opens the file: the one packs and the manifest use (FORMAT.md §9.1). */
export { HEADER_FRAME_NIBBLE } from '../io/header-frame.js';

/** What a signature or request file says about itself: its first record, without `t` and `format`. */
export interface SigHeader {
  /** 'signature': what a folder holds; 'request': what a destination holds after a refused shipment. */
  kind: 'signature' | 'request';
  /** 'sha256': chunk ids are plain SHA-256; 'hmac': keyed chunk ids of the dataset (FORMAT.md §8.4). */
  ids: 'sha256' | 'hmac';
  dataset: string | null;
  datasetId: string | null;
  /** The dataset's publisher key id, when the folder is a brickpost destination. */
  publisher: string | null;
  /** The last shipment applied to the folder, when it is a brickpost destination. */
  state: { shipment: string; seq: number } | null;
  created: string;
  /** Key id of the subscriber who signs the file. */
  subscriber: string;
  /** The subscriber's age recipient. */
  recipient: string;
  chunker: 'fastcdc-v1';
}

/** A chunk of a file: [id, length], id in 64 lower-case hex digits. */
export type SigChunk = [string, number];

/** A file and its first chunks (at most CHUNKS_PER_RECORD). */
export interface SigFileRecord {
  t: 'file';
  p: string;
  size: number;
  c: SigChunk[];
}

/** More chunks of the file record before it. */
export interface SigMoreRecord {
  t: 'more';
  c: SigChunk[];
}

/** A path the destination lacks or could not produce (request files; informative). */
export interface SigMissingRecord {
  t: 'missing';
  p: string;
  reason: string;
}

/** The trailer: counts a reader checks. */
export interface SigEndRecord {
  t: 'end';
  files: number;
  chunks: number;
  bytes: number;
}

/** A record after the header. */
export type SigRecord = SigFileRecord | SigMoreRecord | SigMissingRecord | SigEndRecord;

/** Limits of the format (FORMAT.md §signature-file). */
export const SIG_LIMITS = {
  lineBytes: RECORD_LIMITS.lineBytes,
  reasonChars: 1024,
  recipientChars: 4096,
  depth: 4,
} as const;

const HEX64 = /^[0-9a-f]{64}$/;
const KEY_ID = /^[0-9A-F]{16}$/;
const RECIPIENT = /^age1[0-9a-z]+$/;

function nullableStr(v: Json | undefined, where: string, field: string, max: number): string | null {
  return v === null ? null : str(v, where, field, max);
}

function chunks(v: Json | undefined, where: string): SigChunk[] {
  if (!Array.isArray(v) || v.length > CHUNKS_PER_RECORD) fail(where, `field c must be a list of at most ${CHUNKS_PER_RECORD} chunks`);
  return v.map((r, k) => {
    const w = `${where} chunk ${k}`;
    if (!Array.isArray(r) || r.length !== 2) fail(w, 'chunk must be [id, length]');
    if (typeof r[0] !== 'string' || !HEX64.test(r[0])) fail(w, 'chunk id must be 64 lower-case hex digits');
    const len = uint(r[1], w, 'length', RECORD_LIMITS.maxChunkLength);
    if (len === 0) fail(w, 'empty chunk');
    return [r[0], len];
  });
}

/**
 * Checks the header record: exactly its fields, each of the right kind.
 * @throws BrickpostError MALFORMED, UNSUPPORTED_VERSION
 */
export function checkHeader(v: Json, where: string): SigHeader {
  const o = object(v, where);
  if (o.t !== 'signature') fail(where, 'the first record must be the signature header');
  keys(o, ['t', 'format', 'kind', 'ids', 'dataset', 'datasetId', 'publisher', 'state', 'created', 'subscriber', 'recipient', 'chunker'], where);
  if (o.format !== SIGNATURE_FORMAT) {
    throw new BrickpostError('UNSUPPORTED_VERSION', `${where}: format ${quote(String(o.format))} is not ${SIGNATURE_FORMAT}`, {
      hint: 'it was written by a newer brickpost; upgrade to read it',
    });
  }
  if (o.kind !== 'signature' && o.kind !== 'request') fail(where, `unknown kind ${quote(String(o.kind))}`);
  if (o.ids !== 'sha256' && o.ids !== 'hmac') fail(where, `unknown ids ${quote(String(o.ids))}`);
  const dataset = nullableStr(o.dataset, where, 'dataset', 255);
  const datasetId = nullableStr(o.datasetId, where, 'datasetId', 64);
  if (o.ids === 'hmac' && datasetId === null) fail(where, 'keyed chunk ids (ids "hmac") need a datasetId');
  const publisher = o.publisher === null ? null : str(o.publisher, where, 'publisher', 16);
  if (publisher !== null && !KEY_ID.test(publisher)) fail(where, 'field publisher must be a key id of 16 upper-case hex digits');
  let state: SigHeader['state'] = null;
  if (o.state !== null) {
    const s = object(o.state as Json, `${where} state`);
    keys(s, ['shipment', 'seq'], `${where} state`);
    state = { shipment: str(s.shipment, where, 'state.shipment', 64), seq: uint(s.seq, where, 'state.seq') };
  }
  const created = str(o.created, where, 'created', 64);
  const subscriber = str(o.subscriber, where, 'subscriber', 16);
  if (!KEY_ID.test(subscriber)) fail(where, 'field subscriber must be a key id of 16 upper-case hex digits');
  const recipient = str(o.recipient, where, 'recipient', SIG_LIMITS.recipientChars);
  if (!RECIPIENT.test(recipient)) fail(where, 'field recipient must be an age recipient (age1…)');
  if (o.chunker !== 'fastcdc-v1') fail(where, `unknown chunker ${quote(String(o.chunker))}`);
  return { kind: o.kind, ids: o.ids, dataset, datasetId, publisher, state, created, subscriber, recipient, chunker: 'fastcdc-v1' };
}

/**
 * Checks one record after the header: known type, exactly its fields,
 * values in range, paths by the path grammar. Order and counts are the
 * reader's.
 * @throws BrickpostError MALFORMED, UNSAFE_PATH
 */
export function checkSigRecord(v: Json, where: string): SigRecord {
  const o = object(v, where);
  switch (o.t) {
    case 'file': {
      keys(o, ['t', 'p', 'size', 'c'], where);
      const p = str(o.p, where, 'p', 4096);
      checkPath(p, where);
      return { t: 'file', p, size: uint(o.size, where, 'size'), c: chunks(o.c, where) };
    }
    case 'more': {
      keys(o, ['t', 'c'], where);
      const c = chunks(o.c, where);
      if (c.length === 0) fail(where, 'a more record without chunks');
      return { t: 'more', c };
    }
    case 'missing': {
      keys(o, ['t', 'p', 'reason'], where);
      const p = str(o.p, where, 'p', 4096);
      checkPath(p, where);
      return { t: 'missing', p, reason: str(o.reason, where, 'reason', SIG_LIMITS.reasonChars) };
    }
    case 'end':
      keys(o, ['t', 'files', 'chunks', 'bytes'], where);
      return { t: 'end', files: uint(o.files, where, 'files'), chunks: uint(o.chunks, where, 'chunks'), bytes: uint(o.bytes, where, 'bytes') };
    case 'signature':
      return fail(where, 'a second header');
    default:
      return fail(where, `unknown record type ${quote(String(o.t))}`);
  }
}

/**
 * The trusted comment of a signature or request file's .minisig: it binds
 * the signature to the kind, the dataset and the signer.
 */
export function sigTrustedComment(h: Pick<SigHeader, 'kind' | 'datasetId' | 'subscriber'>): string {
  return `brickpost/v1 signature kind:${h.kind} dataset:${h.datasetId ?? 'none'} subscriber:${h.subscriber}`;
}

/**
 * Follows the records of one file in bounded memory: `more` only after a
 * file, chunk lengths adding up to the file's size, and the trailer's counts.
 */
export class SigRecordOrder {
  private open: { p: string; size: number; seen: number } | null = null;
  private ended = false;
  readonly totals = { files: 0, chunks: 0, bytes: 0 };

  constructor(private readonly where: string) {}

  /** @throws BrickpostError MALFORMED */
  push(r: SigRecord, line: number): void {
    const w = `${this.where} line ${line}`;
    if (this.ended) fail(w, 'a record after the end record');
    if (r.t === 'more') {
      if (!this.open) fail(w, 'a more record that does not follow a file record');
      this.add(r.c, w);
      return;
    }
    this.close(w);
    if (r.t === 'file') {
      this.totals.files++;
      this.totals.bytes += r.size;
      this.open = { p: r.p, size: r.size, seen: 0 };
      this.add(r.c, w);
    } else if (r.t === 'end') {
      const t = this.totals;
      if (r.files !== t.files || r.chunks !== t.chunks || r.bytes !== t.bytes) {
        fail(w, `end record counts ${r.files} files, ${r.chunks} chunks, ${r.bytes} bytes; the file holds ${t.files}, ${t.chunks}, ${t.bytes}`);
      }
      this.ended = true;
    }
  }

  /** @throws BrickpostError TRUNCATED when no end record came. */
  finish(): void {
    if (!this.ended) throw new BrickpostError('TRUNCATED', `${this.where}: ends without an end record`);
  }

  private add(c: SigChunk[], w: string): void {
    const f = this.open!;
    for (const [, len] of c) f.seen += len;
    this.totals.chunks += c.length;
    if (f.seen > f.size) fail(w, `chunks of ${quote(f.p)} add up to more than its size ${f.size}`);
  }

  private close(w: string): void {
    if (this.open && this.open.seen !== this.open.size) fail(w, `chunks of ${quote(this.open.p)} add up to ${this.open.seen}, not its size ${this.open.size}`);
    this.open = null;
  }
}
