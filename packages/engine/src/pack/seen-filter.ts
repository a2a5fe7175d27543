/**
 * A Bloom filter over chunk ids, in front of the catalog's dedup index: most
 * chunks of a shipment are new, and the filter answers "new" for them
 * without a SQLite lookup. Chunk ids are HMAC outputs, uniformly random, so
 * their own bytes serve as the k hash values. 10 bits per expected chunk
 * keep false positives near 1 %; memory is 1.25 bytes per chunk (12.5 MB for
 * a 10 TiB dataset at 1 MiB chunks).
 */
export class SeenFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  /** @param expected - chunks the filter should hold well (it only degrades past that). */
  constructor(expected: number) {
    let size = 1 << 16;
    while (size < expected * 10 && size < 2 ** 31) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
  }

  /** Records an id (32 bytes). */
  add(id: Buffer): void {
    for (let k = 0; k < 7; k++) {
      const h = id.readUInt32LE(k * 4) & this.mask;
      this.bits[h >>> 5]! |= 1 << (h & 31);
    }
  }

  /** False when the id was certainly never added. */
  mayHave(id: Buffer): boolean {
    for (let k = 0; k < 7; k++) {
      const h = id.readUInt32LE(k * 4) & this.mask;
      if ((this.bits[h >>> 5]! & (1 << (h & 31))) === 0) return false;
    }
    return true;
  }
}
