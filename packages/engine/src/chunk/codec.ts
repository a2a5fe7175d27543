import { timingSafeEqual } from 'node:crypto';
import { BrickpostError } from '@brickpost/manifest/errors';
import { frame as zframe } from '@brickpost/manifest';
import { chunkId } from './id.js';
import { CHUNK_PARAMS_V1 } from './params.js';
import { MAX_WINDOW_LOG, zstd } from '../io/zstd.js';

/** How a chunk's frame stores its bytes. */
export type Stored = 'zstd' | 'raw';

/** An encoded chunk: one Zstandard frame and how it stores the bytes. */
export interface EncodedFrame {
  frame: Buffer;
  stored: Stored;
}

/**
 * A frame must save at least 3 % over the raw bytes to be worth decoding;
 * otherwise the chunk is stored in raw blocks.
 */
export const RAW_THRESHOLD = 0.97;

/** Chunks above this size get the sampling test before full compression. */
const SAMPLE_FROM = 64 * 1024;
const SAMPLE_PIECE = 4096;
const SAMPLE_PIECES = 4;
const SAMPLE_LEVEL = 1;

// Per-thread state: one context each way and a scratch output buffer.
let cctx: InstanceType<typeof zstd.CCtx> | null = null;
let dctx: InstanceType<typeof zstd.DCtx> | null = null;
let scratch: Buffer = Buffer.alloc(0);
const sampleBuf = Buffer.allocUnsafeSlow(SAMPLE_PIECE * SAMPLE_PIECES);

function compressInto(raw: Uint8Array, level: number): number {
  cctx ??= new zstd.CCtx();
  const bound = zstd.compressBound(raw.length);
  if (scratch.length < bound) scratch = Buffer.allocUnsafeSlow(Math.max(bound, zstd.compressBound(CHUNK_PARAMS_V1.max)));
  return cctx.compress(scratch, raw, level);
}

/**
 * True when four 4 KiB samples spread over the chunk do not shrink by 3 % at
 * zstd level 1: random-looking data (media, archives, ciphertext) is then
 * stored raw without running the real compressor over it.
 */
function looksIncompressible(raw: Uint8Array): boolean {
  if (raw.length <= SAMPLE_FROM) return false;
  const step = Math.floor((raw.length - SAMPLE_PIECE) / (SAMPLE_PIECES - 1));
  for (let k = 0; k < SAMPLE_PIECES; k++) {
    const at = k * step;
    sampleBuf.set(raw.subarray(at, at + SAMPLE_PIECE), k * SAMPLE_PIECE);
  }
  return compressInto(sampleBuf, SAMPLE_LEVEL) > RAW_THRESHOLD * sampleBuf.length;
}

/**
 * Encodes one chunk as exactly one Zstandard frame with its content size in
 * the header and no checksum (the chunk id already authenticates the bytes).
 * Incompressible chunks become a raw frame: first a cheap sampling test, then,
 * if zstd ran, a check that it saved at least 3 %. The returned frame owns its
 * memory (it can be transferred to another thread).
 *
 * Throws USAGE for a level outside zstd's range.
 */
export function encodeChunk(raw: Uint8Array, level: number): EncodedFrame {
  if (!Number.isInteger(level) || level < zstd.minCLevel() || level > zstd.maxCLevel()) {
    throw new BrickpostError('USAGE', `zstd level ${level} is outside ${zstd.minCLevel()}..${zstd.maxCLevel()}`);
  }
  if (!looksIncompressible(raw)) {
    const size = compressInto(raw, level);
    if (size < RAW_THRESHOLD * raw.length) {
      const frame = Buffer.allocUnsafeSlow(size);
      scratch.copy(frame, 0, 0, size);
      return { frame, stored: 'zstd' };
    }
  }
  return { frame: zframe.rawFrame(raw), stored: 'raw' };
}

/** Limits decodeFrame and decodeChunk enforce. */
export interface DecodeLimits {
  /** Largest content a frame may declare; default CHUNK_PARAMS_V1.max. */
  maxLength?: number;
}

/**
 * Decodes one chunk frame and proves it is the chunk `id` names: decodeFrame,
 * then HMAC-SHA256(key, bytes) must equal `id`.
 *
 * Throws what decodeFrame throws, and CHUNK_MISMATCH when the id disagrees.
 */
export function decodeChunk(frame: Uint8Array, expectedLength: number, id: Uint8Array, key: Uint8Array, limits: DecodeLimits = {}): Buffer {
  const out = decodeFrame(frame, expectedLength, limits);
  const actual = chunkId(key, out);
  if (id.length !== actual.length || !timingSafeEqual(actual, id)) {
    throw new BrickpostError('CHUNK_MISMATCH', `chunk ${Buffer.from(id).toString('hex').slice(0, 16)}… decodes to bytes with another id`);
  }
  return out;
}

/**
 * Decodes one frame (a chunk's, or a delta's with `maxLength`
 * RECORD_LIMITS.maxDeltaLength) without checking what the bytes are. Before
 * any decoding it requires exactly one Zstandard frame (no skippable frame,
 * no dictionary, nothing after it) declaring a content size equal to
 * `expectedLength`, at most `maxLength`, with a window of at most 8 MiB; the
 * output buffer is exactly `expectedLength` bytes, so a frame cannot make it
 * allocate more.
 *
 * Throws MALFORMED (not a well-formed single frame, or zstd rejects it),
 * TRUNCATED (frame header cut short), LIMIT_EXCEEDED (declared size or window
 * beyond the limits), CHUNK_MISMATCH (length disagrees with the manifest).
 */
export function decodeFrame(frame: Uint8Array, expectedLength: number, limits: DecodeLimits = {}): Buffer {
  const maxLength = limits.maxLength ?? CHUNK_PARAMS_V1.max;
  if (!Number.isSafeInteger(expectedLength) || expectedLength < 0) {
    throw new BrickpostError('MALFORMED', `chunk length ${expectedLength} is not a byte count`);
  }
  if (expectedLength > maxLength) {
    throw new BrickpostError('LIMIT_EXCEEDED', `chunk length ${expectedLength} exceeds the limit of ${maxLength} bytes`);
  }
  const h = zframe.parseFrameHeader(frame);
  if (h.kind !== 'zstd') throw new BrickpostError('MALFORMED', 'chunk frame is a skippable frame, not a zstd frame');
  if (h.dictId !== 0) throw new BrickpostError('MALFORMED', `chunk frame asks for dictionary ${h.dictId}`);
  if (h.contentSize === undefined) throw new BrickpostError('MALFORMED', 'chunk frame does not declare its content size');
  if (h.contentSize > maxLength) {
    throw new BrickpostError('LIMIT_EXCEEDED', `chunk frame declares ${h.contentSize} bytes, over the limit of ${maxLength}`);
  }
  if ((h.windowSize ?? 0) > 2 ** MAX_WINDOW_LOG) {
    throw new BrickpostError('LIMIT_EXCEEDED', `chunk frame asks for a ${h.windowSize}-byte window, over 8 MiB`);
  }
  if (h.contentSize !== expectedLength) {
    throw new BrickpostError('CHUNK_MISMATCH', `chunk frame holds ${h.contentSize} bytes, the manifest says ${expectedLength}`);
  }
  let frameSize: number;
  try {
    frameSize = zstd.findFrameCompressedSize(frame);
  } catch (e) {
    throw new BrickpostError('MALFORMED', `chunk frame is corrupt: ${(e as Error).message}`, { cause: e });
  }
  if (frameSize !== frame.length) {
    throw new BrickpostError('MALFORMED', `chunk frame is ${frameSize} bytes but ${frame.length - frameSize} more bytes follow it`);
  }
  // Not from the shared pool: the result may be moved to another thread.
  const out = Buffer.allocUnsafeSlow(expectedLength);
  let n: number;
  try {
    if (!dctx) {
      dctx = new zstd.DCtx();
      dctx.setParameter(zstd.DParameter.windowLogMax, MAX_WINDOW_LOG);
    }
    n = dctx.decompress(out, frame);
  } catch (e) {
    throw new BrickpostError('MALFORMED', `chunk frame does not decode: ${(e as Error).message}`, { cause: e });
  }
  if (n !== expectedLength) {
    throw new BrickpostError('MALFORMED', `chunk frame decoded to ${n} bytes, its header says ${expectedLength}`);
  }
  return out;
}
