import type { StoredChunk } from './shipment-tables.js';

/** Bytes a row takes: the id (32), pack, frame length and length (u32 each), 4 spare, the offset (f64). */
const ROW = 56;
/**
 * Rows held at most: 3.5 MiB of rows and 0.5 MiB of slots. Twice as many
 * wrote a million-file pack's rows in half the batches, but took its peak
 * memory past 200 MB.
 */
export const PENDING_MAX = 1 << 16;
/** Rows the first buffer holds; it doubles up to PENDING_MAX. */
const FIRST = 1 << 12;

/**
 * The chunk rows of a shipment being packed that are not written to the
 * catalog yet, in memory, findable by id; written out sorted by id, a batch
 * at a time (ShipmentTables).
 *
 * Chunk ids are random, so rows written as they come each land on a random
 * page of the `chunks` table, and each commit rewrote every page its rows
 * touched, into the write-ahead log and then into the catalog file: at a
 * million small files, 5.3 GB written for a table of 103 MB, and a fifth of
 * the pack's time. Held here until a pack closes (its rows must then be
 * on disk, for pack --resume) or PENDING_MAX are waiting, a batch is
 * written in id order, which writes each page it touches once.
 *
 * Memory: ROW bytes a row, in one buffer that grows as needed, and an
 * open-addressing table of row numbers (ids are uniformly random, so their
 * first 4 bytes are the hash).
 */
export class PendingChunks {
  private rows = Buffer.allocUnsafe(FIRST * ROW);
  private count = 0;
  /** Row number + 1 per slot, 0 for empty; twice as many slots as rows, so probes stay short. */
  private readonly slots = new Int32Array(PENDING_MAX * 2);
  private readonly mask = PENDING_MAX * 2 - 1;

  /** Rows held. */
  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= PENDING_MAX;
  }

  /** Holds the row of chunk `id` (not held yet; the caller writes the batch out first when full). */
  add(id: Buffer, c: StoredChunk): void {
    if (this.count >= PENDING_MAX) throw new Error('PendingChunks.add: full; write the batch out first');
    if ((this.count + 1) * ROW > this.rows.length) {
      const more = Buffer.allocUnsafe(Math.min(this.rows.length * 2, PENDING_MAX * ROW));
      this.rows.copy(more, 0, 0, this.count * ROW);
      this.rows = more;
    }
    const at = this.count * ROW;
    const r = this.rows;
    id.copy(r, at, 0, 32);
    r.writeUInt32LE(c.pack, at + 32);
    r.writeUInt32LE(c.frameLen, at + 36);
    r.writeUInt32LE(c.len, at + 40);
    r.writeDoubleLE(c.offset, at + 48);
    let h = id.readUInt32LE(0) & this.mask;
    while (this.slots[h] !== 0) h = (h + 1) & this.mask;
    this.slots[h] = ++this.count;
  }

  /** The row of chunk `id`, if held. */
  find(id: Buffer): StoredChunk | undefined {
    const r = this.rows;
    for (let h = id.readUInt32LE(0) & this.mask; this.slots[h] !== 0; h = (h + 1) & this.mask) {
      const at = (this.slots[h]! - 1) * ROW;
      if (id.compare(r, at, at + 32, 0, 32) === 0) {
        return { pack: r.readUInt32LE(at + 32), offset: r.readDoubleLE(at + 48), frameLen: r.readUInt32LE(at + 36), len: r.readUInt32LE(at + 40) };
      }
    }
    return undefined;
  }

  /**
   * Hands every row to `write`, in order of their ids' first 4 bytes (ties
   * in the order they came), and holds none after. The id is a view of the
   * buffer, valid during the call. A throw from `write` leaves the rows
   * held (the caller's transaction is then rolled back or the pack fails).
   */
  drain(write: (id: Buffer, pack: number, offset: number, frameLen: number, len: number) => void): void {
    const n = this.count;
    if (n === 0) return;
    const r = this.rows;
    // Sort keys: the id's first 4 bytes (big-endian: the order SQLite compares blobs in) over the row number, exact in a double.
    const order = new Float64Array(n);
    for (let i = 0; i < n; i++) order[i] = r.readUInt32BE(i * ROW) * PENDING_MAX + i;
    order.sort();
    for (let k = 0; k < n; k++) {
      const i = order[k]! % PENDING_MAX;
      const at = i * ROW;
      write(r.subarray(at, at + 32), r.readUInt32LE(at + 32), r.readDoubleLE(at + 48), r.readUInt32LE(at + 36), r.readUInt32LE(at + 40));
    }
    this.count = 0;
    this.slots.fill(0);
  }
}
