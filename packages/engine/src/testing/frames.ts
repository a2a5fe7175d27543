import { frame } from '@brickpost/manifest';

/** One block of a hand-made Zstandard frame (RFC 8878 §3.1.1.2). */
export type FrameBlock = { type: 'raw'; data: Uint8Array } | { type: 'rle'; byte: number; size: number };

const MAX_BLOCK = frame.MAX_BLOCK_SIZE;

/**
 * A Zstandard frame built byte by byte, so it can say what a real encoder
 * never would: `contentSize` is written as given (or left out when
 * undefined) whatever the blocks hold. The window is 2^`windowLog` bytes
 * (default 17, 128 KiB; not single segment), no checksum, no dictionary.
 * Blocks must be at most 128 KiB.
 */
export function handmadeFrame(blocks: FrameBlock[], contentSize?: number, windowLog = 17): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(14);
  head.writeUInt32LE(frame.ZSTD_MAGIC, 0);
  let at = 6;
  // Frame_Header_Descriptor: FCS flag in bits 6-7 (0 none, 2 four bytes, 3 eight bytes).
  if (contentSize === undefined) head[4] = 0;
  else if (contentSize <= 0xffffffff) {
    head[4] = 2 << 6;
    head.writeUInt32LE(contentSize, at);
    at += 4;
  } else {
    head[4] = 3 << 6;
    head.writeBigUInt64LE(BigInt(contentSize), at);
    at += 8;
  }
  // Window_Descriptor: exponent windowLog − 10, mantissa 0 → 2^windowLog bytes.
  head[5] = (windowLog - 10) << 3;
  parts.push(head.subarray(0, at));
  blocks.forEach((b, k) => {
    const last = k === blocks.length - 1 ? 1 : 0;
    const bh = Buffer.alloc(3);
    if (b.type === 'raw') {
      bh.writeUIntLE((b.data.length << 3) | last, 0, 3);
      parts.push(bh, Buffer.from(b.data));
    } else {
      bh.writeUIntLE((b.size << 3) | (1 << 1) | last, 0, 3);
      parts.push(bh, Buffer.from([b.byte]));
    }
  });
  return Buffer.concat(parts);
}

/**
 * A decompression bomb: a frame of a few bytes per 128 KiB (RLE blocks of
 * zeros) that really decodes to `declared` bytes and says so in its header.
 */
export function bombFrame(declared: number): Buffer {
  const blocks: FrameBlock[] = [];
  for (let left = declared; left > 0; left -= MAX_BLOCK) blocks.push({ type: 'rle', byte: 0, size: Math.min(MAX_BLOCK, left) });
  return handmadeFrame(blocks, declared);
}

/**
 * A frame of raw blocks holding `data` whose header declares `declared`
 * bytes of content (undefined: declares nothing), with a window of
 * 2^`windowLog` bytes (default 128 KiB).
 */
export function lyingFrame(data: Uint8Array, declared: number | undefined, windowLog?: number): Buffer {
  const blocks: FrameBlock[] = [];
  for (let off = 0; off < data.length || blocks.length === 0; off += MAX_BLOCK) {
    blocks.push({ type: 'raw', data: data.subarray(off, Math.min(data.length, off + MAX_BLOCK)) });
  }
  return handmadeFrame(blocks, declared, windowLog);
}
