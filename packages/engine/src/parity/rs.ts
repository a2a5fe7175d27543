/**
 * The Reed-Solomon erasure code of the parity shares: systematic, over
 * GF(2^8) (gf.ts), with the Cauchy matrix of ISA-L's gf_gen_cauchy1_matrix.
 *
 * A (k, m) code has k data shares (indices 0 … k−1) and m parity shares
 * (indices k … k+m−1), all of one length; parity share k+j is, byte by
 * byte, `P_j` = XOR over `i < k` of `C[j][i] · D_i` with `C[j][i] = inv((k+j) XOR i)`.
 * Every square submatrix of a Cauchy matrix is invertible, so any k of the
 * k+m shares give back the others, and the first r ≤ m parity rows alone
 * are also such a code.
 *
 * The byte work runs in the WebAssembly SIMD kernel (simd.ts), or in the
 * reference loop of gf.ts where WebAssembly SIMD is missing.
 */
import { gfInv, mulAddBytes } from './gf.js';
import { invert } from './matrix.js';
import { dotProductsSimd, MAX_SOURCES } from './simd.js';

/**
 * C[j][i] of a code with k data shares: the coefficient of data share i in
 * parity row j (share k+j), inv((k + j) XOR i).
 * @throws RangeError when k is not in 1 … 256, k + j is not in k … 255, or
 * i is not in 0 … k−1.
 */
export function cauchy(k: number, j: number, i: number): number {
  checkK(k);
  if (!Number.isInteger(j) || j < 0 || k + j > 255) throw new RangeError(`parity row ${j} is out of range for k = ${k} (k + row must be at most 255)`);
  if (!Number.isInteger(i) || i < 0 || i >= k) throw new RangeError(`data share ${i} is out of range for k = ${k}`);
  return gfInv((k + j) ^ i);
}

/**
 * `dst[x] ^= coef · src[x]` for `x < length`. Coefficient 0 changes nothing,
 * 1 is a plain XOR.
 * @throws RangeError when coef is not a byte, length is not an integer
 * within both buffers, or dst and src overlap.
 */
export function mulAdd(dst: Uint8Array, src: Uint8Array, coef: number, length = src.length): void {
  checkCoefs([coef]);
  checkBuffers(length, [dst], [src]);
  dot([dst], [src], [[coef]], length, true);
}

/**
 * `dst[x]` = XOR over i of `coefs[i] · srcs[i][x]`, for `x < length` (dst is
 * overwritten; with no sources it is zeroed). The hot path of encoding and
 * reconstruction.
 * @throws RangeError when srcs and coefs differ in count, a coefficient is
 * not a byte, length is not an integer within every buffer, or dst overlaps
 * a source.
 */
export function combine(dst: Uint8Array, srcs: Uint8Array[], coefs: ArrayLike<number>, length: number): void {
  if (srcs.length !== coefs.length) throw new RangeError(`combine got ${srcs.length} sources but ${coefs.length} coefficients`);
  checkCoefs(coefs);
  checkBuffers(length, [dst], srcs);
  dot([dst], srcs, [coefs], length, false);
}

/**
 * Fills parity[j], for every `j < parity.length`, with parity row j (share
 * k+j) of the data shares, over bytes [0, length). `data` holds data
 * shares 0 … data.length−1; when it holds fewer than k, the last ones are
 * zero (a short last stripe need not pass buffers of zeros).
 * @throws RangeError when data holds no share or more than k, k +
 * parity.length exceeds 256, length is not an integer within every buffer,
 * or a parity buffer overlaps another buffer.
 */
export function encodeParity(k: number, data: Uint8Array[], parity: Uint8Array[], length: number): void {
  checkK(k);
  if (data.length < 1 || data.length > k) throw new RangeError(`encodeParity got ${data.length} data shares for k = ${k}`);
  if (k + parity.length > 256) throw new RangeError(`k = ${k} with ${parity.length} parity shares exceeds 256 shares`);
  checkBuffers(length, parity, data);
  const rows = parity.map((_, j) => cauchyRow(k, j).subarray(0, data.length));
  dot(parity, data, rows, length, false);
}

/**
 * For each wanted share index, the k coefficients over the present shares
 * (in the order given) that rebuild it: wanted = combine(present shares,
 * row). Inverts the k × k submatrix of the generator [I; C] at the present
 * rows. A wanted share that is present gets the row that copies it.
 * @throws RangeError when k and m do not make a code (k ≥ 1, m ≥ 0,
 * k + m ≤ 256), present does not list exactly k distinct share indices in
 * 0 … k+m−1, or a wanted index is out of that range.
 */
export function reconstructionMatrix(k: number, m: number, present: readonly number[], want: readonly number[]): number[][] {
  checkCode(k, m);
  if (present.length !== k) throw new RangeError(`reconstruction needs exactly k = ${k} present shares, got ${present.length}`);
  const seen = new Set<number>();
  for (const s of present) {
    checkShare(k, m, s, 'present');
    if (seen.has(s)) throw new RangeError(`present share ${s} is listed twice`);
    seen.add(s);
  }
  for (const w of want) checkShare(k, m, w, 'wanted');
  const inv = invert(present.map((s) => generatorRow(k, s)));
  return want.map((w) => {
    if (w < k) return Array.from(inv[w]!);
    const c = cauchyRow(k, w - k);
    const out = new Uint8Array(k);
    for (let t = 0; t < k; t++) mulAddBytes(out, inv[t]!, c[t]!, k);
    return Array.from(out);
  });
}

/**
 * Rebuilds the missing (null) shares of a (k, m) code from the first k
 * present ones, over bytes [0, length): each missing entry of `shares`
 * (k + m entries, by share index) is set to a new buffer of `length`
 * bytes. Returns `shares`, now complete.
 * @throws RangeError when k and m do not make a code, shares does not hold
 * k + m entries, fewer than k are present, or length is not an integer
 * within every present share.
 */
export function reconstruct(k: number, m: number, shares: Array<Uint8Array | null>, length: number): Uint8Array[] {
  checkCode(k, m);
  if (shares.length !== k + m) throw new RangeError(`reconstruct got ${shares.length} shares for a (${k}, ${m}) code`);
  const present: number[] = [];
  const missing: number[] = [];
  shares.forEach((s, i) => (s ? present : missing).push(i));
  if (present.length < k) throw new RangeError(`only ${present.length} of ${k + m} shares are present, ${k} are needed`);
  const use = present.slice(0, k);
  const srcs = use.map((i) => shares[i]!);
  checkBuffers(length, [], srcs);
  if (missing.length) {
    const out = missing.map(() => new Uint8Array(length));
    dot(out, srcs, reconstructionMatrix(k, m, use, missing), length, false);
    missing.forEach((i, r) => (shares[i] = out[r]!));
  }
  return shares as Uint8Array[];
}

/**
 * dsts[r] (^)= XOR over i of rows[r][i] · srcs[i], in SIMD or else the
 * reference loop; sources past the kernel's limit are added in a second
 * pass. At most MAX_SOURCES outputs: the callers have at most 255.
 */
function dot(dsts: Uint8Array[], srcs: Uint8Array[], rows: ArrayLike<number>[], length: number, accumulate: boolean): void {
  if (srcs.length > MAX_SOURCES) {
    const part = (from: number, to?: number) => rows.map((row) => Array.prototype.slice.call(row, from, to) as number[]);
    dot(dsts, srcs.slice(0, MAX_SOURCES), part(0, MAX_SOURCES), length, accumulate);
    dot(dsts, srcs.slice(MAX_SOURCES), part(MAX_SOURCES), length, true);
    return;
  }
  if (dotProductsSimd(dsts, srcs, rows, length, accumulate)) return;
  dsts.forEach((dst, r) => {
    if (!accumulate) dst.fill(0, 0, length);
    srcs.forEach((src, i) => mulAddBytes(dst, src, rows[r]![i]!, length));
  });
}

/** Row j of the Cauchy matrix of k data shares. */
function cauchyRow(k: number, j: number): Uint8Array {
  return Uint8Array.from({ length: k }, (_, i) => gfInv((k + j) ^ i));
}

/** Row s of the generator [I; C]: a unit vector for a data share, a Cauchy row for a parity share. */
function generatorRow(k: number, s: number): Uint8Array {
  if (s >= k) return cauchyRow(k, s - k);
  const row = new Uint8Array(k);
  row[s] = 1;
  return row;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1 || k > 256) throw new RangeError(`k = ${k} is not a data share count in 1 … 256`);
}

function checkCode(k: number, m: number): void {
  checkK(k);
  if (!Number.isInteger(m) || m < 0 || k + m > 256) throw new RangeError(`(k, m) = (${k}, ${m}) is not a code (m ≥ 0, k + m ≤ 256)`);
}

function checkShare(k: number, m: number, s: number, what: string): void {
  if (!Number.isInteger(s) || s < 0 || s >= k + m) throw new RangeError(`${what} share ${s} is not in 0 … ${k + m - 1}`);
}

function checkCoefs(coefs: ArrayLike<number>): void {
  for (let i = 0; i < coefs.length; i++) {
    const c = coefs[i];
    if (c === undefined || !Number.isInteger(c) || c < 0 || c > 255) throw new RangeError(`coefficient ${i} is not a byte: ${c}`);
  }
}

/** length fits every buffer, and no output overlaps an input or another output. */
function checkBuffers(length: number, outs: Uint8Array[], ins: Uint8Array[]): void {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`length ${length} is not a non-negative integer`);
  for (const b of [...outs, ...ins]) {
    if (b.length < length) throw new RangeError(`a buffer of ${b.length} bytes is shorter than length ${length}`);
  }
  outs.forEach((o, r) => {
    for (const b of [...outs.slice(r + 1), ...ins]) {
      if (o.buffer === b.buffer && o.byteOffset < b.byteOffset + length && b.byteOffset < o.byteOffset + length) {
        throw new RangeError('an output buffer overlaps another buffer');
      }
    }
  });
}
