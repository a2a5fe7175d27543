/**
 * A Bloom filter over chunk ids, in front of the catalog's dedup index: most
 * chunks of a shipment are new, and the filter answers "new" for them
 * without a SQLite lookup. Chunk ids are HMAC outputs, uniformly random, so
 * their own bytes serve as the k hash values.
 *
 * It grows as a scalable Bloom filter: a stage of 12 bits per chunk (false
 * positives near 0.3 %) holds a number of chunks, and once full the next
 * stage, twice as large, takes the new ones; a lookup asks every stage. So a
 * small shipment costs kilobytes rather than the whole budget. Past the
 * budget (8 MiB by default, about 4 M chunks) the last stage fills beyond
 * its size and answers "maybe" more often: more lookups, never a wrong
 * answer.
 */
export class SeenFilter {
  private readonly stages: Array<{ bits: Uint32Array; mask: number; room: number }> = [];
  private spent = 0;

  /**
   * @param first - chunks the first stage holds well
   * @param budget - bytes all stages may take together
   */
  constructor(
    first = 1 << 16,
    private readonly budget = 8 << 20,
  ) {
    this.grow(first);
  }

  /** Bytes the stages take now. */
  get bytes(): number {
    return this.spent;
  }

  private grow(chunks: number): boolean {
    let size = 1 << 16;
    while (size < chunks * 12 && size < 2 ** 31) size *= 2;
    if (this.stages.length > 0 && this.spent + size / 8 > this.budget) return false;
    this.stages.push({ bits: new Uint32Array(size / 32), mask: size - 1, room: chunks });
    this.spent += size / 8;
    return true;
  }

  /** Records an id (32 bytes). */
  add(id: Buffer): void {
    let s = this.stages[this.stages.length - 1]!;
    if (s.room === 0 && this.grow(Math.floor((2 * s.bits.length * 32) / 12))) s = this.stages[this.stages.length - 1]!;
    if (s.room > 0) s.room--;
    for (let k = 0; k < 7; k++) {
      const h = id.readUInt32LE(k * 4) & s.mask;
      s.bits[h >>> 5]! |= 1 << (h & 31);
    }
  }

  /** False when the id was certainly never added. */
  mayHave(id: Buffer): boolean {
    for (const s of this.stages) {
      let all = true;
      for (let k = 0; k < 7 && all; k++) {
        const h = id.readUInt32LE(k * 4) & s.mask;
        all = (s.bits[h >>> 5]! & (1 << (h & 31))) !== 0;
      }
      if (all) return true;
    }
    return false;
  }
}
