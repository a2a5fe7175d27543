import { BrickpostError } from '@brickpost/manifest/errors';
import { blockCount, checkBlockSize, isValidBlockSize } from './block-size.js';
import { STRONG_LENGTH, strongSum, weakSum } from './sums.js';
import { blockWeakSums } from './weak-simd.js';

/*
 * Signature layout, bpsig1 (all integers big-endian):
 *
 *   offset size
 *        0    6  magic "bpsig1"
 *        6    1  weak sum id: 1 = rollsum (sums.ts weakSum)
 *        7    1  strong sum length: 8 (first bytes of SHA-256)
 *        8    4  block size B: a power of two in [2^8, 2^20]
 *       12    8  file length L: at most 2^53 − 1
 *       20  12·n per block i in 0 .. n − 1, n = ⌈L / B⌉:
 *                u32 weak sum, 8-byte strong sum of bytes [i·B, min(L, (i+1)·B))
 *
 * A reader MUST reject any other magic, sum id or length, block size or file
 * length, and a total size other than 20 + 12·n.
 */

/** First bytes of every signature. */
export const SIGNATURE_MAGIC = 'bpsig1';
const MAGIC = Buffer.from(SIGNATURE_MAGIC, 'latin1');
const WEAK_ROLLSUM = 1;
const HEADER = 20;
const ENTRY = 4 + STRONG_LENGTH;
/** Default for ParseSignatureLimits.maxBlocks: 2^24 blocks, a 1 TiB file at 64 KiB blocks (192 MiB of signature). */
const MAX_BLOCKS = 1 << 24;

/** A signature read into arrays, ready for computeDelta. Entry i describes block i of the old file. */
export interface ParsedSignature {
  readonly blockSize: number;
  /** Length in bytes of the file the signature describes. */
  readonly fileLength: number;
  /** ⌈fileLength / blockSize⌉; the last block is short when blockSize does not divide fileLength. */
  readonly blockCount: number;
  readonly weak: Int32Array;
  /** Strong sums as two big-endian 32-bit halves: bytes 0–3 in strongHi, 4–7 in strongLo. */
  readonly strongHi: Int32Array;
  readonly strongLo: Int32Array;
}

/** Bounds parseSignature enforces on untrusted input. */
export interface ParseSignatureLimits {
  /** Most blocks accepted; default 2^24. */
  maxBlocks?: number;
}

/**
 * Streams a file's bytes in and produces its bpsig1 signature: one weak and
 * one strong sum per block. Input may arrive in reads of any size; memory is
 * one block plus 12 bytes per block of output.
 */
export class SignatureBuilder {
  readonly blockSize: number;
  private readonly parts: Buffer[] = [];
  private out: Buffer;
  private outPos = 0;
  private readonly partial: Buffer;
  private partialLen = 0;
  private length = 0;
  private done = false;
  private readonly strong = new Int32Array(2);
  private weak = new Int32Array(0);

  /** Throws USAGE when `blockSize` is not a power of two in [2^8, 2^20]. */
  constructor(blockSize: number) {
    checkBlockSize(blockSize, 'signature');
    this.blockSize = blockSize;
    this.partial = Buffer.allocUnsafe(blockSize);
    this.out = Buffer.allocUnsafe(ENTRY * 4096);
  }

  /** Adds the next bytes of the file. Throws USAGE after final(). */
  update(buf: Uint8Array): this {
    if (this.done) throw new BrickpostError('USAGE', 'signature: update after final');
    const B = this.blockSize;
    let p = 0;
    this.length += buf.length;
    if (this.partialLen > 0) {
      const n = Math.min(B - this.partialLen, buf.length);
      this.partial.set(buf.subarray(0, n), this.partialLen);
      this.partialLen += n;
      p = n;
      if (this.partialLen < B) return this;
      this.addBlock(this.partial, 0, B);
      this.partialLen = 0;
    }
    const full = Math.floor((buf.length - p) / B);
    if (full > 0) {
      if (this.weak.length < full) this.weak = new Int32Array(Math.max(full, Math.min(2 * this.weak.length, 1 << 16)));
      const simd = blockWeakSums(buf, p, full, B, this.weak);
      for (let i = 0; i < full; i++, p += B) this.addBlock(buf, p, B, simd ? this.weak[i] : undefined);
    }
    if (p < buf.length) {
      this.partial.set(buf.subarray(p), 0);
      this.partialLen = buf.length - p;
    }
    return this;
  }

  /** Returns the signature. Throws USAGE when called twice or past 2^53 − 1 bytes. */
  final(): Buffer {
    if (this.done) throw new BrickpostError('USAGE', 'signature: final called twice');
    if (!Number.isSafeInteger(this.length)) throw new BrickpostError('USAGE', 'signature: file longer than 2^53 − 1 bytes');
    this.done = true;
    if (this.partialLen > 0) this.addBlock(this.partial, 0, this.partialLen);
    const header = Buffer.alloc(HEADER);
    MAGIC.copy(header, 0);
    header[6] = WEAK_ROLLSUM;
    header[7] = STRONG_LENGTH;
    header.writeUInt32BE(this.blockSize, 8);
    header.writeBigUInt64BE(BigInt(this.length), 12);
    return Buffer.concat([header, ...this.parts, this.out.subarray(0, this.outPos)]);
  }

  /** Appends the entry of one block; `weak` when its weak sum is known already. */
  private addBlock(data: Uint8Array, start: number, len: number, weak?: number): void {
    if (this.outPos + ENTRY > this.out.length) {
      this.parts.push(this.out);
      this.out = Buffer.allocUnsafe(Math.min(this.out.length * 2, ENTRY * 65536));
      this.outPos = 0;
    }
    const o = this.out;
    o.writeInt32BE(weak ?? weakSum(data, start, len), this.outPos);
    strongSum(data.subarray(start, start + len), this.strong);
    o.writeInt32BE(this.strong[0]!, this.outPos + 4);
    o.writeInt32BE(this.strong[1]!, this.outPos + 8);
    this.outPos += ENTRY;
  }
}

/**
 * Reads a bpsig1 signature, which may come from an untrusted party (a
 * subscriber's signature of its own copy). Checks every header field and the
 * exact total length before allocating anything sized by the input.
 *
 * Throws MALFORMED when the bytes are not a valid signature, LIMIT_EXCEEDED
 * when it describes more than `limits.maxBlocks` blocks.
 */
export function parseSignature(buf: Uint8Array, limits: ParseSignatureLimits = {}): ParsedSignature {
  const maxBlocks = limits.maxBlocks ?? MAX_BLOCKS;
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < HEADER || !b.subarray(0, 6).equals(MAGIC)) throw bad('does not start with a bpsig1 header');
  if (b[6] !== WEAK_ROLLSUM) throw bad(`weak sum id ${b[6]} is not ${WEAK_ROLLSUM}`);
  if (b[7] !== STRONG_LENGTH) throw bad(`strong sum length ${b[7]} is not ${STRONG_LENGTH}`);
  const blockSize = b.readUInt32BE(8);
  if (!isValidBlockSize(blockSize)) throw bad(`block size ${blockSize} is not a power of two in [2^8, 2^20]`);
  const big = b.readBigUInt64BE(12);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(`file length ${big} is over 2^53 − 1`);
  const fileLength = Number(big);
  const n = blockCount(fileLength, blockSize);
  if (b.length !== HEADER + n * ENTRY) {
    throw bad(`is ${b.length} bytes, but a file of ${fileLength} bytes in ${blockSize}-byte blocks needs ${HEADER + n * ENTRY}`);
  }
  if (n > maxBlocks) {
    throw new BrickpostError('LIMIT_EXCEEDED', `signature: ${n} blocks, more than the ${maxBlocks} allowed`);
  }
  const weak = new Int32Array(n);
  const strongHi = new Int32Array(n);
  const strongLo = new Int32Array(n);
  for (let i = 0, p = HEADER; i < n; i++, p += ENTRY) {
    weak[i] = b.readInt32BE(p);
    strongHi[i] = b.readInt32BE(p + 4);
    strongLo[i] = b.readInt32BE(p + 8);
  }
  return { blockSize, fileLength, blockCount: n, weak, strongHi, strongLo };
}

function bad(what: string): BrickpostError {
  return new BrickpostError('MALFORMED', `signature ${what}`);
}
