import { hash } from 'node:crypto';

/** Added to every byte before summing (librsync's ROLLSUM_CHAR_OFFSET), so runs of zeros still move the sums. */
export const CHAR_OFFSET = 31;

/** Bytes of SHA-256 kept as a block's strong sum. */
export const STRONG_LENGTH = 8;

/**
 * The weak sum of `data[start, start + length)`: librsync's rollsum ("rrs0":
 * modulus 2^16, character offset 31), as a signed 32-bit integer
 *
 * ```
 *     s1 = Σ (x_i + 31)                  mod 2^16
 *     s2 = Σ (length − i) · (x_i + 31)   mod 2^16     (i = 0 .. length − 1)
 *     weak = s2 << 16 | s1
 * ```
 *
 * It rolls one byte forward in O(1) (see rollWeak), which is what lets a
 * delta test every offset of the new file against every block of the old.
 */
export function weakSum(data: Uint8Array, start: number, length: number): number {
  let s1 = 0;
  let s2 = 0;
  let p = start;
  // Unrolled by four; s1 stays below 2^31 for any length ≤ 2^23 and s2 wraps mod 2^32, which keeps its low 16 bits.
  for (const stop = start + length - 3; p < stop; p += 4) {
    s1 += data[p]!;
    s2 = (s2 + s1) | 0;
    s1 += data[p + 1]!;
    s2 = (s2 + s1) | 0;
    s1 += data[p + 2]!;
    s2 = (s2 + s1) | 0;
    s1 += data[p + 3]!;
    s2 = (s2 + s1) | 0;
  }
  for (const stop = start + length; p < stop; p++) {
    s1 += data[p]!;
    s2 = (s2 + s1) | 0;
  }
  // The offset's share: length · 31 in s1 and 31 · length(length + 1)/2 in s2, both taken mod 2^16.
  s1 = (s1 + Math.imul(length, CHAR_OFFSET)) & 0xffff;
  const tri = length % 2 === 0 ? Math.imul(length >>> 1, length + 1) : Math.imul(length, (length + 1) >>> 1);
  s2 = (s2 + Math.imul(tri, CHAR_OFFSET)) & 0xffff;
  return (s2 << 16) | s1;
}

/**
 * The weak sum of the window one byte further on: `out` leaves at the front,
 * `inb` enters at the back, `length` is the window's length (librsync's
 * RollsumRotate). Inlined by hand in the delta's hot loop; this copy is the
 * reference the tests hold that loop to.
 */
export function rollWeak(weak: number, out: number, inb: number, length: number): number {
  const s1 = (weak + inb - out) & 0xffff;
  const s2 = ((weak >>> 16) + s1 - Math.imul(length, out + CHAR_OFFSET)) & 0xffff;
  return (s2 << 16) | s1;
}

/**
 * The strong sum of `data`: the first 8 bytes of its SHA-256 (OpenSSL, using
 * the CPU's SHA extensions where present), returned as two big-endian
 * signed 32-bit halves in `out[0]` and `out[1]`.
 */
export function strongSum(data: Uint8Array, out: Int32Array): void {
  const d = hash('sha256', data, 'buffer');
  out[0] = d.readInt32BE(0);
  out[1] = d.readInt32BE(4);
}
