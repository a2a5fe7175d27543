import { RECORD_LIMITS } from '@brickpost/manifest';
import { computeDelta } from '../delta/compute.js';
import { encodeDelta } from '../delta/encode.js';
import type { DeltaOp } from '../delta/op.js';
import type { ParsedSignature } from '../delta/signature.js';
import { encodeChunk } from './codec.js';

/**
 * A chunk coded as a delta against a basis file's signature (FORMAT.md
 * §9.10): the bpdelta1 bytes in one frame, compressed like any chunk (raw
 * when incompressible). Null when the delta would be longer than a delta
 * frame may hold (RECORD_LIMITS.maxDeltaLength) or its frame is not shorter
 * than `limit`, the chunk's own frame: the chunk is then stored plainly.
 */
export async function deltaFrame(sig: ParsedSignature, raw: Uint8Array, level: number, limit: number): Promise<{ frame: Buffer; deltaLength: number } | null> {
  const ops: DeltaOp[] = [];
  for await (const op of computeDelta(sig, [raw])) ops.push(op);
  // All literal: nothing of the basis is reused, and the frame cannot beat the chunk's own.
  if (ops.every((op) => op.op === 'literal')) return null;
  const delta = encodeDelta(ops);
  if (delta.length > RECORD_LIMITS.maxDeltaLength) return null;
  const { frame } = encodeChunk(delta, level);
  return frame.length < limit ? { frame, deltaLength: delta.length } : null;
}
