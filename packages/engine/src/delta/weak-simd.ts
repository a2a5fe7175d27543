/**
 * Weak sums of whole blocks with WebAssembly SIMD: the sums a signature
 * needs for every block of a file, about four times as fast as the JS loop
 * of weakSum (which stays the reference, and the fallback where WebAssembly
 * SIMD is missing). A signature is computed for every file version pack
 * reads, so this is on the path of every first shipment.
 *
 * For a block of B bytes (a multiple of 16) read as vectors `v_0 … v_{n−1}`
 * of 16 bytes, with S_k the byte sum of v_k and w_j = 16 − j:
 *
 *     Σ x_i            = Σ_k S_k
 *     Σ (B − i) · x_i  = 16 · Σ_k (n − 1 − k) · S_k  +  Σ_k Σ_j w_j · v_k[j]
 *
 * and Σ_k (n − 1 − k) · S_k is the sum, over k, of the byte sums of the
 * vectors before v_k. The module keeps three i32x4 accumulators (sums,
 * sums of earlier sums, weighted sums) and writes the two raw totals per
 * block; blockWeakSums adds the character offset as weakSum does. All
 * arithmetic wraps mod 2^32, which keeps the low 16 bits the sums use.
 */
import { get, i32, instantiate, moduleBytes, set, simd as simdOp, tee, v128 } from '../wasm/asm.js';
import { CHAR_OFFSET } from './sums.js';

/*
 * The module, as WAT:
 *
 *   (memory (export "mem") 1)
 *   (func (export "weak") (param $p i32) (param $end i32) (param $B i32) (param $out i32)
 *     (local $q i32) (local $stop i32) (local $s1 v128) (local $pre v128) (local $w v128) (local $v v128)
 *     block loop                                     ;; per block [p, p + B), while p < end
 *       (br_if 1 (i32.ge_u $p $end))
 *       $s1 = $pre = $w = 0;  $stop = $p + $B;  $q = $p
 *       loop                                         ;; per vector
 *         $pre += $s1
 *         $v = (v128.load $q)
 *         $s1 += extadd_pairwise_i16x8_u(extadd_pairwise_i8x16_u($v))
 *         $w += extadd_pairwise_i16x8_u(extmul_low_i8x16_u($v, W))
 *             + extadd_pairwise_i16x8_u(extmul_high_i8x16_u($v, W))   ;; W = 16, 15, …, 1
 *         $q += 16; (br_if 0 (i32.lt_u $q $stop))
 *       end
 *       (i32.store $out (hsum $s1)); (i32.store offset=4 $out (16 · hsum $pre + hsum $w))
 *       $out += 8; $p = $stop; br 0
 *     end end)
 */
function kernelBytes(): Uint8Array {
  const [addI32x4, extadd8, extadd16, mulLow, mulHigh, lane] = [simdOp(0xae), simdOp(0x7d), simdOp(0x7f), simdOp(0x9e), simdOp(0x9f), simdOp(0x1b)];
  const hsum = (l: number): number[] => [...get(l), ...lane, 0, ...get(l), ...lane, 1, 0x6a, ...get(l), ...lane, 2, 0x6a, ...get(l), ...lane, 3, 0x6a];
  const zero = v128(new Array<number>(16).fill(0));
  const weights = v128(Array.from({ length: 16 }, (_, j) => 16 - j));
  const [P, END, B, OUT, Q, STOP, S1, PRE, W, V] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const body = [
    ...[0x02, 0x40, 0x03, 0x40],
    ...get(P),
    ...get(END),
    0x4f,
    0x0d,
    1,
    ...zero,
    ...set(S1),
    ...zero,
    ...set(PRE),
    ...zero,
    ...set(W),
    ...get(P),
    ...get(B),
    0x6a,
    ...set(STOP),
    ...get(P),
    ...set(Q),
    ...[0x03, 0x40],
    ...get(PRE),
    ...get(S1),
    ...addI32x4,
    ...set(PRE),
    ...get(Q),
    ...simdOp(0x00),
    0,
    0,
    ...set(V),
    ...get(S1),
    ...get(V),
    ...extadd8,
    ...extadd16,
    ...addI32x4,
    ...set(S1),
    ...get(W),
    ...get(V),
    ...weights,
    ...mulLow,
    ...extadd16,
    ...addI32x4,
    ...get(V),
    ...weights,
    ...mulHigh,
    ...extadd16,
    ...addI32x4,
    ...set(W),
    ...get(Q),
    ...i32(16),
    0x6a,
    ...tee(Q),
    ...get(STOP),
    0x49,
    0x0d,
    0,
    0x0b,
    ...get(OUT),
    ...hsum(S1),
    0x36,
    2,
    0,
    ...get(OUT),
    ...hsum(PRE),
    ...i32(4),
    0x74,
    ...hsum(W),
    0x6a,
    0x36,
    2,
    4,
    ...get(OUT),
    ...i32(8),
    0x6a,
    ...set(OUT),
    ...get(STOP),
    ...set(P),
    ...[0x0c, 0, 0x0b, 0x0b, 0x0b],
  ];
  return moduleBytes({
    fn: 'weak',
    params: 4,
    locals: [
      [2, 0x7f],
      [4, 0x7b],
    ],
    pages: 1,
    body,
  });
}

interface Simd {
  mem: { buffer: ArrayBuffer; grow(pages: number): number };
  weak: (p: number, end: number, blockSize: number, out: number) => void;
}

/** Bytes of blocks handed to the module per call: bounds the module's memory. */
const PIECE = 1 << 20;

let simd: Simd | null | undefined;

/** The module of this thread, or null where WebAssembly SIMD is not available. */
function instance(): Simd | null {
  if (simd !== undefined) return simd;
  try {
    simd = instantiate<Simd>(kernelBytes());
  } catch {
    simd = null;
  }
  return simd;
}

/**
 * Writes into out[0 … count) the weak sums (as weakSum returns them) of the
 * `count` blocks of `blockSize` bytes (a multiple of 16) that start at
 * `data[start]`. Returns false, writing nothing, where WebAssembly SIMD is
 * not available or the block size is not a multiple of 16 up to 1 MiB.
 */
export function blockWeakSums(data: Uint8Array, start: number, count: number, blockSize: number, out: Int32Array): boolean {
  const m = blockSize % 16 === 0 && blockSize <= PIECE ? instance() : null;
  if (!m) return false;
  const perCall = Math.max(1, Math.floor(PIECE / blockSize));
  const need = perCall * blockSize + perCall * 8;
  if (m.mem.buffer.byteLength < need) m.mem.grow(Math.ceil((need - m.mem.buffer.byteLength) / 65536));
  const s1Offset = Math.imul(blockSize, CHAR_OFFSET);
  const tri = blockSize % 2 === 0 ? Math.imul(blockSize >>> 1, blockSize + 1) : Math.imul(blockSize, (blockSize + 1) >>> 1);
  const s2Offset = Math.imul(tri, CHAR_OFFSET);
  for (let done = 0; done < count;) {
    const n = Math.min(perCall, count - done);
    const bytes = n * blockSize;
    const at = start + done * blockSize;
    new Uint8Array(m.mem.buffer, 0, bytes).set(data.subarray(at, at + bytes));
    m.weak(0, bytes, blockSize, bytes);
    const raw = new Int32Array(m.mem.buffer, bytes, 2 * n);
    for (let i = 0; i < n; i++) {
      const s1 = (raw[2 * i]! + s1Offset) & 0xffff;
      const s2 = (raw[2 * i + 1]! + s2Offset) & 0xffff;
      out[done + i] = (s2 << 16) | s1;
    }
    done += n;
  }
  return true;
}
