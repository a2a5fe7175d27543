/**
 * The catalog's trees of published shipments: `tree_files` (each file's
 * size, times, inode, chunk list and signature id: the stat cache and the
 * bases of deltas), `tree_chunks` (the distinct chunk ids of each tree:
 * what recipients hold), and `sigs` (file signatures, stored once per
 * content). Lookups are point queries, prepared once, so memory does not
 * grow with the tree.
 */
import type { Catalog } from './catalog.js';

/** Bytes per entry of a chunk list (`tree_files.chunks`): a chunk id (all zero for a hole) and its length, big-endian u32. */
export const CHUNK_ENTRY = 36;

/** The id of a hole's entries in a chunk list. */
export const HOLE_ID = Buffer.alloc(32);

/** The chunk ids of a chunk list (holes left out). */
export function* chunkIds(chunks: Buffer): Generator<Buffer> {
  for (let at = 0; at + CHUNK_ENTRY <= chunks.length; at += CHUNK_ENTRY) {
    const id = chunks.subarray(at, at + 32);
    if (!id.equals(HOLE_ID)) yield id;
  }
}

/** A file of a tree as the catalog holds it (times and inode as decimal strings). */
export interface TreeFileRow {
  size: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  chunks: Buffer;
  sigId: number | null;
}

/** A file to record in a tree. */
export interface TreeFileInsert {
  shipment: string;
  path: string;
  size: number;
  mode: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  chunks: Buffer;
  sigId: number | null;
}

/**
 * A file of a tree as the stat cache compares it: its path (field form),
 * its stat fields as one key (treeStatKey), its chunk list in lower-case
 * hex and its signature id. Two strings and a number instead of a row's
 * eight values, which counts at a row read a file.
 */
export interface TreeStatRow {
  path: string;
  stat: string;
  hex: string;
  sigId: number | null;
}

/** The stat key of a file: size, mode, mtime, ctime and inode, as TreeStatRow's `stat` holds them (and STAT_ROW_COLUMNS builds them). */
export function treeStatKey(size: number, mode: number, mtimeNs: bigint | string, ctimeNs: bigint | string, ino: bigint | string): string {
  return `${size} ${mode} ${mtimeNs} ${ctimeNs} ${ino}`;
}

const STAT_ROW_COLUMNS = "path, size || ' ' || mode || ' ' || mtime_ns || ' ' || ctime_ns || ' ' || ino, lower(hex(chunks)), sig_id";

type TreeStatValues = [string, string, string, number | null];

/** The lookups of trees a pack makes, each statement prepared once. */
export class TreeQueries {
  private readonly file;
  private readonly after;
  private readonly first;
  private readonly statRow;
  private readonly blockSize;
  private readonly sig;

  constructor(catalog: Catalog) {
    const db = catalog.db;
    this.file = db.prepare<[string, string], TreeFileRow>(
      'SELECT size, mtime_ns AS mtimeNs, ctime_ns AS ctimeNs, ino, chunks, sig_id AS sigId FROM tree_files WHERE shipment_id = ? AND path = ?',
    );
    // Raw rows: better-sqlite3 builds an array much faster than an object with named members, which counts at a row a file.
    this.after = db
      .prepare<[string, string, number], TreeStatValues>(`SELECT ${STAT_ROW_COLUMNS} FROM tree_files WHERE shipment_id = ? AND path > ? ORDER BY path LIMIT ?`)
      .raw();
    this.first = db.prepare<[string, number], TreeStatValues>(`SELECT ${STAT_ROW_COLUMNS} FROM tree_files WHERE shipment_id = ? ORDER BY path LIMIT ?`).raw();
    this.statRow = db.prepare<[string, string], TreeStatValues>(`SELECT ${STAT_ROW_COLUMNS} FROM tree_files WHERE shipment_id = ? AND path = ?`).raw();
    this.blockSize = db.prepare<[number], number>('SELECT block_size FROM sigs WHERE id = ?').pluck();
    this.sig = db.prepare<[number], Buffer>('SELECT sig FROM sigs WHERE id = ?').pluck();
  }

  /** The file at `path` (its manifest field form) in the tree of `shipment`. */
  fileOf(shipment: string, path: string): TreeFileRow | undefined {
    return this.file.get(shipment, path);
  }

  /** At most `limit` files of the tree of `shipment` in path order (SQLite's binary order of the field form): from its first, or after `path`. */
  statRowsAfter(shipment: string, path: string | null, limit: number): TreeStatRow[] {
    const rows = path === null ? this.first.all(shipment, limit) : this.after.all(shipment, path, limit);
    return rows.map(([p, stat, hex, sigId]) => ({ path: p, stat, hex, sigId }));
  }

  /** The file at `path` (its manifest field form) in the tree of `shipment`, as the stat cache compares it. */
  statRowOf(shipment: string, path: string): TreeStatRow | undefined {
    const r = this.statRow.get(shipment, path);
    return r && { path: r[0], stat: r[1], hex: r[2], sigId: r[3] };
  }

  /** The block size of signature `id`. */
  sigBlockSize(id: number): number | undefined {
    return this.blockSize.get(id);
  }

  /** The bytes of signature `id`. */
  sigBytes(id: number): Buffer | undefined {
    return this.sig.get(id);
  }
}

/** The newest sealed shipment of the dataset whose tree the catalog holds. */
export function newestTree(catalog: Catalog, datasetId: string): string | undefined {
  return catalog.db
    .prepare<[string], string>(
      `SELECT s.id FROM shipments s WHERE s.dataset_id = ? AND s.role = 'published' AND s.state = 'sealed'
        AND EXISTS (SELECT 1 FROM tree_files t WHERE t.shipment_id = s.id) ORDER BY s.seq DESC LIMIT 1`,
    )
    .pluck()
    .get(datasetId);
}

/** Whether the catalog still holds the tree of shipment `id`. */
export function hasTree(catalog: Catalog, id: string): boolean {
  return catalog.db.prepare<[string]>('SELECT 1 FROM tree_files WHERE shipment_id = ? LIMIT 1').get(id) !== undefined;
}

/** Drops the tree of shipment `id`. */
export function dropTree(catalog: Catalog, id: string): void {
  catalog.db.prepare<[string]>('DELETE FROM tree_files WHERE shipment_id = ?').run(id);
  catalog.db.prepare<[string]>('DELETE FROM tree_chunks WHERE shipment_id = ?').run(id);
}

/** Drops the signatures no tree refers to. */
export function dropUnusedSigs(catalog: Catalog): void {
  catalog.db.prepare('DELETE FROM sigs WHERE id NOT IN (SELECT sig_id FROM tree_files WHERE sig_id IS NOT NULL)').run();
}

/** A test of whether a chunk is in every one of the trees `bases` (one statement, prepared once). */
export function inEveryTree(catalog: Catalog, bases: string[]): (id: Buffer) => boolean {
  const count = catalog.db
    .prepare<[Buffer, ...string[]], number>(`SELECT count(*) FROM tree_chunks WHERE chunk = ? AND shipment_id IN (${bases.map(() => '?').join(', ')})`)
    .pluck();
  return (id) => count.get(id, ...bases) === bases.length;
}

/**
 * A temporary table of chunk ids of this connection (the ids a signature
 * or request file lists), created empty; `close` drops it.
 */
export class ListedChunks {
  private readonly insert;
  private readonly find;

  constructor(private readonly catalog: Catalog) {
    catalog.db.exec('DROP TABLE IF EXISTS temp.listed; CREATE TEMP TABLE listed (chunk BLOB PRIMARY KEY) WITHOUT ROWID');
    this.insert = catalog.db.prepare<[Buffer]>('INSERT OR IGNORE INTO temp.listed (chunk) VALUES (?)');
    this.find = catalog.db.prepare<[Buffer]>('SELECT 1 FROM temp.listed WHERE chunk = ?');
  }

  add(id: Buffer): void {
    this.insert.run(id);
  }

  has(id: Buffer): boolean {
    return this.find.get(id) !== undefined;
  }

  close(): void {
    this.catalog.db.exec('DROP TABLE IF EXISTS temp.listed');
  }
}
