import { BrickpostError } from '../errors.js';
import { MAX_SAFE_CONTENT_SIZE, SKIPPABLE_MAGIC_BASE, ZSTD_MAGIC } from './constants.js';

/** What the header of a Zstandard or skippable frame says. */
export interface FrameHeader {
  kind: 'zstd' | 'skippable';
  /** Bytes of header: where the first block (or the skippable payload) starts. */
  headerSize: number;
  /** Frame_Content_Size, when the frame declares it (zstd frames only). */
  contentSize?: number;
  /** Window_Size a decoder must provide (zstd frames only; RFC 8878 §3.1.1.1.2). */
  windowSize?: number;
  singleSegment: boolean;
  hasChecksum: boolean;
  /** Dictionary_ID, 0 when none. */
  dictId: number;
  /** Frame_Size of a skippable frame: the payload length. */
  skippableSize?: number;
}

/**
 * Parses the frame header at the start of `buf` (RFC 8878 §3.1.1.1 for
 * Zstandard frames, §3.1.2 for skippable frames), without decoding any block.
 * Callers use it to bound memory before handing a frame to a decoder.
 *
 * Throws MALFORMED for an unknown magic number or a set Reserved_bit,
 * TRUNCATED when `buf` ends inside the header, and LIMIT_EXCEEDED for a
 * content size beyond 2^53 − 1.
 */
export function parseFrameHeader(buf: Uint8Array): FrameHeader {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
  if (b.length < 4) {
    throw new BrickpostError('TRUNCATED', `frame header needs at least 4 bytes, got ${b.length}`);
  }
  const magic = b.readUInt32LE(0);
  if ((magic & 0xfffffff0) >>> 0 === SKIPPABLE_MAGIC_BASE) {
    if (b.length < 8) {
      throw new BrickpostError('TRUNCATED', `skippable frame header needs 8 bytes, got ${b.length}`);
    }
    return {
      kind: 'skippable',
      headerSize: 8,
      singleSegment: false,
      hasChecksum: false,
      dictId: 0,
      skippableSize: b.readUInt32LE(4),
    };
  }
  if (magic !== ZSTD_MAGIC) {
    throw new BrickpostError('MALFORMED', `not a zstd frame: magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  if (b.length < 5) {
    throw new BrickpostError('TRUNCATED', 'zstd frame ends before its frame header descriptor');
  }
  const fhd = b[4]!;
  // §3.1.1.1.1: bit 3 is Reserved_bit and must be zero; bit 4 (Unused_bit) is ignored.
  if (fhd & 0x08) {
    throw new BrickpostError('MALFORMED', `zstd frame header descriptor 0x${fhd.toString(16)} has the reserved bit set`);
  }
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd & 0x20) !== 0;
  const hasChecksum = (fhd & 0x04) !== 0;
  const didFlag = fhd & 0x03;
  const didSize = [0, 1, 2, 4][didFlag]!;
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  const headerSize = 5 + (singleSegment ? 0 : 1) + didSize + fcsSize;
  if (b.length < headerSize) {
    throw new BrickpostError('TRUNCATED', `zstd frame header needs ${headerSize} bytes, got ${b.length}`);
  }
  let off = 5;
  let windowSize: number | undefined;
  if (!singleSegment) {
    // §3.1.1.1.2: windowLog = 10 + Exponent; Window_Size = base + base/8 * Mantissa.
    const wd = b[off++]!;
    const base = 2 ** (10 + (wd >> 3));
    windowSize = base + (base / 8) * (wd & 7);
  }
  const dictId = didSize === 0 ? 0 : b.readUIntLE(off, didSize);
  off += didSize;
  let contentSize: number | undefined;
  if (fcsSize === 1) contentSize = b[off]!;
  else if (fcsSize === 2) contentSize = b.readUInt16LE(off) + 256;
  else if (fcsSize === 4) contentSize = b.readUInt32LE(off);
  else if (fcsSize === 8) {
    const hi = b.readUInt32LE(off + 4);
    const lo = b.readUInt32LE(off);
    contentSize = hi * 2 ** 32 + lo;
    if (contentSize > MAX_SAFE_CONTENT_SIZE) {
      throw new BrickpostError('LIMIT_EXCEEDED', `zstd frame declares a content size beyond 2^53 (high word 0x${hi.toString(16)})`);
    }
  }
  // §3.1.1.1.2: in a single-segment frame the window is the whole content.
  if (singleSegment) windowSize = contentSize;
  const header: FrameHeader = { kind: 'zstd', headerSize, singleSegment, hasChecksum, dictId };
  if (contentSize !== undefined) header.contentSize = contentSize;
  if (windowSize !== undefined) header.windowSize = windowSize;
  return header;
}
