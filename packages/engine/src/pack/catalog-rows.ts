import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { toField } from '@brickpost/manifest';
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

/** A dataset this home publishes. */
export interface Dataset {
  id: string;
  name: string;
  secret: Buffer;
}

/** The dataset `name` of this publisher, created with a fresh secret on first use. */
export function openDataset(ctx: Context, name: string, publisher: string): Dataset {
  const db = ctx.catalog.db;
  const row = db.prepare('SELECT id, name, secret FROM datasets WHERE publisher = ? AND name = ?').get(publisher, name) as Dataset | undefined;
  if (row) return row;
  const d: Dataset = { id: randomBytes(8).toString('hex'), name, secret: randomBytes(32) };
  db.prepare('INSERT INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(d.id, name, publisher, d.secret, new Date().toISOString());
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
  private readonly find: Statement;
  private readonly insert: Statement;
  private readonly treeFile: Statement;
  private readonly treeChunk: Statement;
  private readonly sigByContent: Statement;
  private readonly sigInsert: Statement;
  private readonly seen = new SeenFilter(4 << 20);

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
    const db = ctx.catalog.db;
    this.seq = plan.seq;
    this.parent = plan.parent;
    if (resume) this.created = resume.created;
    const bases = JSON.stringify(plan.bases.map((b) => [b.shipmentId, b.seq]));
    ctx.catalog.tx(() => {
      if (resume) {
        // The tree is built again from the source; chunks stay only where a kept pack holds them.
        const kept = JSON.stringify(resume.kept.map((p) => p.index));
        db.prepare('DELETE FROM tree_files WHERE shipment_id = ?').run(id);
        db.prepare('DELETE FROM tree_chunks WHERE shipment_id = ?').run(id);
        db.prepare('DELETE FROM chunks WHERE shipment_id = ? AND pack NOT IN (SELECT value FROM json_each(?))').run(id, kept);
        db.prepare('DELETE FROM packs WHERE shipment_id = ? AND idx NOT IN (SELECT value FROM json_each(?))').run(id, kept);
        db.prepare("UPDATE shipments SET state = 'writing' WHERE id = ?").run(id);
        return;
      }
      db.prepare(
        "INSERT INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, bases, against, layout) VALUES (?, ?, ?, ?, ?, ?, 'published', 'writing', ?, ?, ?)",
      ).run(id, dataset.id, this.seq, this.parent, label, this.created, bases, against, JSON.stringify(layout));
      const r = db.prepare('INSERT INTO shipment_recipients (shipment_id, recipient) VALUES (?, ?)');
      for (const x of recipients) r.run(id, x);
    });
    if (resume) for (const c of db.prepare('SELECT id FROM chunks WHERE shipment_id = ?').pluck().iterate(id)) this.seen.add(c as Buffer);
    this.find = db.prepare('SELECT pack, offset, frame_len AS frameLen, len FROM chunks WHERE dataset_id = ? AND id = ? AND shipment_id = ?');
    this.insert = db.prepare('INSERT INTO chunks (dataset_id, id, shipment_id, pack, offset, frame_len, len) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.treeFile = db.prepare('INSERT INTO tree_files (shipment_id, path, size, mode, mtime_ns, ctime_ns, ino, chunks, sig_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.treeChunk = db.prepare('INSERT OR IGNORE INTO tree_chunks (shipment_id, chunk) VALUES (?, ?)');
    this.sigByContent = db.prepare('SELECT id FROM sigs WHERE content = ?').pluck();
    this.sigInsert = db.prepare('INSERT INTO sigs (content, block_size, length, sig) VALUES (?, ?, ?, ?)');
    db.exec('BEGIN');
  }

  private tick(): void {
    if (++this.pendingInTx >= 4096) {
      this.ctx.catalog.db.exec('COMMIT; BEGIN');
      this.pendingInTx = 0;
    }
  }

  /** Adds a chunk id to the shipment's tree (idempotent). */
  addTreeChunk(id: Buffer): void {
    this.treeChunk.run(this.id, id);
    this.tick();
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
      sigId = (this.sigByContent.get(content) as number | undefined) ?? Number(this.sigInsert.run(content, sig.blockSize, sig.length, sig.sig).lastInsertRowid);
    }
    this.treeFile.run(this.id, toField(e.path), e.size, e.mode, e.mtimeNs.toString(), e.ctimeNs.toString(), e.ino.toString(), chunks, sigId);
    this.tick();
    return sigId;
  }

  /** Where this shipment already stored chunk `id`, if it did. */
  findChunk(id: Buffer): { pack: number; offset: number; frameLen: number; len: number } | undefined {
    if (!this.seen.mayHave(id)) return undefined;
    return this.find.get(this.dataset.id, id, this.id) as { pack: number; offset: number; frameLen: number; len: number } | undefined;
  }

  addChunk(id: Buffer, pack: number, offset: number, frameLen: number, len: number): void {
    this.seen.add(id);
    this.insert.run(this.dataset.id, id, this.id, pack, offset, frameLen, len);
    this.tick();
  }

  addPack(p: PackInfo): void {
    this.ctx.catalog.db
      .prepare('INSERT INTO packs (shipment_id, idx, size, sha256, chunks, share, plain) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(this.id, p.index, p.size, p.sha256, p.chunks, p.share, p.plain);
    // A closed pack and its chunks survive a crash: pack --resume keeps them.
    this.ctx.catalog.db.exec('COMMIT; BEGIN');
    this.pendingInTx = 0;
  }

  /**
   * Records the shipment written and signed on every drive ('sealing'),
   * committed and synced before any bag is renamed into place (sealing.ts).
   * @throws BrickpostError IO, NO_SPACE, LOCKED… (the catalog failing: no bag is in place yet)
   */
  sealing(files: number, bytes: number, bytesOnDrive: number): void {
    const db = this.ctx.catalog.db;
    db.prepare("UPDATE shipments SET state = 'sealing', files = ?, bytes = ?, bytes_on_drive = ? WHERE id = ?").run(files, bytes, bytesOnDrive, this.id);
    db.exec('COMMIT');
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
    const db = this.ctx.catalog.db;
    try {
      if (db.inTransaction) db.exec('COMMIT');
      db.prepare("UPDATE shipments SET state = 'interrupted' WHERE id = ?").run(this.id);
    } catch {
      // The catalog failed too; the next pack finds the shipment unfinished either way.
    }
  }

  /** Forgets the shipment after a failed pack. Best effort, never throws (see interrupted). */
  failed(): void {
    const db = this.ctx.catalog.db;
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.prepare('DELETE FROM shipments WHERE id = ?').run(this.id);
    } catch {
      // Left 'writing': the next pack of the dataset discards it and its .part folders.
    }
  }
}
