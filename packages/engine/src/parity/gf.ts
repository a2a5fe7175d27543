/**
 * The field GF(2^8) of the parity code: bytes, added by XOR and multiplied
 * modulo the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d) with
 * generator 2, the field of ISA-L, klauspost/reedsolomon and Backblaze.
 *
 * Products come from a full 256 × 256 table (64 KiB), built once from the
 * exponent and logarithm tables. mulAddBytes, the byte-at-a-time loop over
 * that table, is the reference the WebAssembly kernel (simd.ts) is tested
 * against and the fallback where WebAssembly SIMD is missing.
 */

/** EXP[i] = 2^i for i in 0 … 509, so that EXP[LOG[a] + LOG[b]] needs no reduction. */
const EXP = new Uint8Array(510);
/** LOG[a] = i with 2^i = a, for a in 1 … 255 (LOG[0] is unused). */
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  EXP[i + 255] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}

/** MUL[a · 256 + b] = a · b. */
export const MUL = new Uint8Array(65536);
for (let a = 1; a < 256; a++) {
  for (let b = 1; b < 256; b++) MUL[a * 256 + b] = EXP[LOG[a]! + LOG[b]!]!;
}

function checkByte(what: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 255) throw new RangeError(`${what} is not a byte: ${v}`);
}

/**
 * The product a · b in GF(2^8).
 * @throws RangeError when a or b is not an integer in 0 … 255.
 */
export function gfMul(a: number, b: number): number {
  checkByte('gf factor', a);
  checkByte('gf factor', b);
  return MUL[a * 256 + b]!;
}

/**
 * The multiplicative inverse of a in GF(2^8).
 * @throws RangeError when a is 0 (which has none) or not an integer in 0 … 255.
 */
export function gfInv(a: number): number {
  checkByte('gf element', a);
  if (a === 0) throw new RangeError('gf element 0 has no inverse');
  return EXP[255 - LOG[a]!]!;
}

/**
 * The split-nibble tables of every coefficient, as the kernel reads them:
 * 32 bytes per coefficient c at c · 32, first `c · x` then `c · (x << 4)` for
 * x in 0 … 15, so that `c · v = lo[v & 15] XOR hi[v >> 4]`.
 */
export function nibbleTables(): Uint8Array {
  const t = new Uint8Array(256 * 32);
  for (let c = 0; c < 256; c++) {
    for (let x = 0; x < 16; x++) {
      t[c * 32 + x] = MUL[c * 256 + x]!;
      t[c * 32 + 16 + x] = MUL[c * 256 + (x << 4)]!;
    }
  }
  return t;
}

/**
 * `dst[x] ^= coef · src[x]` for `x < length`, one byte at a time (the
 * reference loop). The caller checks the arguments: coef a byte, length
 * within both buffers.
 */
export function mulAddBytes(dst: Uint8Array, src: Uint8Array, coef: number, length: number): void {
  if (coef === 0) return;
  if (coef === 1) {
    for (let x = 0; x < length; x++) dst[x]! ^= src[x]!;
    return;
  }
  const row = MUL.subarray(coef * 256, coef * 256 + 256);
  for (let x = 0; x < length; x++) dst[x]! ^= row[src[x]!]!;
}
