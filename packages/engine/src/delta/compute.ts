import { BrickpostError } from '@brickpost/manifest/errors';
import { BlockIndex } from './lookup.js';
import type { DeltaOp } from './op.js';
import type { ParsedSignature } from './signature.js';
import { rollWeak, strongSum, weakSum } from './sums.js';

/** Options of computeDelta. */
export interface ComputeDeltaOptions {
  /** Longest literal op, in bytes; pending literal bytes are flushed at this size. Default 1 MiB, in [1 KiB, 64 MiB]. */
  maxLiteral?: number;
  /** Stops the delta; the generator then throws CANCELLED. */
  signal?: AbortSignal;
}

const DEFAULT_MAX_LITERAL = 1 << 20;
/** Most bytes taken from one input buffer at a time, so a huge input buffer is not copied whole. */
const SLICE = 1 << 20;
/** Weak-sum matches whose strong sum may fail before the miss budget starts. */
const MISS_SLACK = 1024;
/** Failed strong sums allowed per block of new data, after the slack. */
const MISS_RATE = 4;

/**
 * Computes the delta of the new file `newData` against the old file that
 * `sig` describes (rsync's algorithm, Tridgell and Mackerras 1996, §3): the
 * weak sum of a block-sized window is rolled over every offset of the new
 * file; where it equals the weak sum of an old block, the strong sum decides,
 * and a match becomes a copy of that block and moves the window a whole
 * block on. Bytes between matches become literals. The block after the last
 * copied one is tried first, so runs of blocks become one copy op.
 *
 * The short last block of the old file (when the block size does not divide
 * its length) is matched only at the very end of the new file, as in rsync.
 * Weak matches whose strong sum then fails are capped (1024, then 4 per
 * block of new data; past that weak matches are skipped), so a forged
 * signature whose weak sums match everywhere cannot make the delta hash
 * every offset.
 *
 * Input buffers may have any size. Memory stays near 2 × maxLiteral +
 * blockSize + 1 MiB beyond the signature's own arrays and a table of about
 * 12 bytes per block: the unmatched bytes are flushed as a literal op when
 * they reach maxLiteral, and an op owns its bytes (they are copied out).
 *
 * Throws USAGE for bad options or input that is not bytes, CANCELLED when
 * `signal` aborts, and whatever `newData` throws.
 */
export async function* computeDelta(
  sig: ParsedSignature,
  newData: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  opts: ComputeDeltaOptions = {},
): AsyncGenerator<DeltaOp> {
  const maxLiteral = opts.maxLiteral ?? DEFAULT_MAX_LITERAL;
  if (!Number.isInteger(maxLiteral) || maxLiteral < 1024 || maxLiteral > 64 << 20) {
    throw new BrickpostError('USAGE', `computeDelta: maxLiteral ${String(maxLiteral)} is not an integer in [1024, 2^26]`);
  }
  const s = new Scanner(sig, maxLiteral);
  const B = sig.blockSize;
  const it = Symbol.asyncIterator in newData ? newData[Symbol.asyncIterator]() : newData[Symbol.iterator]();
  let cur: Uint8Array = new Uint8Array(0);
  let curOff = 0;
  let eof = false;
  let stuck = false;
  try {
    for (;;) {
      if (stuck || s.end - s.pos < B) {
        if (eof) {
          s.finish();
          yield* s.take();
          return;
        }
        if (curOff === cur.length) {
          if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', 'delta cancelled');
          const r = await it.next();
          if (r.done) {
            eof = true;
            continue;
          }
          if (!(r.value instanceof Uint8Array)) throw new BrickpostError('USAGE', 'computeDelta: new data yielded something other than bytes');
          cur = r.value;
          curOff = 0;
          continue;
        }
        const n = Math.min(cur.length - curOff, SLICE);
        s.append(cur, curOff, n);
        curOff += n;
        stuck = false;
        continue;
      }
      const block = s.scan();
      if (block >= 0) s.matched(block);
      else if (s.pos - s.lit >= maxLiteral) s.flushLiteral(s.pos);
      else stuck = true;
      if (s.out.length > 0) yield* s.take();
    }
  } finally {
    if (!eof) await it.return?.();
  }
}

/** The state of one delta: a window into `work`, the pending literal before it and the pending copy run. */
class Scanner {
  readonly out: DeltaOp[] = [];
  readonly work: Buffer;
  /** Start of the window, end of the valid bytes, start of the pending literal; lit ≤ pos ≤ end. */
  pos = 0;
  end = 0;
  lit = 0;
  /** Bytes dropped from the front of `work` so far: work[i] is byte dropped + i of the new file. */
  private dropped = 0;
  /** Strong sums computed on a weak match that then matched no block. */
  private misses = 0;
  private rolling = false;
  private weak = 0;
  private pendBlock = -1;
  private pendCount = 0;
  private readonly index: BlockIndex;
  private readonly full: number;
  private readonly strong = new Int32Array(2);

  constructor(
    private readonly sig: ParsedSignature,
    private readonly maxLiteral: number,
  ) {
    this.index = new BlockIndex(sig);
    this.full = Math.floor(sig.fileLength / sig.blockSize);
    this.work = Buffer.allocUnsafeSlow(maxLiteral + sig.blockSize + SLICE);
  }

  /** Appends n bytes of src; moves the pending literal and window to the front first when they would not fit. */
  append(src: Uint8Array, off: number, n: number): void {
    if (this.end + n > this.work.length) {
      this.work.copyWithin(0, this.lit, this.end);
      this.dropped += this.lit;
      this.pos -= this.lit;
      this.end -= this.lit;
      this.lit = 0;
    }
    this.work.set(src.subarray(off, off + n), this.end);
    this.end += n;
  }

  /**
   * Tests the window at pos and rolls it on, byte by byte, until a block
   * matches (returns its index, pos at the match), the window reaches the end
   * of the valid bytes or the pending literal reaches maxLiteral (returns −1).
   */
  scan(): number {
    const B = this.sig.blockSize;
    if (!this.rolling) {
      const b = this.nextInRun(this.pos);
      if (b >= 0) return b;
      this.weak = weakSum(this.work, this.pos, B);
      this.rolling = true;
    }
    for (;;) {
      if (this.roll()) {
        const b = this.match(this.weak, this.pos);
        if (b >= 0) return b;
      }
      if (this.pos >= Math.min(this.end - B, this.lit + this.maxLiteral)) return -1;
      this.step();
    }
  }

  /**
   * The hot loop: rolls the window on until the filter admits its weak sum
   * (returns true) or it can go no further (false). Kept apart from the
   * table walk and strong sums, which made the loop twice as slow when
   * compiled into it.
   */
  private roll(): boolean {
    const w = this.work;
    const B = this.sig.blockSize;
    const { filter, filterShift } = this.index;
    const stop = Math.min(this.end - B, this.lit + this.maxLiteral);
    let pos = this.pos;
    let weak = this.weak;
    let s1 = weak & 0xffff;
    let s2 = weak >>> 16;
    let hit = false;
    for (;;) {
      weak = (s2 << 16) | s1;
      const h = Math.imul(weak, 0x9e3779b1) >>> filterShift;
      if ((filter[h >>> 5]! & (1 << (h & 31))) !== 0) {
        hit = true;
        break;
      }
      if (pos >= stop) break;
      // librsync's RollsumRotate, mod 2^16 (rollWeak, inlined).
      const out = w[pos]!;
      s1 = (s1 + w[pos + B]! - out) & 0xffff;
      s2 = (s2 + s1 - Math.imul(B, out + 31)) & 0xffff;
      pos++;
    }
    this.pos = pos;
    this.weak = weak;
    return hit;
  }

  /** Moves the window one byte on. */
  private step(): void {
    const pos = this.pos;
    this.weak = rollWeak(this.weak, this.work[pos]!, this.work[pos + this.sig.blockSize]!, this.sig.blockSize);
    this.pos = pos + 1;
  }

  /**
   * Right after a copy, the block that continues the run if the window holds
   * it, else −1. Only the strong sum is compared: in matching data this
   * skips the weak sum of every block after the first, and the weak sum adds
   * nothing to a strong match's odds that the final chunk-id check needs.
   */
  private nextInRun(pos: number): number {
    const expect = this.pendCount > 0 ? this.pendBlock + this.pendCount : -1;
    if (expect < 0 || expect >= this.full) return -1;
    strongSum(this.work.subarray(pos, pos + this.sig.blockSize), this.strong);
    return this.strong[0] === this.sig.strongHi[expect] && this.strong[1] === this.sig.strongLo[expect] ? expect : -1;
  }

  /** Records a match of the window at pos with `block`: literal before it, copy, window a block on. */
  matched(block: number): void {
    if (this.pos > this.lit) this.flushLiteral(this.pos);
    this.addCopy(block);
    this.pos += this.sig.blockSize;
    this.lit = this.pos;
    this.rolling = false;
  }

  /** Emits the pending literal up to `stop` (after the pending copy, which it ends). */
  flushLiteral(stop: number): void {
    this.flushCopy();
    for (let a = this.lit; a < stop;) {
      const n = Math.min(stop - a, this.maxLiteral);
      const data = Buffer.allocUnsafe(n);
      this.work.copy(data, 0, a, a + n);
      this.out.push({ op: 'literal', data });
      a += n;
    }
    this.lit = stop;
  }

  /** At the end of the new file: the old file's short last block if the new file ends with it, then what is left. */
  finish(): void {
    const { fileLength, blockSize, blockCount } = this.sig;
    const tail = fileLength % blockSize;
    if (tail > 0 && this.end - this.lit >= tail) {
      const start = this.end - tail;
      const t = blockCount - 1;
      if (weakSum(this.work, start, tail) === this.sig.weak[t]) {
        strongSum(this.work.subarray(start, this.end), this.strong);
        if (this.strong[0] === this.sig.strongHi[t] && this.strong[1] === this.sig.strongLo[t]) {
          if (start > this.lit) this.flushLiteral(start);
          this.addCopy(t);
          this.lit = this.end;
        }
      }
    }
    if (this.end > this.lit) this.flushLiteral(this.end);
    this.flushCopy();
  }

  /** The ops produced since the last call. */
  *take(): Generator<DeltaOp> {
    for (const op of this.out) yield op;
    this.out.length = 0;
  }

  /** The block whose sums the window at pos has, trying the block after the pending copy run first; −1 if none. */
  private match(weak: number, pos: number): number {
    const expect = this.pendCount > 0 ? this.pendBlock + this.pendCount : -1;
    const adjacent = expect >= 0 && expect < this.full && this.sig.weak[expect] === weak;
    if (!adjacent && !this.index.hasWeak(weak)) return -1;
    const B = this.sig.blockSize;
    // A forged signature can make the weak sum match at every offset; after MISS_SLACK misses, allow MISS_RATE per
    // block of input, so hashing stays within a few times the file's size. Honest data stays far below.
    if (this.misses > MISS_SLACK + (MISS_RATE * (this.dropped + pos)) / B) return -1;
    strongSum(this.work.subarray(pos, pos + B), this.strong);
    const hi = this.strong[0]!;
    const lo = this.strong[1]!;
    if (adjacent && this.sig.strongHi[expect] === hi && this.sig.strongLo[expect] === lo) return expect;
    const b = this.index.find(weak, hi, lo);
    if (b < 0) this.misses++;
    return b;
  }

  private addCopy(block: number): void {
    if (this.pendCount > 0 && this.pendBlock + this.pendCount === block) {
      this.pendCount++;
      return;
    }
    this.flushCopy();
    this.pendBlock = block;
    this.pendCount = 1;
  }

  private flushCopy(): void {
    if (this.pendCount === 0) return;
    this.out.push({ op: 'copy', block: this.pendBlock, count: this.pendCount });
    this.pendCount = 0;
  }
}
