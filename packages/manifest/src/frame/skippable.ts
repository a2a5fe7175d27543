import { BrickpostError } from '../errors.js';
import { SKIPPABLE_MAGIC_BASE } from './constants.js';

/** A skippable frame read back: its magic nibble, its payload, its total length. */
export interface SkippableFrame {
  /** Low nibble of the magic number, 0–15. */
  magicNibble: number;
  /** The User_Data bytes (a view into the input, not a copy). */
  payload: Buffer;
  /** Bytes the whole frame occupies: 8 + payload length. */
  length: number;
}

/**
 * Writes a skippable frame (RFC 8878 §3.1.2): magic 0x184D2A50 + nibble,
 * little-endian 32-bit Frame_Size, then the payload. Zstandard decoders skip
 * it, so metadata can sit inside a stream that `zstd -d` still decodes.
 *
 * Throws USAGE for a nibble outside 0–15 and LIMIT_EXCEEDED for a payload of
 * 4 GiB or more.
 */
export function skippableFrame(magicNibble: number, payload: Uint8Array): Buffer {
  if (!Number.isInteger(magicNibble) || magicNibble < 0 || magicNibble > 15) {
    throw new BrickpostError('USAGE', `skippable frame magic nibble ${magicNibble} is not in 0-15`);
  }
  if (payload.length > 0xffffffff) {
    throw new BrickpostError('LIMIT_EXCEEDED', `skippable frame payload of ${payload.length} bytes exceeds 4 GiB`);
  }
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32LE(SKIPPABLE_MAGIC_BASE + magicNibble, 0);
  out.writeUInt32LE(payload.length, 4);
  out.set(payload, 8);
  return out;
}

/**
 * Reads the skippable frame at the start of `buf`; bytes after it are left
 * alone (`length` says where the next frame starts).
 *
 * Throws MALFORMED when `buf` does not start with a skippable magic number and
 * TRUNCATED when it ends before the frame does.
 */
export function readSkippableFrame(buf: Uint8Array): SkippableFrame {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
  if (b.length < 8) {
    throw new BrickpostError('TRUNCATED', `skippable frame header needs 8 bytes, got ${b.length}`);
  }
  const magic = b.readUInt32LE(0);
  if ((magic & 0xfffffff0) >>> 0 !== SKIPPABLE_MAGIC_BASE) {
    throw new BrickpostError('MALFORMED', `not a skippable frame: magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const size = b.readUInt32LE(4);
  if (b.length - 8 < size) {
    throw new BrickpostError('TRUNCATED', `skippable frame declares ${size} payload bytes but only ${b.length - 8} follow`);
  }
  return { magicNibble: magic & 0xf, payload: b.subarray(8, 8 + size), length: 8 + size };
}
