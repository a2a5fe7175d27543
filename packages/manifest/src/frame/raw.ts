import { BrickpostError } from '../errors.js';
import { MAX_BLOCK_SIZE, ZSTD_MAGIC } from './constants.js';

/**
 * Content up to this size is written as a single-segment frame (window =
 * content size). Larger content gets an explicit 128 KiB window instead, so a
 * decoder never has to reserve more than that for a raw frame.
 */
const SINGLE_SEGMENT_LIMIT = 8 * 1024 * 1024;

/**
 * Writes `data` as one Zstandard frame of raw (stored) blocks (RFC 8878
 * §3.1.1): Frame_Content_Size present, no dictionary, no checksum,
 * single-segment when the content is at most 8 MiB. Returns the pieces in
 * order: frame header, then each 3-byte block header followed by a view of
 * `data` (no copy). `zstd -d` decodes the concatenation to `data`.
 *
 * Throws LIMIT_EXCEEDED when `data` is 4 GiB or more.
 */
export function rawFrameParts(data: Uint8Array): Buffer[] {
  const n = data.length;
  if (n > 0xffffffff) {
    throw new BrickpostError('LIMIT_EXCEEDED', `raw frame content of ${n} bytes exceeds 4 GiB`);
  }
  const parts: Buffer[] = [frameHeader(n)];
  const bytes = Buffer.from(data.buffer, data.byteOffset, n);
  let off = 0;
  do {
    const size = Math.min(MAX_BLOCK_SIZE, n - off);
    const last = off + size === n ? 1 : 0;
    // Block_Header (§3.1.1.2): Last_Block bit 0, Block_Type bits 1-2 (0 = Raw_Block), Block_Size bits 3-23.
    const bh = Buffer.allocUnsafe(3);
    bh.writeUIntLE((size << 3) | last, 0, 3);
    parts.push(bh);
    if (size > 0) parts.push(bytes.subarray(off, off + size));
    off += size;
  } while (off < n);
  return parts;
}

/**
 * Like rawFrameParts, but one contiguous Buffer (copies `data` once).
 *
 * Throws LIMIT_EXCEEDED when `data` is 4 GiB or more.
 */
export function rawFrame(data: Uint8Array): Buffer {
  return Buffer.concat(rawFrameParts(data));
}

/** Exact size of rawFrame(data) for content of `n` bytes. */
export function rawFrameSize(n: number): number {
  const blocks = Math.max(1, Math.ceil(n / MAX_BLOCK_SIZE));
  return frameHeaderSize(n) + 3 * blocks + n;
}

function frameHeaderSize(n: number): number {
  const single = n <= SINGLE_SEGMENT_LIMIT;
  return 4 + 1 + (single ? 0 : 1) + fcsFieldSize(n, single);
}

function fcsFieldSize(n: number, single: boolean): number {
  if (n <= 255 && single) return 1;
  if (n >= 256 && n <= 65791) return 2;
  return 4;
}

// Frame_Header (§3.1.1.1): magic, descriptor, optional window descriptor, content size.
function frameHeader(n: number): Buffer {
  const single = n <= SINGLE_SEGMENT_LIMIT;
  const fcsSize = fcsFieldSize(n, single);
  const h = Buffer.alloc(frameHeaderSize(n));
  h.writeUInt32LE(ZSTD_MAGIC, 0);
  const fcsFlag = fcsSize === 1 ? 0 : fcsSize === 2 ? 1 : 2;
  // Frame_Header_Descriptor: FCS flag bits 6-7, Single_Segment bit 5, no checksum, no dictionary.
  h[4] = (fcsFlag << 6) | (single ? 0x20 : 0);
  let off = 5;
  if (!single) {
    // Window_Descriptor: Exponent 7, Mantissa 0 → window 2^(10+7) = 128 KiB, one raw block.
    h[off++] = 7 << 3;
  }
  if (fcsSize === 1) h[off] = n;
  else if (fcsSize === 2) h.writeUInt16LE(n - 256, off);
  else h.writeUInt32LE(n, off);
  return h;
}
