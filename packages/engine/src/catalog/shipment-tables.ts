/**
 * The catalog rows of one shipment being packed: the shipment and its
 * recipients, every chunk stored (`chunks`: which pack, where, how long;
 * also the in-shipment dedup index, so memory does not grow with the
 * dataset), its tree (tree.ts's tables), and its closed packs. Statements
 * are prepared once; writes go in the transaction the caller opens with
 * `begin` and commits every so often with `commit(true)`.
 */
import type { Catalog } from './catalog.js';
import type { TreeFileInsert } from './trees.js';

/** Where a chunk of the shipment was stored. */
export interface StoredChunk {
  pack: number;
  offset: number;
  frameLen: number;
  len: number;
}

/** A shipment as a new pack records it (bases and layout as JSON). */
export interface PublishedInsert {
  id: string;
  datasetId: string;
  seq: number;
  parent: string | null;
  label: string;
  createdAt: string;
  bases: string;
  against: string | null;
  layout: string;
}

/** A closed pack. */
export interface PackInsert {
  index: number;
  size: number;
  sha256: string;
  chunks: number;
  share: number;
  plain: number;
}

/** Rows `from` to `to` of the tree of shipment `ref`, to copy into the tree of shipment `id`. */
interface CopyRange {
  id: string;
  ref: string;
  from: string;
  to: string;
}

/** The statements of one shipment being packed. */
export class ShipmentTables {
  private readonly find;
  private readonly insert;
  private readonly treeFile;
  private readonly treeChunk;
  private readonly sigByContent;
  private readonly sigInsert;
  private readonly packInsert;
  private readonly copyFiles;
  private readonly copyChunk;
  private readonly copyChunks;
  // The statements run once or more per file, taken from their guards once (each access to a guarded statement's method goes through its Proxy).
  private readonly findGet;
  private readonly insertRun;
  private readonly treeFileRun;
  private readonly treeChunkRun;

  constructor(
    private readonly catalog: Catalog,
    private readonly datasetId: string,
    private readonly id: string,
  ) {
    const db = catalog.db;
    this.find = db.prepare<[string, Buffer, string], StoredChunk>(
      'SELECT pack, offset, frame_len AS frameLen, len FROM chunks WHERE dataset_id = ? AND id = ? AND shipment_id = ?',
    );
    this.insert = db.prepare<[string, Buffer, string, number, number, number, number]>(
      'INSERT INTO chunks (dataset_id, id, shipment_id, pack, offset, frame_len, len) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.treeFile = db.prepare<[string, string, number, number, string, string, string, Buffer, number | null]>(
      'INSERT INTO tree_files (shipment_id, path, size, mode, mtime_ns, ctime_ns, ino, chunks, sig_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.treeChunk = db.prepare<[string, Buffer]>('INSERT OR IGNORE INTO tree_chunks (shipment_id, chunk) VALUES (?, ?)');
    this.sigByContent = db.prepare<[Buffer], number>('SELECT id FROM sigs WHERE content = ?').pluck();
    this.sigInsert = db.prepare<[Buffer, number, number, Buffer]>('INSERT INTO sigs (content, block_size, length, sig) VALUES (?, ?, ?, ?)');
    this.packInsert = db.prepare<[string, number, number, string, number, number, number]>(
      'INSERT INTO packs (shipment_id, idx, size, sha256, chunks, share, plain) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.copyFiles = db.prepare<[CopyRange]>(
      `INSERT INTO tree_files (shipment_id, path, size, mode, mtime_ns, ctime_ns, ino, chunks, sig_id)
        SELECT @id, path, size, mode, mtime_ns, ctime_ns, ino, chunks, sig_id FROM tree_files WHERE shipment_id = @ref AND path >= @from AND path <= @to`,
    );
    // The ids of the chunk lists, 36 bytes an entry (trees.ts), holes (all-zero ids) left out: a list of one chunk, the most
    // common, by itself (a third of the time of the split); longer lists split one entry a step, each step copying the
    // rest of a list, so only short lists come here.
    this.copyChunk = db.prepare<[CopyRange]>(
      `INSERT OR IGNORE INTO tree_chunks (shipment_id, chunk)
        SELECT @id, substr(chunks, 1, 32) FROM tree_files
        WHERE shipment_id = @ref AND path >= @from AND path <= @to AND length(chunks) = 36 AND substr(chunks, 1, 32) <> zeroblob(32)`,
    );
    this.copyChunks = db.prepare<[CopyRange]>(
      `WITH RECURSIVE part(chunk, rest) AS (
          SELECT NULL, chunks FROM tree_files WHERE shipment_id = @ref AND path >= @from AND path <= @to AND length(chunks) > 36
          UNION ALL SELECT substr(rest, 1, 32), substr(rest, 37) FROM part WHERE length(rest) >= 36)
        INSERT OR IGNORE INTO tree_chunks (shipment_id, chunk) SELECT @id, chunk FROM part WHERE chunk IS NOT NULL AND chunk <> zeroblob(32)`,
    );
    this.findGet = this.find.get.bind(this.find);
    this.insertRun = this.insert.run.bind(this.insert);
    this.treeFileRun = this.treeFile.run.bind(this.treeFile);
    this.treeChunkRun = this.treeChunk.run.bind(this.treeChunk);
  }

  /** Records the new shipment ('writing') and its recipients. */
  static create(catalog: Catalog, s: PublishedInsert, recipients: string[]): void {
    const db = catalog.db;
    db.prepare<[string, string, number, string | null, string, string, string, string | null, string]>(
      "INSERT INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, bases, against, layout) VALUES (?, ?, ?, ?, ?, ?, 'published', 'writing', ?, ?, ?)",
    ).run(s.id, s.datasetId, s.seq, s.parent, s.label, s.createdAt, s.bases, s.against, s.layout);
    const r = db.prepare<[string, string]>('INSERT INTO shipment_recipients (shipment_id, recipient) VALUES (?, ?)');
    for (const x of recipients) r.run(s.id, x);
  }

  /** Takes an interrupted shipment up again: its tree is dropped, and its chunks and packs but those of the packs `kept`. */
  static reopen(catalog: Catalog, id: string, kept: number[]): void {
    const db = catalog.db;
    const keep = JSON.stringify(kept);
    db.prepare<[string]>('DELETE FROM tree_files WHERE shipment_id = ?').run(id);
    db.prepare<[string]>('DELETE FROM tree_chunks WHERE shipment_id = ?').run(id);
    db.prepare<[string, string]>('DELETE FROM chunks WHERE shipment_id = ? AND pack NOT IN (SELECT value FROM json_each(?))').run(id, keep);
    db.prepare<[string, string]>('DELETE FROM packs WHERE shipment_id = ? AND idx NOT IN (SELECT value FROM json_each(?))').run(id, keep);
    db.prepare<[string]>("UPDATE shipments SET state = 'writing' WHERE id = ?").run(id);
  }

  /** The ids of the chunks the shipment stored so far. */
  chunkIds(): IterableIterator<Buffer> {
    return this.catalog.db.prepare<[string], Buffer>('SELECT id FROM chunks WHERE shipment_id = ?').pluck().iterate(this.id);
  }

  /** Opens the transaction the writes go in. */
  begin(): void {
    this.catalog.db.exec('BEGIN');
  }

  /** Commits the writes so far; `more` opens the next transaction. */
  commit(more: boolean): void {
    this.catalog.db.exec(more ? 'COMMIT; BEGIN' : 'COMMIT');
  }

  /** Where the shipment stored chunk `id`, if it did. */
  findChunk(id: Buffer): StoredChunk | undefined {
    return this.findGet(this.datasetId, id, this.id);
  }

  addChunk(id: Buffer, c: StoredChunk): void {
    this.insertRun(this.datasetId, id, this.id, c.pack, c.offset, c.frameLen, c.len);
  }

  addTreeChunk(id: Buffer): void {
    this.treeChunkRun(this.id, id);
  }

  addTreeFile(f: Omit<TreeFileInsert, 'shipment'>): void {
    this.treeFileRun(this.id, f.path, f.size, f.mode, f.mtimeNs, f.ctimeNs, f.ino, f.chunks, f.sigId);
  }

  /**
   * Copies the files of the tree of shipment `ref` from path `from` to path
   * `to` (field forms, both included) into this shipment's tree, with their
   * chunk ids: rows the new tree needs as they are (stat-cache hits).
   */
  copyTreeRows(ref: string, from: string, to: string): void {
    const range = { id: this.id, ref, from, to };
    this.copyFiles.run(range);
    this.copyChunk.run(range);
    this.copyChunks.run(range);
  }

  /** The id of the signature stored for `content` (a chunk list's SHA-256), storing it if it is not. */
  sigId(content: Buffer, blockSize: number, length: number, sig: Buffer): number {
    return this.sigByContent.get(content) ?? Number(this.sigInsert.run(content, blockSize, length, sig).lastInsertRowid);
  }

  addPack(p: PackInsert): void {
    this.packInsert.run(this.id, p.index, p.size, p.sha256, p.chunks, p.share, p.plain);
  }

  /** Marks the shipment 'sealing' with its totals, and commits. */
  sealing(files: number, bytes: number, bytesOnDrive: number): void {
    this.catalog.db
      .prepare<[number, number, number, string]>("UPDATE shipments SET state = 'sealing', files = ?, bytes = ?, bytes_on_drive = ? WHERE id = ?")
      .run(files, bytes, bytesOnDrive, this.id);
    this.catalog.db.exec('COMMIT');
  }

  /** Commits what was written, and marks the shipment 'interrupted'. */
  interrupted(): void {
    const db = this.catalog.db;
    if (db.inTransaction) db.exec('COMMIT');
    db.prepare<[string]>("UPDATE shipments SET state = 'interrupted' WHERE id = ?").run(this.id);
  }

  /** Rolls back what was written, and deletes the shipment. */
  failed(): void {
    const db = this.catalog.db;
    if (db.inTransaction) db.exec('ROLLBACK');
    db.prepare<[string]>('DELETE FROM shipments WHERE id = ?').run(this.id);
  }
}
