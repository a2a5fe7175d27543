import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Context } from '../context.js';
import type { PackInfo } from './pack-writer.js';
import { SeenFilter } from './seen-filter.js';

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
 * chain, and every chunk stored (which doubles as the in-shipment dedup
 * index, so memory does not grow with the dataset). Chunk inserts are
 * batched in transactions.
 */
export class ShipmentRows {
  readonly seq: number;
  readonly parent: string | null = null;
  readonly created = new Date().toISOString();
  private pendingInTx = 0;
  private readonly find: Statement;
  private readonly insert: Statement;
  private readonly seen = new SeenFilter(4 << 20);

  constructor(
    private readonly ctx: Context,
    private readonly dataset: Dataset,
    readonly id: string,
    label: string,
    recipients: string[],
  ) {
    const db = ctx.catalog.db;
    const last = db.prepare("SELECT max(seq) AS seq FROM shipments WHERE dataset_id = ? AND role = 'published' AND state = 'sealed'").get(dataset.id) as { seq: number | null };
    this.seq = (last.seq ?? 0) + 1;
    ctx.catalog.tx(() => {
      db.prepare("INSERT INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state) VALUES (?, ?, ?, ?, ?, ?, 'published', 'writing')").run(
        id,
        dataset.id,
        this.seq,
        this.parent,
        label,
        this.created,
      );
      const r = db.prepare('INSERT INTO shipment_recipients (shipment_id, recipient) VALUES (?, ?)');
      for (const x of recipients) r.run(id, x);
    });
    this.find = db.prepare('SELECT pack, offset, frame_len AS frameLen, len FROM chunks WHERE dataset_id = ? AND id = ? AND shipment_id = ?');
    this.insert = db.prepare('INSERT INTO chunks (dataset_id, id, shipment_id, pack, offset, frame_len, len) VALUES (?, ?, ?, ?, ?, ?, ?)');
    db.exec('BEGIN');
  }

  /** Where this shipment already stored chunk `id`, if it did. */
  findChunk(id: Buffer): { pack: number; offset: number; frameLen: number; len: number } | undefined {
    if (!this.seen.mayHave(id)) return undefined;
    return this.find.get(this.dataset.id, id, this.id) as { pack: number; offset: number; frameLen: number; len: number } | undefined;
  }

  addChunk(id: Buffer, pack: number, offset: number, frameLen: number, len: number): void {
    this.seen.add(id);
    this.insert.run(this.dataset.id, id, this.id, pack, offset, frameLen, len);
    if (++this.pendingInTx >= 4096) {
      this.ctx.catalog.db.exec('COMMIT; BEGIN');
      this.pendingInTx = 0;
    }
  }

  addPack(p: PackInfo): void {
    this.ctx.catalog.db.prepare('INSERT INTO packs (shipment_id, idx, size, sha256, chunks) VALUES (?, ?, ?, ?, ?)').run(this.id, p.index, p.size, p.sha256, p.chunks);
  }

  /** Marks the shipment complete. */
  sealed(files: number, bytes: number, bytesOnDrive: number): void {
    const db = this.ctx.catalog.db;
    db.prepare("UPDATE shipments SET state = 'sealed', files = ?, bytes = ?, bytes_on_drive = ? WHERE id = ?").run(files, bytes, bytesOnDrive, this.id);
    db.exec('COMMIT');
  }

  /** Forgets the shipment after a failed pack. */
  failed(): void {
    const db = this.ctx.catalog.db;
    if (db.inTransaction) db.exec('ROLLBACK');
    db.prepare('DELETE FROM shipments WHERE id = ?').run(this.id);
  }
}
