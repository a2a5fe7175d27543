import type { DestDb } from './dest-db.js';

/**
 * The journal's record of the chunk undo store (undo-store.ts): which
 * retired files are kept as chunk lists, and which chunks the store holds.
 *
 * - `undo_files`: one row per retired regular file kept by chunks: the
 *   shipment and op that retired it, `rel` (its path below the retired
 *   entry: '' for the entry itself, else inside a retired folder, as
 *   dbPath text), its size, mode and mtime (decimal nanoseconds);
 * - `undo_refs`: its chunks in order (`idx`), each by `hash`;
 * - `undo_chunks`: every chunk the store holds durably: its SHA-256, its
 *   length and the bytes its compressed file takes.
 *
 * A chunk row is written only after its file is synced; a file row with
 * its refs in one transaction after every chunk it names has a row. So a
 * row never names a chunk the store lacks; the store may hold chunks no
 * row names (a crash between), which the sweep removes.
 */

/** One retired file kept as a chunk list. */
export interface UndoFileRow {
  shipment: string;
  n: number;
  rel: string;
  size: number;
  mode: number;
  mtime: string;
}

/** One chunk of a file kept by chunks. */
export interface UndoRef {
  hash: Buffer;
  len: number;
}

/** The schema of the chunk undo store's tables (journal version 2). */
export const UNDO_SCHEMA = `
CREATE TABLE IF NOT EXISTS undo_files (
  shipment TEXT NOT NULL,
  n INTEGER NOT NULL,
  rel TEXT NOT NULL,
  size INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  PRIMARY KEY (shipment, n, rel)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS undo_refs (
  shipment TEXT NOT NULL,
  n INTEGER NOT NULL,
  rel TEXT NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (shipment, n, rel, idx)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS undo_refs_hash ON undo_refs (hash);
CREATE TABLE IF NOT EXISTS undo_chunks (
  hash BLOB PRIMARY KEY,
  len INTEGER NOT NULL,
  stored INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Whether the file `rel` of op `n` of `shipment` is recorded by chunks. */
export function undoFileRecorded(db: DestDb, shipment: string, n: number, rel: string): boolean {
  return db.db.prepare('SELECT 1 FROM undo_files WHERE shipment = ? AND n = ? AND rel = ?').get(shipment, n, rel) !== undefined;
}

/** Whether the store holds chunk `hash` durably. */
export function chunkStored(db: DestDb, hash: Buffer): boolean {
  return db.db.prepare('SELECT 1 FROM undo_chunks WHERE hash = ?').get(hash) !== undefined;
}

/** Records chunks whose files were synced. */
export function recordChunks(db: DestDb, chunks: Array<UndoRef & { stored: number }>): void {
  const put = db.db.prepare('INSERT OR IGNORE INTO undo_chunks (hash, len, stored) VALUES (?, ?, ?)');
  db.tx(() => {
    for (const c of chunks) put.run(c.hash, c.len, c.stored);
  });
}

/** Starts recording a file; its refs follow with addRef, all inside the caller's transaction. */
export function recordUndoFile(db: DestDb, row: UndoFileRow): void {
  db.db
    .prepare('INSERT OR REPLACE INTO undo_files (shipment, n, rel, size, mode, mtime) VALUES (?, ?, ?, ?, ?, ?)')
    .run(row.shipment, row.n, row.rel, row.size, row.mode, row.mtime);
  db.db.prepare('DELETE FROM undo_refs WHERE shipment = ? AND n = ? AND rel = ?').run(row.shipment, row.n, row.rel);
}

/** Adds the chunk at `idx` of a file being recorded. */
export function addRef(db: DestDb, row: UndoFileRow, idx: number, hash: Buffer): void {
  db.db.prepare('INSERT INTO undo_refs (shipment, n, rel, idx, hash) VALUES (?, ?, ?, ?, ?)').run(row.shipment, row.n, row.rel, idx, hash);
}

/** The files op `n` of `shipment` retired that are kept by chunks, shallowest first. */
export function undoFilesOf(db: DestDb, shipment: string, n: number): UndoFileRow[] {
  return db.db
    .prepare('SELECT shipment, n, rel, size, mode, mtime FROM undo_files WHERE shipment = ? AND n = ? ORDER BY rel')
    .all(shipment, n) as UndoFileRow[];
}

/** One recorded file, or null. */
export function undoFile(db: DestDb, shipment: string, n: number, rel: string): UndoFileRow | null {
  return (
    (db.db.prepare('SELECT shipment, n, rel, size, mode, mtime FROM undo_files WHERE shipment = ? AND n = ? AND rel = ?').get(shipment, n, rel) as
      UndoFileRow | undefined) ?? null
  );
}

/** The chunks of a recorded file, in order (streamed: a file may have very many). */
export function refsOf(db: DestDb, row: UndoFileRow): IterableIterator<UndoRef> {
  return db.db
    .prepare(
      'SELECT r.hash AS hash, c.len AS len FROM undo_refs r JOIN undo_chunks c ON c.hash = r.hash WHERE r.shipment = ? AND r.n = ? AND r.rel = ? ORDER BY r.idx',
    )
    .iterate(row.shipment, row.n, row.rel) as IterableIterator<UndoRef>;
}

/** Forgets the chunk lists of one op (n given) or of a whole shipment; their chunks go at the next sweep. */
export function dropUndoFiles(db: DestDb, shipment: string, n?: number): void {
  const where = n === undefined ? 'shipment = ?' : 'shipment = ? AND n = ?';
  const args = n === undefined ? [shipment] : [shipment, n];
  db.tx(() => {
    db.db.prepare(`DELETE FROM undo_refs WHERE ${where}`).run(...args);
    db.db.prepare(`DELETE FROM undo_files WHERE ${where}`).run(...args);
  });
}

/** The shipments that have files kept by chunks. */
export function chunkedShipments(db: DestDb): string[] {
  return db.db.prepare('SELECT DISTINCT shipment FROM undo_files').pluck().all() as string[];
}

/**
 * Forgets the chunks no file names any more, and returns their hashes (hex)
 * for the caller to delete: a row goes before its file, so no row ever
 * names a chunk the store has lost.
 */
export function forgetUnreferenced(db: DestDb): Set<string> {
  const gone = new Set<string>();
  db.tx(() => {
    const rows = db.db
      .prepare('SELECT hash FROM undo_chunks WHERE NOT EXISTS (SELECT 1 FROM undo_refs r WHERE r.hash = undo_chunks.hash)')
      .pluck()
      .iterate() as IterableIterator<Buffer>;
    for (const h of rows) gone.add(h.toString('hex'));
    db.db.exec('DELETE FROM undo_chunks WHERE NOT EXISTS (SELECT 1 FROM undo_refs r WHERE r.hash = undo_chunks.hash)');
  });
  return gone;
}

/**
 * What the chunk store costs, by shipment: a chunk's stored bytes count
 * once, for the first applied shipment (in `order`) that names it; plus the
 * total the store holds.
 */
export function chunkCosts(db: DestDb, order: string[]): { byShipment: Map<string, number>; total: number } {
  const sql = db.db;
  sql.exec('CREATE TEMP TABLE IF NOT EXISTS undo_order (shipment TEXT PRIMARY KEY, pos INTEGER NOT NULL) WITHOUT ROWID; DELETE FROM undo_order;');
  const put = sql.prepare('INSERT OR IGNORE INTO undo_order (shipment, pos) VALUES (?, ?)');
  db.tx(() => order.forEach((s, i) => put.run(s, i)));
  const rows = sql
    .prepare(
      `SELECT o.shipment AS shipment, SUM(c.stored) AS bytes
       FROM (SELECT r.hash AS hash, MIN(o.pos) AS pos FROM undo_refs r JOIN undo_order o ON o.shipment = r.shipment GROUP BY r.hash) f
       JOIN undo_chunks c ON c.hash = f.hash JOIN undo_order o ON o.pos = f.pos GROUP BY o.shipment`,
    )
    .all() as Array<{ shipment: string; bytes: number }>;
  sql.exec('DELETE FROM undo_order');
  const total = sql.prepare('SELECT COALESCE(SUM(stored), 0) FROM undo_chunks').pluck().get() as number;
  return { byShipment: new Map(rows.map((r) => [r.shipment, r.bytes])), total };
}

/** An op of a shipment that touches a path or one of its folders. */
export interface PathOp {
  n: number;
  kind: string;
  /** The op's path (dbPath text). */
  path: string;
}

/** The ops of `shipment` on any of `paths` (dbPath text), in order. */
export function opsOn(db: DestDb, shipment: string, paths: string[]): PathOp[] {
  if (paths.length === 0) return [];
  return db.db
    .prepare(`SELECT n, kind, path FROM ops WHERE shipment = ? AND path IN (${paths.map(() => '?').join(', ')}) ORDER BY n`)
    .all(shipment, ...paths) as PathOp[];
}
