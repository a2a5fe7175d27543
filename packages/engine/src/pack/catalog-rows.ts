import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { toField } from '@brickpost/manifest';
import { datasetNamed, insertDataset } from '../catalog/published.js';
import { ShipmentTables, type StoredChunk } from '../catalog/shipment-tables.js';
import type { Context } from '../context.js';
import type { SourceEntry } from '../scan/index.js';
import type { ChainPlan } from './chain.js';
import type { PackInfo } from './pack-writer.js';
import type { Layout } from './resume.js';
import { markSealed } from './sealing.js';
import { SeenFilter } from './seen-filter.js';

/** A file version's signature as the worker computed it. */
export interface NewSignature {
  blockSize: number;
  length: number;
  sig: Buffer;
}

/**
 * Tree rows written in one catalog transaction before it is committed
 * (chunk rows wait in ShipmentTables and are written, sorted, when a pack
 * closes, which commits). Each
 * commit syncs the WAL (synchronous = FULL) and rewrites the index pages
 * the transaction touched, so fewer, larger transactions cost less per
 * file; nothing depends on the rows between commits (a closed pack
 * commits its chunks at once, and an interrupted tree is built again).
 */
const TX_ROWS = 32768;

/** Rows of a run of stat-cache hits copied in one statement at most. */
const RUN_ROWS = 4096;

/** Stat-cache hits waiting to be copied: rows `from` to `to` of the tree of `ref`, all of them, in path order. */
interface HeldRun {
  ref: string;
  from: string;
  to: string;
  rows: number;
}

/** A dataset this home publishes. */
export interface Dataset {
  id: string;
  name: string;
  secret: Buffer;
}

/** The dataset `name` of this publisher, created with a fresh secret on first use. */
export function openDataset(ctx: Context, name: string, publisher: string): Dataset {
  const row = datasetNamed(ctx.catalog, publisher, name);
  if (row) return row;
  const d: Dataset = { id: randomBytes(8).toString('hex'), name, secret: randomBytes(32) };
  insertDataset(ctx.catalog, d, publisher, new Date().toISOString());
  return d;
}

/**
 * The catalog rows of one shipment being packed: its place in the dataset's
 * chain, every chunk stored (which doubles as the in-shipment dedup index,
 * so memory does not grow with the dataset), and its tree (files, distinct
 * chunk ids, signatures). Inserts are batched in transactions; a failed
 * pack deletes the shipment, and its rows with it.
 */
export class ShipmentRows {
  readonly seq: number;
  readonly parent: string | null;
  readonly created: string = new Date().toISOString();
  private pendingInTx = 0;
  private readonly tables: ShipmentTables;
  private readonly seen = new SeenFilter();
  private run: HeldRun | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly dataset: Dataset,
    readonly id: string,
    label: string,
    recipients: string[],
    plan: ChainPlan,
    against: string | null,
    layout: Layout,
    /** An interrupted run of this shipment to continue: its creation time and the packs kept. */
    resume?: { created: string; kept: PackInfo[] },
  ) {
    this.seq = plan.seq;
    this.parent = plan.parent;
    if (resume) this.created = resume.created;
    const bases = JSON.stringify(plan.bases.map((b) => [b.shipmentId, b.seq]));
    ctx.catalog.tx(() => {
      if (resume) {
        // The tree is built again from the source; chunks stay only where a kept pack holds them.
        ShipmentTables.reopen(
          ctx.catalog,
          id,
          resume.kept.map((p) => p.index),
        );
        return;
      }
      ShipmentTables.create(
        ctx.catalog,
        { id, datasetId: dataset.id, seq: this.seq, parent: this.parent, label, createdAt: this.created, bases, against, layout: JSON.stringify(layout) },
        recipients,
      );
    });
    this.tables = new ShipmentTables(ctx.catalog, dataset.id, id);
    if (resume) for (const c of this.tables.chunkIds()) this.seen.add(c);
    this.tables.begin();
  }

  private tick(): void {
    if (++this.pendingInTx >= TX_ROWS) {
      this.tables.commit(true);
      this.pendingInTx = 0;
    }
  }

  /**
   * Adds a file to the shipment's tree with its chunk list and signature:
   * a new one (stored once per content key), or the sig id a stat-cache hit
   * kept, or none. Returns the sig id.
   */
  addTreeFile(e: SourceEntry, chunks: Buffer, sig: NewSignature | number | null): number | null {
    let sigId: number | null = typeof sig === 'number' ? sig : null;
    if (sig !== null && typeof sig === 'object') {
      const content = createHash('sha256').update(chunks).digest();
      sigId = this.tables.sigId(content, sig.blockSize, sig.length, sig.sig);
    }
    this.tables.addTreeFile({
      path: toField(e.path),
      size: e.size,
      mode: e.mode,
      mtimeNs: e.mtimeNs.toString(),
      ctimeNs: e.ctimeNs.toString(),
      ino: e.ino.toString(),
      chunks,
      sigId,
    });
    this.tick();
    return sigId;
  }

  /**
   * Adds a file whose row of the reference tree `ref`, at `path`, is the
   * row this tree needs (a stat-cache hit that compared every field the row
   * holds but the chunk list and signature, which it keeps), with its chunk
   * ids. `prev` is the path of the row before it in that tree, when known:
   * hits that follow each other there are copied together in SQL, a run at
   * a time, instead of a statement per file and per chunk.
   */
  addHeldFile(ref: string, path: string, prev: string | null): void {
    const r = this.run;
    if (r && r.ref === ref && prev !== null && r.to === prev && r.rows < RUN_ROWS) {
      r.to = path;
      r.rows++;
      return;
    }
    this.flushHeld();
    this.run = { ref, from: path, to: path, rows: 1 };
  }

  /** Copies the run of stat-cache hits waiting. */
  private flushHeld(): void {
    const r = this.run;
    if (!r) return;
    this.run = null;
    this.tables.copyTreeRows(r.ref, r.from, r.to);
    this.pendingInTx += r.rows;
    this.tick();
  }

  /** Where this shipment already stored chunk `id`, if it did. */
  findChunk(id: Buffer): StoredChunk | undefined {
    if (!this.seen.mayHave(id)) return undefined;
    return this.tables.findChunk(id);
  }

  addChunk(id: Buffer, pack: number, offset: number, frameLen: number, len: number): void {
    this.seen.add(id);
    // Held until its batch is written (ShipmentTables.writeChunks): it costs the transaction nothing now.
    this.tables.addChunk(id, { pack, offset, frameLen, len });
  }

  addPack(p: PackInfo): void {
    this.tables.addPack(p);
    // A closed pack and its chunks survive a crash: pack --resume keeps them.
    this.tables.commit(true);
    this.pendingInTx = 0;
  }

  /**
   * Records the shipment written and signed on every drive ('sealing'),
   * committed and synced before any bag is renamed into place (sealing.ts).
   * @throws BrickpostError IO, NO_SPACE, LOCKED… (the catalog failing: no bag is in place yet)
   */
  sealing(files: number, bytes: number, bytesOnDrive: number): void {
    this.flushHeld();
    this.tables.sealing(files, bytes, bytesOnDrive);
  }

  /** Marks the shipment sealed once its bags are in place. @throws BrickpostError (the catalog failing) */
  sealed(self: string): void {
    markSealed(this.ctx.catalog, this.id, this.dataset.id, self);
  }

  /**
   * Keeps what was written after a pack stopped on a drive, for
   * `pack --resume`. Best effort, never throws: the failure that stopped the pack
   * is the one reported (a shipment left 'writing' is found by the next
   * pack as well).
   */
  interrupted(): void {
    try {
      this.tables.interrupted();
    } catch {
      // The catalog failed too; the next pack finds the shipment unfinished either way.
    }
  }

  /** Forgets the shipment after a failed pack. Best effort, never throws (see interrupted). */
  failed(): void {
    try {
      this.tables.failed();
    } catch {
      // Left 'writing': the next pack of the dataset discards it and its .part folders.
    }
  }
}
