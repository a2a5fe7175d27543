import { BrickpostError } from '@brickpost/manifest/errors';
import type { DeltaOp } from './op.js';

/*
 * Delta layout, bpdelta1:
 *
 *   "bpdelta1" (8 bytes), then ops, each a tag byte and its fields:
 *     0x01 copy     varint block, varint count (≥ 1)
 *     0x02 literal  varint length (≥ 1), then that many bytes
 *     0x00 end      MUST be the last byte
 *
 * Varints are unsigned LEB128 (7 bits per byte, low group first, high bit set
 * on all but the last byte), minimal (no trailing zero groups), at most 8
 * bytes and at most 2^53 − 1. A reader MUST reject any other tag, a
 * non-minimal or oversized varint, a zero count or length, a literal running
 * past the end, a missing end tag and any byte after it. The block size and
 * the old file travel beside the delta (the signature's).
 */

/** First bytes of every encoded delta. */
export const DELTA_MAGIC = 'bpdelta1';
const MAGIC = Buffer.from(DELTA_MAGIC, 'latin1');
const END = 0x00;
const COPY = 0x01;
const LITERAL = 0x02;

/**
 * Encodes ops as one bpdelta1 buffer. Literal bytes are copied once, into
 * the result. Throws USAGE when an op is not a valid DeltaOp.
 */
export function encodeDelta(ops: Iterable<DeltaOp>): Buffer {
  const parts: Buffer[] = [MAGIC];
  let head = Buffer.allocUnsafe(4096);
  let at = 0;
  const room = (n: number): void => {
    if (at + n <= head.length) return;
    parts.push(head.subarray(0, at));
    head = Buffer.allocUnsafe(4096);
    at = 0;
  };
  for (const op of ops) {
    room(1 + 2 * 8);
    if (op.op === 'copy') {
      if (!isCount(op.block, 0) || !isCount(op.count, 1)) {
        throw new BrickpostError('USAGE', `encodeDelta: copy of ${String(op.count)} blocks at ${String(op.block)} is not valid`);
      }
      head[at++] = COPY;
      at = putVarint(head, at, op.block);
      at = putVarint(head, at, op.count);
    } else if (op.op === 'literal' && op.data instanceof Uint8Array && op.data.length > 0) {
      head[at++] = LITERAL;
      at = putVarint(head, at, op.data.length);
      parts.push(head.subarray(0, at), op.data);
      head = head.subarray(at);
      at = 0;
    } else {
      throw new BrickpostError('USAGE', 'encodeDelta: op is neither a copy nor a non-empty literal');
    }
  }
  room(1);
  head[at++] = END;
  parts.push(head.subarray(0, at));
  return Buffer.concat(parts);
}

/**
 * Decodes a bpdelta1 buffer, which may come from an untrusted drive.
 * Literal ops' data are views into `buf` (no copy). Whether each copy lies
 * inside the old file is checked by applyDelta, which knows its length.
 *
 * Throws MALFORMED on any violation of the layout above.
 */
export function decodeDelta(buf: Uint8Array): DeltaOp[] {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < MAGIC.length + 1 || !b.subarray(0, MAGIC.length).equals(MAGIC)) throw bad('does not start with "bpdelta1"', 0);
  const ops: DeltaOp[] = [];
  const cursor = { at: MAGIC.length };
  for (;;) {
    const tagAt = cursor.at;
    if (tagAt >= b.length) throw bad('ends without an end tag', tagAt);
    const tag = b[cursor.at++];
    if (tag === END) {
      if (cursor.at !== b.length) throw bad(`has ${b.length - cursor.at} bytes after the end tag`, cursor.at);
      return ops;
    }
    if (tag === COPY) {
      const block = getVarint(b, cursor);
      const count = getVarint(b, cursor);
      if (count === 0) throw bad('copies zero blocks', tagAt);
      if (block + count > Number.MAX_SAFE_INTEGER) throw bad('copies past block 2^53 − 1', tagAt);
      ops.push({ op: 'copy', block, count });
    } else if (tag === LITERAL) {
      const n = getVarint(b, cursor);
      if (n === 0) throw bad('has an empty literal', tagAt);
      if (n > b.length - cursor.at) throw bad(`has a literal of ${n} bytes with ${b.length - cursor.at} left`, tagAt);
      ops.push({ op: 'literal', data: b.subarray(cursor.at, cursor.at + n) });
      cursor.at += n;
    } else {
      throw bad(`has unknown op tag 0x${tag!.toString(16).padStart(2, '0')}`, tagAt);
    }
  }
}

function isCount(n: number, min: number): boolean {
  return Number.isSafeInteger(n) && n >= min;
}

function putVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

function getVarint(b: Buffer, cursor: { at: number }): number {
  const start = cursor.at;
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    if (cursor.at >= b.length) throw bad('ends inside a varint', start);
    const byte = b[cursor.at++]!;
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (byte === 0 && i > 0) throw bad('has a non-minimal varint', start);
      if (n > Number.MAX_SAFE_INTEGER) throw bad('has a varint over 2^53 − 1', start);
      return n;
    }
    scale *= 0x80;
  }
  throw bad('has a varint longer than 8 bytes', start);
}

function bad(what: string, at: number): BrickpostError {
  return new BrickpostError('MALFORMED', `delta ${what} (at byte ${at})`);
}
