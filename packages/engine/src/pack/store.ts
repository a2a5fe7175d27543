import type { age, ChunkRef } from '@brickpost/manifest';
import type { ShipmentRows } from './catalog-rows.js';
import type { HeldSet } from './held.js';
import { PackWriter, type PackInfo } from './pack-writer.js';

/** A chunk read from a source file, encoded, maybe also coded as a delta against its file's basis. */
export interface ReadChunk {
  id: Buffer;
  frame: Buffer;
  length: number;
  /** SHA-256 of the bytes, when a set of plain digests needs it. */
  sha?: Buffer;
  /** The delta frame, when one was tried and beat `frame`. */
  delta?: { frame: Buffer; deltaLength: number } | null;
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
 * appended to the current pack. A delta-coded chunk stays out of the dedup
 * index: its frame rebuilds the chunk only against its own file's basis.
 */
export class ChunkStore {
  readonly packs: PackInfo[] = [];
  readonly counts: StoreCounts = { chunksDeduplicated: 0, chunksHeld: 0, bytesHeld: 0, chunksDelta: 0, bytesDelta: 0, deltaFrameBytes: 0 };
  private current: PackWriter | null = null;

  constructor(
    private readonly dir: string,
    private readonly recipients: age.Recipient[],
    private readonly shipmentId: string,
    private readonly rows: ShipmentRows,
    readonly held: HeldSet,
    private readonly target: number,
  ) {}

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
    if (this.held.any && this.held.has(c.id, c.sha)) return this.heldRef(hex, c.length);
    const hit = this.rows.findChunk(c.id);
    if (hit) {
      this.counts.chunksDeduplicated++;
      return [hex, hit.pack, hit.offset, hit.frameLen, hit.len];
    }
    if (c.delta && c.delta.frame.length < c.frame.length) {
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

  private async append(frame: Buffer): Promise<{ pack: number; offset: number }> {
    if (this.current && this.current.size + frame.length > this.target && this.current.size > 0) await this.closePack();
    this.current ??= await PackWriter.create(this.dir, this.packs.length, this.recipients, this.shipmentId);
    return { pack: this.current.index, offset: await this.current.add(frame) };
  }

  private async closePack(): Promise<void> {
    const info = await this.current!.close();
    this.current = null;
    this.packs.push(info);
    this.rows.addPack(info);
  }

  /** Closes the last pack; returns every pack. */
  async finish(): Promise<PackInfo[]> {
    if (this.current) await this.closePack();
    return this.packs;
  }

  /** Removes the pack being written after a failure. */
  async abort(): Promise<void> {
    await this.current?.abort();
    this.current = null;
  }
}
