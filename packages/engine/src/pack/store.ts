import type { ChunkRef } from '@brickpost/manifest';
import { releaseFrame, type Frame } from '../chunk/index.js';
import { failpoint } from '../io/failpoint.js';
import type { ShipmentRows } from './catalog-rows.js';
import type { HeldSet } from './held.js';
import type { PackInfo, PackWriter } from './pack-writer.js';

/** Starts pack `index` on data share `share`. */
export type OpenPack = (index: number, share: number) => Promise<PackWriter>;

/** A chunk read from a source file, encoded, maybe also coded as a delta against its file's basis. */
export interface ReadChunk {
  id: Buffer;
  frame: Frame;
  length: number;
  /** SHA-256 of the bytes, when a set of plain digests needs it. */
  sha?: Buffer;
  /** The delta frame, when one was tried and beat `frame`. */
  delta?: { frame: Buffer; deltaLength: number } | null;
  /** Read without a frame (`frame` is empty): its id was known to be held. */
  known?: boolean;
}

/** What the store did, for the pack summary. */
export interface StoreCounts {
  chunksDeduplicated: number;
  chunksHeld: number;
  bytesHeld: number;
  chunksDelta: number;
  bytesDelta: number;
  deltaFrameBytes: number;
}

/**
 * Turns each chunk of the shipment into a chunk ref (FORMAT.md §9.5), in
 * manifest order: a held ref when every recipient holds it, a packed ref
 * to the frame stored earlier in this shipment (never another shipment's),
 * a delta ref when a delta frame beat the chunk's own, else a new frame
 * appended to a pack. A delta-coded chunk stays out of the dedup index:
 * its frame rebuilds the chunk only against its own file's basis.
 *
 * A drive set has several data shares, each with its own open pack: a new
 * frame goes to the share with the fewest bytes, so the drives fill evenly
 * and are written at the same time. Packs are numbered as they are
 * started, using the lowest number not taken (a resumed shipment fills the
 * numbers of the packs it lost).
 */
export class ChunkStore {
  /** Each share's packs in stream order (the order they were written in). */
  readonly streams: PackInfo[][];
  readonly counts: StoreCounts = { chunksDeduplicated: 0, chunksHeld: 0, bytesHeld: 0, chunksDelta: 0, bytesDelta: 0, deltaFrameBytes: 0 };
  private readonly current: Array<PackWriter | null>;
  /** Plaintext bytes in each share's closed packs. */
  private readonly closed: number[];
  private readonly taken: Set<number>;

  constructor(
    private readonly openPack: OpenPack,
    shares: number,
    private readonly rows: ShipmentRows,
    readonly held: HeldSet,
    private readonly target: number,
    /** Packs kept from an interrupted run of this shipment. */
    kept: PackInfo[] = [],
  ) {
    this.streams = Array.from({ length: shares }, (_, i) => kept.filter((p) => p.share === i));
    this.current = new Array<PackWriter | null>(shares).fill(null);
    this.closed = new Array<number>(shares).fill(0);
    for (const p of kept) this.closed[p.share]! += p.plain;
    this.taken = new Set(kept.map((p) => p.index));
  }

  /** Whether the chunk needs storing at all: neither held nor already in this shipment. */
  isNew(id: Buffer, sha?: Buffer): boolean {
    return !(this.held.any && this.held.has(id, sha)) && !this.rows.findChunk(id);
  }

  /** A held ref, counted. */
  heldRef(id: string, length: number): ChunkRef {
    this.counts.chunksHeld++;
    this.counts.bytesHeld += length;
    return [id, length];
  }

  /** The ref of one chunk read from the source. @throws BrickpostError NO_SPACE, PERMISSION, IO */
  async ref(c: ReadChunk): Promise<ChunkRef> {
    const hex = c.id.toString('hex');
    if (this.held.any && this.held.has(c.id, c.sha)) {
      releaseFrame(c.frame);
      return this.heldRef(hex, c.length);
    }
    // Only chunks every recipient holds are read without a frame (EntryPacker.heldOf).
    if (c.known) throw new Error(`chunk ${hex} was read without its frame, but the recipients do not hold it`);
    const hit = this.rows.findChunk(c.id);
    if (hit) {
      releaseFrame(c.frame);
      this.counts.chunksDeduplicated++;
      return [hex, hit.pack, hit.offset, hit.frameLen, hit.len];
    }
    if (c.delta && c.delta.frame.length < c.frame.length) {
      releaseFrame(c.frame);
      const { pack, offset } = await this.append(c.delta.frame);
      this.counts.chunksDelta++;
      this.counts.bytesDelta += c.length;
      this.counts.deltaFrameBytes += c.delta.frame.length;
      return [hex, pack, offset, c.delta.frame.length, c.length, c.delta.deltaLength];
    }
    const { pack, offset } = await this.append(c.frame);
    this.rows.addChunk(c.id, pack, offset, c.frame.length, c.length);
    return [hex, pack, offset, c.frame.length, c.length];
  }

  private async append(frame: Frame): Promise<{ pack: number; offset: number }> {
    let share = 0;
    for (let s = 1; s < this.current.length; s++) if (this.load(s) < this.load(share)) share = s;
    let w = this.current[share];
    if (w && w.size + frame.length > this.target && w.size > 0) {
      await this.closePack(share);
      w = null;
    }
    if (!w) {
      let index = 0;
      while (this.taken.has(index)) index++;
      this.taken.add(index);
      w = this.current[share] = await this.openPack(index, share);
    }
    return { pack: w.index, offset: await w.add(frame) };
  }

  private load(share: number): number {
    return this.closed[share]! + (this.current[share]?.size ?? 0);
  }

  private async closePack(share: number): Promise<void> {
    const info = await this.current[share]!.close();
    this.current[share] = null;
    this.closed[share]! += info.plain;
    this.streams[share]!.push(info);
    this.rows.addPack(info);
    failpoint('pack-close');
  }

  /** Packs closed so far. */
  get packCount(): number {
    return this.streams.reduce((n, s) => n + s.length, 0);
  }

  /** Closes the open packs; returns every pack, by number. */
  async finish(): Promise<PackInfo[]> {
    // Each drive flushes its last pack at once: closing one after another would leave the others idle.
    await Promise.all(this.current.flatMap((w, s) => (w ? [this.closePack(s)] : [])));
    return this.streams.flat().sort((a, b) => a.index - b.index);
  }

  /** Closes the packs being written after a failure, unfinished. */
  async abort(): Promise<void> {
    for (const w of this.current) await w?.abort();
    this.current.fill(null);
  }
}
