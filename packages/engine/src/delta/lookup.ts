import type { ParsedSignature } from './signature.js';

/**
 * Longest chain kept per table slot. Honest signatures average under one
 * block per slot (the table has at least twice as many slots as blocks, and
 * repeated blocks are stored once); a hostile one could put every block in
 * one slot, and without this cap building the table and every lookup would
 * walk them all. Blocks past the cap are left out, which can only make the
 * delta larger.
 */
const MAX_CHAIN = 64;

/**
 * A hash table from weak sum to the old file's full blocks, built once per
 * delta: `heads` is indexed by a multiplicative hash of the weak sum and
 * holds the first block of a chain continued through `next` (−1 ends).
 * Blocks with the same weak and strong sum as an earlier block are left out:
 * the earlier one copies the same bytes. The short last block, if any, is
 * not in the table; computeDelta tests it only at the end of the new file.
 */
export class BlockIndex {
  readonly heads: Int32Array;
  readonly next: Int32Array;
  readonly shift: number;
  /**
   * A bit per hash of the weak sum, set for every full block: about 32 bits
   * per block (at most 2^29 bits), so over 95 % of the offsets that match no
   * block are turned away by one bit test. The hot loop branches on this bit
   * alone; branching on the denser table mispredicted often enough to make
   * the loop three times slower.
   */
  readonly filter: Int32Array;
  readonly filterShift: number;

  constructor(readonly sig: ParsedSignature) {
    const full = Math.floor(sig.fileLength / sig.blockSize);
    let bits = 4;
    while (1 << bits < 2 * full && bits < 30) bits++;
    this.shift = 32 - bits;
    this.heads = new Int32Array(1 << bits).fill(-1);
    this.next = new Int32Array(full).fill(-1);
    const { weak, strongHi, strongLo } = sig;
    let fbits = 10;
    while (1 << fbits < 32 * full && fbits < 29) fbits++;
    this.filterShift = 32 - fbits;
    this.filter = new Int32Array(1 << (fbits - 5));
    for (let i = 0; i < full; i++) {
      const h = Math.imul(weak[i]!, 0x9e3779b1) >>> this.filterShift;
      this.filter[h >>> 5]! |= 1 << (h & 31);
    }
    // Inserted from the last block to the first so each chain lists blocks in file order.
    for (let i = full - 1; i >= 0; i--) {
      const slot = this.slot(weak[i]!);
      let len = 0;
      let dup = false;
      for (let j = this.heads[slot]!; j >= 0; j = this.next[j]!, len++) {
        if (weak[j] === weak[i] && strongHi[j] === strongHi[i] && strongLo[j] === strongLo[i]) {
          // j is later in the file than i: keep i, the earlier copy, in j's place.
          this.replace(slot, j, i);
          dup = true;
          break;
        }
      }
      if (dup || len >= MAX_CHAIN) continue;
      this.next[i] = this.heads[slot]!;
      this.heads[slot] = i;
    }
  }

  /** The table slot of a weak sum. */
  slot(weak: number): number {
    return Math.imul(weak, 0x9e3779b1) >>> this.shift;
  }

  /**
   * The first block in the chain of `weak` whose strong sum is (hi, lo), or
   * −1. The caller computes the strong sum only once some block's weak sum
   * matches (see hasWeak), as rsync does.
   */
  find(weak: number, hi: number, lo: number): number {
    const { weak: w, strongHi, strongLo } = this.sig;
    for (let j = this.heads[this.slot(weak)]!; j >= 0; j = this.next[j]!) {
      if (w[j] === weak && strongHi[j] === hi && strongLo[j] === lo) return j;
    }
    return -1;
  }

  /** True when some block in the table has weak sum `weak`. */
  hasWeak(weak: number): boolean {
    const w = this.sig.weak;
    for (let j = this.heads[this.slot(weak)]!; j >= 0; j = this.next[j]!) if (w[j] === weak) return true;
    return false;
  }

  private replace(slot: number, old: number, by: number): void {
    this.next[by] = this.next[old]!;
    if (this.heads[slot] === old) {
      this.heads[slot] = by;
      return;
    }
    let j = this.heads[slot]!;
    while (this.next[j] !== old) j = this.next[j]!;
    this.next[j] = by;
  }
}
