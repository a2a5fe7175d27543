/**
 * Dot products of shares in GF(2^8) with WebAssembly SIMD: dst = XOR of
 * c_i · src_i, sixteen bytes at a time, by the split-nibble method (ISA-L's):
 * for a coefficient c, `lo[x] = c · x` and `hi[x] = c · (x << 4)` for `x < 16`,
 * and `c · v = swizzle(lo, v & 15) XOR swizzle(hi, v >> 4)`. About twenty times
 * the speed of the byte loop of gf.ts, which stays the reference and the
 * fallback where WebAssembly SIMD is missing.
 *
 * The module's memory holds, at fixed places, the 32-byte tables of all 256
 * coefficients (written once), the coefficient bytes of the call, one block
 * of output and one block of every source. A call copies its sources into
 * memory one block at a time (block × sources ≤ 1 MiB, so they stay in
 * cache), runs the kernel once per output row, which keeps four vectors of
 * the output in registers while it walks all the sources, and copies the
 * block of each output back: each byte of each buffer crosses once.
 */
import { get, i32, instantiate, load128 as load, moduleBytes, set, simd, store128 as store, tee } from '../wasm/asm.js';
import { nibbleTables } from './gf.js';

/** Largest block of one share, and the bytes of all sources' blocks together. */
const MAX_BLOCK = 1 << 16;
const SRC_BYTES = 1 << 20;
/** Memory layout: tables, coefficient bytes (≤ 256 rows × 256 sources), output block, source blocks. */
const TABLES = 0;
const COEFS = TABLES + 256 * 32;
const DST = COEFS + 256 * 256;
const SRC = DST + MAX_BLOCK;
const PAGES = Math.ceil((SRC + SRC_BYTES) / 65536);

/** Most sources one call of dotProductsSimd takes (as many rows: the coefficient area is 256 × 256). */
export const MAX_SOURCES = 256;

/*
 * The module, as WAT (TABLES is 0; DST and SRC are the constants above):
 *
 *   (memory (export "mem") PAGES)
 *   (func (export "dot") (param $n i32) (param $len i32) (param $stride i32) (param $coefs i32) (param $acc i32)
 *     (local $pos i32) (local $p i32) (local $c i32) (local $end i32) (local $t i32)
 *     (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
 *     (local $lo v128) (local $hi v128) (local $v v128) (local $mask v128)
 *     $mask = (i8x16.splat 15)
 *     loop                                            ;; per 64 bytes of output, while pos < len
 *       if $acc  $a0…$a3 = (v128.load offset=DST+0/16/32/48 $pos)  else  $a0…$a3 = 0  end
 *       $p = $pos;  $c = $coefs;  $end = $coefs + $n
 *       loop                                          ;; per source
 *         $t = (i32.load8_u $c) << 5;  $lo = (v128.load $t);  $hi = (v128.load offset=16 $t)
 *         $v = (v128.load offset=SRC+16k $p)           ;; for k = 0 … 3
 *         $ak ^= (i8x16.swizzle $lo (v128.and $v $mask))
 *              ^ (i8x16.swizzle $hi (v128.and (i16x8.shr_u $v 4) $mask))
 *         $p += $stride;  $c += 1;  (br_if 0 (i32.lt_u $c $end))
 *       end
 *       (v128.store offset=DST+16k $pos $ak)           ;; for k = 0 … 3
 *       $pos += 64;  (br_if 0 (i32.lt_u $pos $len))
 *     end)
 *
 * The high nibbles come from a 16-bit shift and the mask: the same bytes as
 * i8x16.shr_u, which V8 emulates on x64 with five instructions (the kernel
 * is a third faster for it). The kernel writes whole 64-byte groups: up to
 * 63 bytes past len in the output block, made from bytes past len in the
 * source blocks, are garbage the caller does not copy out.
 */
function kernelBytes(): Uint8Array {
  const [swizzle, splat, and, xor, shr16] = [simd(0x0e), simd(0x0f), simd(0x4e), simd(0x51), simd(0x8d)];
  const zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];
  const [ADD, SHL, LT_U, LOAD8_U] = [0x6a, 0x74, 0x49, 0x2d];
  const [N, LEN, STRIDE, COEF, ACC, POS, P, C, END, T] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [A, LO, HI, V, MASK] = [10, 14, 15, 16, 17];
  const lanes = [0, 1, 2, 3];
  const product = (k: number): number[] => [
    ...get(A + k),
    ...get(LO),
    ...get(P),
    ...load(SRC + 16 * k),
    ...tee(V),
    ...get(MASK),
    ...and,
    ...swizzle,
    ...xor,
    ...get(HI),
    ...get(V),
    ...i32(4),
    ...shr16,
    ...get(MASK),
    ...and,
    ...swizzle,
    ...xor,
    ...set(A + k),
  ];
  const body = [
    ...i32(15),
    ...splat,
    ...set(MASK),
    ...[0x03, 0x40],
    ...get(ACC),
    0x04,
    0x40,
    ...lanes.flatMap((k) => [...get(POS), ...load(DST + 16 * k), ...set(A + k)]),
    0x05,
    ...lanes.flatMap((k) => [...zero, ...set(A + k)]),
    0x0b,
    ...get(POS),
    ...set(P),
    ...get(COEF),
    ...set(C),
    ...get(COEF),
    ...get(N),
    ADD,
    ...set(END),
    ...[0x03, 0x40],
    ...get(C),
    LOAD8_U,
    0,
    0,
    ...i32(5),
    SHL,
    ...tee(T),
    ...load(TABLES),
    ...set(LO),
    ...get(T),
    ...load(TABLES + 16),
    ...set(HI),
    ...lanes.flatMap(product),
    ...get(P),
    ...get(STRIDE),
    ADD,
    ...set(P),
    ...get(C),
    ...i32(1),
    ADD,
    ...tee(C),
    ...get(END),
    LT_U,
    0x0d,
    0,
    0x0b,
    ...lanes.flatMap((k) => [...get(POS), ...get(A + k), ...store(DST + 16 * k)]),
    ...get(POS),
    ...i32(64),
    ADD,
    ...tee(POS),
    ...get(LEN),
    LT_U,
    0x0d,
    0,
    ...[0x0b, 0x0b],
  ];
  return moduleBytes({
    fn: 'dot',
    params: 5,
    locals: [
      [5, 0x7f],
      [8, 0x7b],
    ],
    pages: PAGES,
    body,
  });
}

interface Kernel {
  heap: Uint8Array;
  dot: (n: number, len: number, stride: number, coefs: number, acc: number) => void;
}

let kernel: Kernel | null | undefined;

/** The kernel of this thread, or null where WebAssembly SIMD is not available. */
function instance(): Kernel | null {
  if (kernel !== undefined) return kernel;
  try {
    const e = instantiate<{ mem: { buffer: ArrayBuffer }; dot: Kernel['dot'] }>(kernelBytes());
    const heap = new Uint8Array(e.mem.buffer);
    heap.set(nibbleTables(), TABLES);
    kernel = { heap, dot: e.dot };
  } catch {
    kernel = null;
  }
  return kernel;
}

/** Indices of the sources some row uses, reused from call to call. */
const used = new Uint16Array(MAX_SOURCES);

/**
 * dsts[r] = XOR over i of rows[r][i] · srcs[i], over bytes [0, length) —
 * or, with `accumulate`, dsts[r] ^= that sum. Returns false, writing
 * nothing, where WebAssembly SIMD is not available.
 *
 * The caller checks the arguments: at most MAX_SOURCES sources and as
 * many rows, each row a coefficient byte per source, every buffer at
 * least `length` long, and no output overlapping a source or another
 * output. Not reentrant (one module per thread; calls are synchronous).
 */
export function dotProductsSimd(dsts: Uint8Array[], srcs: Uint8Array[], rows: ArrayLike<number>[], length: number, accumulate: boolean): boolean {
  const k = instance();
  if (!k) return false;
  if (length === 0) return true;
  const heap = k.heap;
  let n = 0;
  for (let i = 0; i < srcs.length; i++) {
    for (const row of rows) {
      if (row[i] !== 0) {
        used[n++] = i;
        break;
      }
    }
  }
  if (n === 0) {
    if (!accumulate) for (const d of dsts) d.fill(0, 0, length);
    return true;
  }
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let a = 0; a < n; a++) heap[COEFS + r * n + a] = row[used[a]!]!;
  }
  const block = Math.min(MAX_BLOCK, Math.floor(SRC_BYTES / n / 64) * 64);
  for (let off = 0; off < length; off += block) {
    const len = Math.min(block, length - off);
    for (let a = 0; a < n; a++) heap.set(srcs[used[a]!]!.subarray(off, off + len), SRC + a * block);
    for (let r = 0; r < dsts.length; r++) {
      const dst = dsts[r]!;
      if (accumulate) heap.set(dst.subarray(off, off + len), DST);
      k.dot(n, len, block, COEFS + r * n, accumulate ? 1 : 0);
      dst.set(heap.subarray(DST, DST + len), off);
    }
  }
  return true;
}
