import type Database from 'better-sqlite3';
import type { OldRow } from './dest-rows.js';
import { CURSOR_PAGE, PathCursor } from './path-cursor.js';
import { RowBatch } from './row-batch.js';

/**
 * The scratch tables of the ingest being planned, in the destination's
 * journal (dest-db.ts): `old`, the tree DEST holds; `new`, the shipment's
 * tree as planned; `held`, where DEST holds each chunk. On disk, so memory
 * does not grow with the dataset. Their rows are inserted a batch at a time
 * (RowBatch); the journal flushes `batches` before any other statement
 * and discards them on a rollback.
 */
export class ScratchTables {
  private readonly newRows: RowBatch;
  private readonly oldRows: RowBatch;
  private readonly heldRows: RowBatch;
  /** The row batches, for the journal to flush and discard. */
  readonly batches: readonly RowBatch[];

  /**
   * @param conn - the journal's connection (rows not flushed)
   * @param q - the journal's statement of `sql`, prepared once, with every row added so far inserted
   * @param flush - inserts every row added so far
   */
  constructor(
    private readonly conn: () => Database.Database,
    private readonly q: <P extends unknown[] = unknown[], R = unknown>(sql: string) => Database.Statement<P, R>,
    private readonly flush: () => void,
  ) {
    this.newRows = new RowBatch(conn, 'INSERT INTO new (path, type, action, n, digest, parent, fkey) VALUES', 7);
    this.oldRows = new RowBatch(conn, 'INSERT OR REPLACE INTO old (path, type, size, mode, mtime, digest, ok, attrs) VALUES', 8);
    this.heldRows = new RowBatch(conn, 'INSERT INTO held (id, path, offset, len) VALUES', 4);
    this.batches = [this.newRows, this.oldRows, this.heldRows];
  }

  /**
   * Clears the scratch tables of a previous plan. Their indexes by chunk
   * id and by digest go too: the first lookup builds each (indexed), in
   * one sort rather than an insert at a random place for each chunk and
   * file as the tree loads (at 300,000 files those indexes outgrow
   * SQLite's page cache), and an ingest that looks nothing up builds
   * none. `held` is made anew as a table in insertion order (journals
   * before kept it ordered by chunk id).
   */
  reset(): void {
    this.exec(`BEGIN; DELETE FROM old; DELETE FROM new; DROP INDEX IF EXISTS old_digest; DROP TABLE IF EXISTS held; ${HELD_TABLE}; COMMIT`);
    this.indexes.clear();
    this.scans.clear();
  }

  /** Scratch indexes known to exist (reset drops them), and lookups made without each so far. */
  private readonly indexes = new Set<string>();
  private readonly scans = new Map<string, number>();

  /**
   * Before a lookup by a scratch index: the first SCANS_BEFORE_INDEX
   * lookups scan the table, and the next one builds the index. An
   * incremental ingest of a few files looks up a few: at 300,000 files a
   * scan took 18 ms and building the index 345 ms.
   */
  private indexed(name: 'old_digest' | 'held_id'): void {
    if (this.indexes.has(name)) return;
    const scans = this.scans.get(name) ?? 0;
    if (scans < SCANS_BEFORE_INDEX) {
      this.scans.set(name, scans + 1);
      return;
    }
    this.exec(name === 'old_digest' ? 'CREATE INDEX IF NOT EXISTS old_digest ON old (digest)' : 'CREATE INDEX IF NOT EXISTS held_id ON held (id)');
    this.indexes.add(name);
  }

  /** Records an entry of the shipment's tree being planned (scratch table `new`). */
  addNew(path: string, type: string, action: string, n: number | null, digest: Buffer | null, parent: string, fkey: string | null): void {
    this.newRows.add(path, type, action, n, digest, parent, fkey);
  }

  /** An entry of the planned tree: its type and what the commit does with it. */
  newEntry(path: string): { type: string; action: string } | undefined {
    return this.q<[string], { type: string; action: string }>('SELECT type, action FROM new WHERE path = ?').get(path);
  }

  /** A file of the planned tree: its action, install op and digest. */
  newFile(path: string): { action: string; n: number | null; digest: Buffer | null } | undefined {
    return this.q<[string], { action: string; n: number | null; digest: Buffer | null }>('SELECT action, n, digest FROM new WHERE path = ?').get(path);
  }

  /** Groups of names a destination cannot hold apart (`fkey` is set only on such a destination). */
  collisionGroups(): IterableIterator<{ parent: string; fkey: string }> {
    return this.q<[], { parent: string; fkey: string }>(
      'SELECT parent, fkey FROM new WHERE fkey IS NOT NULL GROUP BY parent, fkey HAVING COUNT(*) > 1',
    ).iterate();
  }

  /** The first 16 paths of one such group, by name. */
  collisionMembers(parent: string, fkey: string): string[] {
    return this.q<[string, string], string>('SELECT path FROM new WHERE parent = ? AND fkey = ? ORDER BY path LIMIT 16').pluck().all(parent, fkey);
  }

  /** Records a file of DEST's current tree (scratch table `old`). */
  addOld(path: string, size: number, mode: number, mtime: string, digest: Buffer, ok: boolean, attrs: string | null): void {
    this.oldRows.add(path, 'file', size, mode, mtime, digest, ok ? 1 : 0, attrs);
  }

  /** A file of DEST's current tree. */
  oldEntry(path: string): OldRow | undefined {
    return this.q<[string], OldRow>(`SELECT ${OLD_COLUMNS} FROM old WHERE path = ?`).get(path);
  }

  /** Lookups of files of DEST's current tree, made in nearly path order (the planner's, in manifest order). */
  oldCursor(): { lookup(path: string): OldRow | undefined } {
    const c = this.cursor<[string, number, number, string, Buffer, number, string | null]>('old', OLD_COLUMNS);
    return {
      lookup: (path) => {
        const r = c.lookup(path);
        return r === undefined ? undefined : { size: r[1], mode: r[2], mtime: r[3], digest: r[4], ok: r[5], attrs: r[6] };
      },
    };
  }

  /** Lookups of entries of the planned tree, likewise (the sweep's, folder by folder in name order). */
  newCursor(): { lookup(path: string): { type: string; action: string } | undefined } {
    const c = this.cursor<[string, string, string]>('new', 'type, action');
    return {
      lookup: (path) => {
        const r = c.lookup(path);
        return r === undefined ? undefined : { type: r[1], action: r[2] };
      },
    };
  }

  /** A PathCursor over scratch table `table` (keyed by path), its rows as arrays led by the path; each read sees every row added before it. */
  private cursor<R extends [string, ...unknown[]]>(table: 'old' | 'new', columns: string): PathCursor<R> {
    const first = this.q<[], R>(`SELECT path, ${columns} FROM ${table} ORDER BY path LIMIT ${CURSOR_PAGE}`).raw(true);
    const after = this.q<[string], R>(`SELECT path, ${columns} FROM ${table} WHERE path > ? ORDER BY path LIMIT ${CURSOR_PAGE}`).raw(true);
    const one = this.q<[string], R>(`SELECT path, ${columns} FROM ${table} WHERE path = ?`).raw(true);
    return new PathCursor(
      (last) => (this.flush(), last === null ? first.all() : after.all(last)),
      (path) => (this.flush(), one.get(path)),
      (row) => row[0],
    );
  }

  /** Whether DEST holds any intact file to copy from (none on a first ingest: no lookup per file then). */
  anyIntactOld(): boolean {
    return this.q<[]>('SELECT 1 FROM old WHERE ok = 1 AND digest IS NOT NULL LIMIT 1').get() !== undefined;
  }

  /** A file being retired (or replaced by a folder) whose content has `digest` and is intact in DEST: the path to copy it from. */
  retiredWith(digest: Buffer): string | undefined {
    this.indexed('old_digest');
    return this.q<[Buffer], string>(
      `SELECT o.path FROM old o LEFT JOIN new n ON n.path = o.path
       WHERE o.digest = ? AND o.ok = 1 AND (n.path IS NULL OR n.action = 'stage' OR n.type = 'dir') LIMIT 1`,
    )
      .pluck()
      .get(digest);
  }

  /** Records where DEST holds a chunk (the first place found is kept). */
  addHeld(id: Buffer, path: string, offset: number, len: number): void {
    this.heldRows.add(id, path, offset, len);
  }

  /** Where DEST holds a chunk, if it does. */
  heldAt(id: Buffer): { path: string; offset: number; len: number } | undefined {
    this.indexed('held_id');
    return this.q<[Buffer], { path: string; offset: number; len: number }>('SELECT path, offset, len FROM held WHERE id = ? LIMIT 1').get(id);
  }

  /** Runs `sql` after every row added so far is inserted. */
  private exec(sql: string): void {
    this.flush();
    this.conn().exec(sql);
  }
}

/** The scratch table of where DEST holds each chunk, as reset makes it (a chunk in several files has a row for each). */
const HELD_TABLE = 'CREATE TABLE held (id BLOB NOT NULL, path TEXT NOT NULL, offset INTEGER NOT NULL, len INTEGER NOT NULL)';

/** Lookups by a scratch index made by scanning its table, before the index is built (ScratchTables.indexed). */
const SCANS_BEFORE_INDEX = 4;

/** The columns of an OldRow. */
const OLD_COLUMNS = 'size, mode, mtime, digest, ok, attrs';
