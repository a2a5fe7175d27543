/**
 * The chunk refs of a file record's `c` field (FORMAT.md §manifest), one
 * check a chunk of every file a manifest lists: the usual shapes by plain
 * comparisons, anything else by the rules one by one, which word what is
 * wrong.
 */
import { checkUint as uint, malformed as fail } from './fields.js';
import type { Json } from './json.js';
import { CHUNKS_PER_RECORD, RECORD_LIMITS, type ChunkRef, type DeltaRef, type HeldRef, type HoleRef, type PackedRef } from './types.js';

/** Whether `v` is 64 lower-case hex digits: a loop over a table, twice as fast as the regular expression at a chunk a file. */
export function isHex64(v: unknown): v is string {
  if (typeof v !== 'string' || v.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = v.charCodeAt(i);
    if (c > 0x7f || HEX_DIGIT[c] === 0) return false;
  }
  return true;
}

const HEX_DIGIT = new Uint8Array(128);
for (const c of '0123456789abcdef') HEX_DIGIT[c.charCodeAt(0)] = 1;

function isUint(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
}

/**
 * A chunk ref of the two common shapes ([id, length] and [id, pack,
 * offset, frame length, length]) when every value is in range, or null:
 * then `ref` checks it again and names what is wrong. Spares building the
 * names of its fields' places for each chunk of each file.
 */
function plainRef(r: Json): HeldRef | PackedRef | null {
  if (!Array.isArray(r) || !isHex64(r[0])) return null;
  if (r.length === 2) return isUint(r[1], RECORD_LIMITS.maxChunkLength) ? [r[0], r[1]] : null;
  if (r.length !== 5) return null;
  const [id, pack, offset, frameLen, len] = r;
  return isUint(pack, Number.MAX_SAFE_INTEGER) &&
    isUint(offset, RECORD_LIMITS.maxPackPlain) &&
    isUint(frameLen, RECORD_LIMITS.maxFrameLength) &&
    isUint(len, RECORD_LIMITS.maxChunkLength)
    ? [id, pack, offset, frameLen, len]
    : null;
}

export function refs(v: Json | undefined, where: string, version: 1 | 2): ChunkRef[] {
  if (!Array.isArray(v) || v.length > CHUNKS_PER_RECORD) fail(where, `field c must be a list of at most ${CHUNKS_PER_RECORD} chunks`);
  const out: ChunkRef[] = new Array<ChunkRef>(v.length);
  for (let k = 0; k < v.length; k++) out[k] = plainRef(v[k]!) ?? ref(v[k]!, `${where} chunk ${k}`, version);
  return out;
}

function ref(r: Json, w: string, version: 1 | 2): ChunkRef {
  if (version === 2 && Array.isArray(r) && r.length === 1) {
    const len = uint(r[0], w, 'hole length', RECORD_LIMITS.maxHole);
    if (len === 0) fail(w, 'a hole must be at least one byte long');
    return [len] as HoleRef;
  }
  if (!Array.isArray(r) || (r.length !== 2 && r.length !== 5 && r.length !== 6)) {
    fail(
      w,
      `chunk must be [id, length], [id, pack, offset, frame length, length] or [id, pack, offset, frame length, length, delta length]${version === 2 ? ', or a hole [length]' : ''}`,
    );
  }
  const id = r[0];
  if (!isHex64(id)) fail(w, 'chunk id must be 64 lower-case hex digits');
  if (r.length === 2) return [id, uint(r[1], w, 'length', RECORD_LIMITS.maxChunkLength)] as HeldRef;
  const packed = [
    id,
    uint(r[1], w, 'pack'),
    uint(r[2], w, 'offset', RECORD_LIMITS.maxPackPlain),
    uint(r[3], w, 'frame length', RECORD_LIMITS.maxFrameLength),
    uint(r[4], w, 'length', RECORD_LIMITS.maxChunkLength),
  ] as PackedRef;
  if (r.length === 5) return packed;
  return [...packed, uint(r[5], w, 'delta length', RECORD_LIMITS.maxDeltaLength)] as DeltaRef;
}
