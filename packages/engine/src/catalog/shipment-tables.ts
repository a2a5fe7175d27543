/**
 * The catalog rows of one shipment being packed: the shipment and its
 * recipients, every chunk stored (`chunks`: which pack, where, how long;
 * also the in-shipment dedup index, so memory does not grow with the
 * dataset), its tree (tree.ts's tables), and its closed packs. Statements
 * are prepared once; writes go in the transaction the caller opens with
 * `begin` and commits every so often with `commit(true)`.
 *
 * The tree's distinct chunk ids (`tree_chunks`) are not written file by
 * file: nothing reads them before the shipment is sealed, and ids come in
 * random order, so each insert landed on a random page of the index (1.2 s
 * of a second pack of 300,000 files, with its commits, against 0.45 s for
 * all of them at once). `sealing` derives them from the tree's chunk lists
 * in one sorted statement, which writes each page of the index once. The
 * `chunks` rows, which the pack looks up while it runs, are written for
 * the same reason in batches sorted by id (PendingChunks): when a pack
 * closes, when a batch is full, and at `sealing`.
 */
import type { Catalog } from './catalog.js';
import type Database from 'better-sqlite3';
import { PendingChunks } from './pending-chunks.js';
import { CHUNK_ENTRY, chunkIds, type TreeFileInsert } from './trees.js';

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
  private readonly sigByContent;
  private readonly sigInsert;
  private readonly packInsert;
  private readonly copyFiles;
  private readonly treeChunks;
  // The statements run once or more per file, taken from their guards once (each access to a guarded statement's method goes through its Proxy).
  private readonly findGet;
  private readonly insertRun;
  private readonly treeFileRun;
  /** Chunk rows not written yet. */
  private readonly pending = new PendingChunks();

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
    // common, in SQL; longer lists through brickpost_chunk_ids (a table-valued function, registerChunkIds). Sorted, so the index is
    // built from its first page to its last.
    registerChunkIds(db);
    this.treeChunks = db.prepare<[{ id: string }]>(
      `INSERT OR IGNORE INTO tree_chunks (shipment_id, chunk)
        SELECT @id, chunk FROM (
          SELECT substr(chunks, 1, 32) AS chunk FROM tree_files WHERE shipment_id = @id AND length(chunks) = ${CHUNK_ENTRY} AND substr(chunks, 1, 32) <> zeroblob(32)
          UNION ALL SELECT c.id FROM tree_files f, brickpost_chunk_ids(f.chunks) c WHERE f.shipment_id = @id AND length(f.chunks) > ${CHUNK_ENTRY})
        ORDER BY chunk`,
    );
    this.findGet = this.find.get.bind(this.find);
    this.insertRun = this.insert.run.bind(this.insert);
    this.treeFileRun = this.treeFile.run.bind(this.treeFile);
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
    return this.pending.find(id) ?? this.findGet(this.datasetId, id, this.id);
  }

  /** Records where chunk `id` is stored; the row is written with its batch (writeChunks). */
  addChunk(id: Buffer, c: StoredChunk): void {
    if (this.pending.full) this.writeChunks();
    this.pending.add(id, c);
  }

  /** Writes the chunk rows held, sorted by id, in the open transaction. */
  writeChunks(): void {
    this.pending.drain((id, pack, offset, frameLen, len) => this.insertRun(this.datasetId, id, this.id, pack, offset, frameLen, len));
  }

  addTreeFile(f: Omit<TreeFileInsert, 'shipment'>): void {
    this.treeFileRun(this.id, f.path, f.size, f.mode, f.mtimeNs, f.ctimeNs, f.ino, f.chunks, f.sigId);
  }

  /**
   * Copies the files of the tree of shipment `ref` from path `from` to path
   * `to` (field forms, both included) into this shipment's tree: rows the
   * new tree needs as they are (stat-cache hits).
   */
  copyTreeRows(ref: string, from: string, to: string): void {
    this.copyFiles.run({ id: this.id, ref, from, to });
  }

  /** The id of the signature stored for `content` (a chunk list's SHA-256), storing it if it is not. */
  sigId(content: Buffer, blockSize: number, length: number, sig: Buffer): number {
    return this.sigByContent.get(content) ?? Number(this.sigInsert.run(content, blockSize, length, sig).lastInsertRowid);
  }

  /** Records a closed pack, and writes the chunk rows held (the pack's among them: they are committed with it). */
  addPack(p: PackInsert): void {
    this.writeChunks();
    this.packInsert.run(this.id, p.index, p.size, p.sha256, p.chunks, p.share, p.plain);
  }

  /** Records the distinct chunk ids of the tree, marks the shipment 'sealing' with its totals, and commits. */
  sealing(files: number, bytes: number, bytesOnDrive: number): void {
    this.writeChunks();
    this.treeChunks.run({ id: this.id });
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

const withChunkIds = new WeakSet<Database.Database>();

/**
 * Registers `brickpost_chunk_ids(list)` on `db`: the chunk ids of a chunk
 * list, one row each, in order, holes left out. SQLite has no way to split
 * a blob without copying the rest of it at every step.
 */
function registerChunkIds(db: Database.Database): void {
  if (withChunkIds.has(db)) return;
  withChunkIds.add(db);
  db.table('brickpost_chunk_ids', {
    columns: ['id'],
    parameters: ['list'],
    *rows(list: unknown) {
      if (Buffer.isBuffer(list)) for (const id of chunkIds(list)) yield [id];
    },
  });
}
