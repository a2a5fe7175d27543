/**
 * Accumulators: sums of products in GF(2^8) kept inside the memory of a
 * WebAssembly SIMD kernel, for encoders that add many sources into the same
 * few outputs (the recovery data of a window: each block is added, with its
 * own coefficient, into the r rows of its group). A source crosses into the
 * kernel once for all its rows, and an output crosses out only when it is
 * read, where mulAdd of rs.ts copies the source, the output and the output
 * back for every row.
 *
 * The kernel multiplies by the split-nibble method of simd.ts: for a
 * coefficient c, `c · v = swizzle(lo_c, v & 15) XOR swizzle(hi_c, v >> 4)`,
 * and the nibbles of a source vector are split once for all its rows. Where
 * WebAssembly SIMD is missing, the byte loop of gf.ts does the work on
 * accumulators in an ordinary buffer.
 */
import { compile, get, i32, instantiate, load128, loadI32, moduleBytes, set, simd, store128, tee, type CompiledModule } from '../wasm/asm.js';
import { mulAddBytes, nibbleTables } from './gf.js';

/** Most bytes of all the accumulators of one instance together (the recovery writer needs at most 1 GiB). */
export const MAX_ACCUMULATOR_BYTES = 1 << 30;

/** Memory layout: tables (256 coefficients × 32 bytes), then the row list, the source block and the accumulators. */
const TABLES = 0;
const ROWS = TABLES + 256 * 32;
const PAGE = 65536;

/*
 * The module, as WAT (TABLES is 0). Row i of a call is the pair of i32 at
 * $rows + 8i: the address of its accumulator and of its coefficient's table.
 *
 *   (memory (export "mem") 1)
 *   (func (export "rows") (param $n i32) (param $len i32) (param $src i32) (param $rows i32)
 *     (local $pos i32) (local $s i32) (local $r i32) (local $end i32) (local $d i32) (local $t i32)
 *     (local $l0 v128) … (local $l3 v128) (local $h0 v128) … (local $h3 v128)
 *     (local $lo v128) (local $hi v128) (local $v v128) (local $mask v128)
 *     $mask = (i8x16.splat 15);  $end = $rows + ($n << 3)
 *     loop                                            ;; per 64 bytes of source, while pos < len
 *       $s = $src + $pos
 *       $v = (v128.load offset=16k $s)                ;; for k = 0 … 3
 *       $lk = (v128.and $v $mask);  $hk = (v128.and (i16x8.shr_u $v 4) $mask)
 *       $r = $rows
 *       loop                                          ;; per row
 *         $d = (i32.load $r) + $pos;  $t = (i32.load offset=4 $r)
 *         $lo = (v128.load $t);  $hi = (v128.load offset=16 $t)
 *         (v128.store offset=16k $d (v128.xor (v128.load offset=16k $d)   ;; for k = 0 … 3
 *           (v128.xor (i8x16.swizzle $lo $lk) (i8x16.swizzle $hi $hk))))
 *         $r += 8;  (br_if 0 (i32.lt_u $r $end))
 *       end
 *       $pos += 64;  (br_if 0 (i32.lt_u $pos $len))
 *     end)
 *
 * The high nibbles come from a 16-bit shift and the mask, as in simd.ts.
 * The kernel works in whole 64-byte groups; the caller zeroes the source
 * block up to the next multiple of 64, so that the accumulators' bytes
 * past len gain c · 0 = 0.
 */
function kernelBytes(): Uint8Array {
  const [swizzle, splat, and, xor, shr16] = [simd(0x0e), simd(0x0f), simd(0x4e), simd(0x51), simd(0x8d)];
  const [ADD, SHL, LT_U] = [0x6a, 0x74, 0x49];
  const [N, LEN, SRC, ROW_LIST, POS, S, R, END, D, T] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [L, H, LO, HI, V, MASK] = [10, 14, 18, 19, 20, 21];
  const lanes = [0, 1, 2, 3];
  const split = (k: number): number[] => [
    ...get(S),
    ...load128(16 * k),
    ...tee(V),
    ...get(MASK),
    ...and,
    ...set(L + k),
    ...get(V),
    ...i32(4),
    ...shr16,
    ...get(MASK),
    ...and,
    ...set(H + k),
  ];
  const addRow = (k: number): number[] => [
    ...get(D),
    ...get(D),
    ...load128(16 * k),
    ...get(LO),
    ...get(L + k),
    ...swizzle,
    ...get(HI),
    ...get(H + k),
    ...swizzle,
    ...xor,
    ...xor,
    ...store128(16 * k),
  ];
  const body = [
    ...i32(15),
    ...splat,
    ...set(MASK),
    ...get(ROW_LIST),
    ...get(N),
    ...i32(3),
    SHL,
    ADD,
    ...set(END),
    ...[0x03, 0x40],
    ...get(SRC),
    ...get(POS),
    ADD,
    ...set(S),
    ...lanes.flatMap(split),
    ...get(ROW_LIST),
    ...set(R),
    ...[0x03, 0x40],
    ...get(R),
    ...loadI32(0),
    ...get(POS),
    ADD,
    ...set(D),
    ...get(R),
    ...loadI32(4),
    ...tee(T),
    ...load128(TABLES),
    ...set(LO),
    ...get(T),
    ...load128(TABLES + 16),
    ...set(HI),
    ...lanes.flatMap(addRow),
    ...get(R),
    ...i32(8),
    ADD,
    ...tee(R),
    ...get(END),
    LT_U,
    0x0d,
    0,
    0x0b,
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
    fn: 'rows',
    params: 4,
    locals: [
      [6, 0x7f],
      [12, 0x7b],
    ],
    pages: 1,
    body,
  });
}

interface Kernel {
  mem: { buffer: ArrayBuffer; grow(pages: number): number };
  rows: (n: number, len: number, src: number, rows: number) => void;
}

let compiled: CompiledModule | null | undefined;

/** A new instance of the kernel, with a memory of its own of at least `bytes`; null where WebAssembly SIMD is not available. */
function newKernel(bytes: number): Kernel | null {
  if (compiled === undefined) {
    try {
      compiled = compile(kernelBytes());
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  const k = instantiate<Kernel>(compiled);
  k.mem.grow(Math.ceil(bytes / PAGE) - k.mem.buffer.byteLength / PAGE);
  return k;
}

/**
 * `count` accumulators of `size` bytes, all zero at first, that products of
 * sources add into: acc[slot] ^= c · src. Each instance owns a WebAssembly
 * memory of its own (count × size bytes, one source block and the tables);
 * calls are synchronous.
 */
export class Accumulators {
  private readonly kernel: Kernel | null;
  /** The kernel's memory, or with no kernel the accumulators alone. */
  private readonly heap: Uint8Array;
  private readonly rowList: DataView;
  /** Where the source block and the accumulators start in heap. */
  private readonly src: number;
  private readonly base: number;

  /**
   * @param opts - `simd`: false to use the byte loop of gf.ts even where
   * WebAssembly SIMD is available (the reference, for tests).
   * @throws RangeError when size is not a positive multiple of 64, count is
   * not a positive integer, count × size exceeds MAX_ACCUMULATOR_BYTES, or
   * the memory cannot be had.
   */
  constructor(
    readonly count: number,
    readonly size: number,
    opts: { simd?: boolean } = {},
  ) {
    if (!Number.isInteger(size) || size < 64 || size % 64 !== 0) throw new RangeError(`accumulator size ${size} is not a positive multiple of 64`);
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`accumulator count ${count} is not a positive integer`);
    if (count * size > MAX_ACCUMULATOR_BYTES) throw new RangeError(`${count} accumulators of ${size} bytes exceed ${MAX_ACCUMULATOR_BYTES} bytes`);
    const src = ROWS + Math.ceil((count * 8) / 64) * 64;
    this.kernel = opts.simd === false ? null : newKernel(src + size + count * size);
    this.heap = this.kernel ? new Uint8Array(this.kernel.mem.buffer) : new Uint8Array(count * size);
    if (this.kernel) this.heap.set(nibbleTables(), TABLES);
    this.rowList = new DataView(this.heap.buffer);
    this.src = src;
    this.base = this.kernel ? src + size : 0;
  }

  /**
   * For each j, accumulator slots[j] ^= coefs[j] · src over bytes
   * [0, length); the bytes past length are left alone. `src` is copied in
   * once for all the rows.
   * @throws RangeError, changing nothing, when slots and coefs differ in
   * count or there are more than `count` of them, a slot is not in
   * 0 … count−1, a coefficient is not a byte, length is not an integer
   * within src and the size, or src lies in these accumulators' memory.
   */
  mulAdd(slots: ArrayLike<number>, src: Uint8Array, coefs: ArrayLike<number>, length = src.length): void {
    if (slots.length !== coefs.length || slots.length > this.count) {
      throw new RangeError(`mulAdd got ${slots.length} slots and ${coefs.length} coefficients for ${this.count} accumulators`);
    }
    if (!Number.isInteger(length) || length < 0 || length > src.length || length > this.size) {
      throw new RangeError(`length ${length} is not within a source of ${src.length} bytes and accumulators of ${this.size}`);
    }
    if (src.buffer === this.heap.buffer) throw new RangeError("the source lies in the accumulators' memory");
    for (let j = 0; j < slots.length; j++) {
      this.checkSlot(slots[j]!);
      const c = coefs[j]!;
      if (!Number.isInteger(c) || c < 0 || c > 255) throw new RangeError(`coefficient ${j} is not a byte: ${c}`);
    }
    if (length === 0) return;
    if (!this.kernel) {
      for (let j = 0; j < slots.length; j++) mulAddBytes(this.view(slots[j]!), src, coefs[j]!, length);
      return;
    }
    let n = 0;
    for (let j = 0; j < slots.length; j++) {
      if (coefs[j] === 0) continue;
      this.rowList.setUint32(ROWS + 8 * n, this.base + slots[j]! * this.size, true);
      this.rowList.setUint32(ROWS + 8 * n + 4, TABLES + 32 * coefs[j]!, true);
      n++;
    }
    if (n === 0) return;
    this.heap.set(src.subarray(0, length), this.src);
    this.heap.fill(0, this.src + length, this.src + Math.ceil(length / 64) * 64);
    this.kernel.rows(n, length, this.src, ROWS);
  }

  /**
   * Accumulator `slot` itself, a view rather than a copy: its bytes change
   * with the next mulAdd or clear.
   * @throws RangeError when slot is not in 0 … count−1.
   */
  view(slot: number): Uint8Array {
    this.checkSlot(slot);
    const at = this.base + slot * this.size;
    return this.heap.subarray(at, at + this.size);
  }

  /** Sets every accumulator to zero. */
  clear(): void {
    this.heap.fill(0, this.base, this.base + this.count * this.size);
  }

  private checkSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.count) throw new RangeError(`slot ${slot} is not in 0 … ${this.count - 1}`);
  }
}
