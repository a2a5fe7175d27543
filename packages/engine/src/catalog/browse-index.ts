/**
 * A shipment's browse index: its tree as one SQLite file in the home's
 * cache (browse/index-file.ts says where and when), so opening a folder is
 * one indexed query instead of a pass over the manifest.
 *
 * - `entry`: one row per manifest entry, `n` in manifest order, `parent`
 *   the `n` of the folder holding it (0 for the shipment's root), `name`
 *   its last path part as bytes, `entry` the rest of its ListEntry as JSON
 *   (no path, no owner), `owner` the row of its owner in `owner`.
 * - `owner`: each distinct owner (uid, gid and names) as JSON, the first
 *   MAX_OWNERS of them; an entry with another keeps its owner in its JSON.
 * - `folder`: each folder's number of children.
 * - `meta`: the shipment id, the signed SHA-256 of the manifest it was
 *   built from, and its entry count: an index that does not name the
 *   manifest being browsed is not used.
 *
 * The file is marked by its application_id and user_version; anything else
 * found under an index's name is not read as one.
 */
import Database from 'better-sqlite3';
import { fromBytes } from '@brickpost/manifest';
import type { ListEntry } from '../api/index.js';
import { APPLICATION_IDS } from '../io/sqlite-open.js';

/** The schema version of browse indexes. */
const VERSION = 1;
/** Distinct owners kept in their own table (and in memory while building); past them, an entry's JSON holds its owner. */
const MAX_OWNERS = 4096;

/** What an index was built from. */
export interface BrowseIndexKey {
  shipment: string;
  digest: string;
  entries: number;
}

/** A row of `entry` as the reader selects it. */
interface Row {
  name: Buffer;
  entry: string;
  owner: number | null;
}

/** An entry of an index found by path: its number and its listing (path as the name). */
export interface IndexedEntry {
  n: number;
  entry: ListEntry;
}

/**
 * Writes a new index into `file` (a temporary name: the caller renames it
 * when finish returns). Rows go in batches of one transaction each; the
 * lookup indexes are made once at the end. Nothing is synced by SQLite: the
 * caller syncs the finished file before renaming it.
 */
export class BrowseIndexWriter {
  private readonly db: Database.Database;
  private readonly insert;
  private readonly insertOwner;
  private readonly owners = new Map<string, number>();
  private rows = 0;
  private inBatch = 0;

  constructor(
    file: string,
    private readonly batch = 10_000,
  ) {
    this.db = new Database(file);
    try {
      this.db.pragma('journal_mode = OFF');
      this.db.pragma('synchronous = OFF');
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE entry (n INTEGER PRIMARY KEY, parent INTEGER NOT NULL, name BLOB NOT NULL, entry TEXT NOT NULL, owner INTEGER);
        CREATE TABLE owner (id INTEGER PRIMARY KEY, owner TEXT NOT NULL);
        CREATE TABLE folder (n INTEGER PRIMARY KEY, children INTEGER NOT NULL);
      `);
      this.insert = this.db.prepare<[number, number, Buffer, string, number | null]>(
        'INSERT INTO entry (n, parent, name, entry, owner) VALUES (?, ?, ?, ?, ?)',
      );
      this.insertOwner = this.db.prepare<[number, string]>('INSERT INTO owner (id, owner) VALUES (?, ?)');
    } catch (e) {
      this.db.close();
      throw e;
    }
  }

  /** Adds the next entry in manifest order (its path is its name's bytes); returns its number. */
  add(parent: number, name: Buffer, entry: ListEntry): number {
    if (this.inBatch === 0) this.db.exec('BEGIN');
    const n = ++this.rows;
    const { path: _path, owner, ...rest } = entry;
    let ownerId: number | null = null;
    if (owner !== undefined) {
      const json = JSON.stringify(owner);
      ownerId = this.owners.get(json) ?? null;
      if (ownerId === null && this.owners.size < MAX_OWNERS) {
        ownerId = this.owners.size + 1;
        this.owners.set(json, ownerId);
        this.insertOwner.run(ownerId, json);
      }
    }
    this.insert.run(n, parent, name, JSON.stringify(ownerId === null && owner !== undefined ? { ...rest, owner } : rest), ownerId);
    if (++this.inBatch === this.batch) {
      this.db.exec('COMMIT');
      this.inBatch = 0;
    }
    return n;
  }

  /** Makes the lookup indexes and the folder counts, marks the file as an index of `key`, and closes it. */
  finish(key: Omit<BrowseIndexKey, 'entries'>): void {
    if (this.inBatch > 0) this.db.exec('COMMIT');
    this.inBatch = 0;
    this.db.transaction(() => {
      this.db.exec(`
        CREATE UNIQUE INDEX entry_name ON entry (parent, name);
        CREATE INDEX entry_children ON entry (parent, n);
        INSERT INTO folder (n, children) SELECT parent, count(*) FROM entry GROUP BY parent;
      `);
      const meta = this.db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?)');
      meta.run('shipment', key.shipment);
      meta.run('digest', key.digest);
      meta.run('entries', String(this.rows));
    })();
    this.db.pragma(`application_id = ${APPLICATION_IDS.browse}`);
    this.db.pragma(`user_version = ${VERSION}`);
    this.db.close();
  }

  /** Closes an unfinished index (the caller deletes its file). */
  abort(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * An index opened for reading. The constructor refuses (throws) a file
 * that is not an index of `key`; every query throws what SQLite throws for
 * a damaged file. The caller rebuilds on either.
 */
export class BrowseIndexReader {
  private readonly db: Database.Database;
  private readonly owners = new Map<number, NonNullable<ListEntry['owner']>>();

  /** @throws Error when `file` is not a complete index of `key`, and what SQLite throws */
  constructor(file: string, key: BrowseIndexKey) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const appId = this.db.pragma('application_id', { simple: true }) as number;
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (appId !== APPLICATION_IDS.browse || version !== VERSION) throw new Error('not a browse index of this version');
      const meta = new Map(
        this.db
          .prepare<[], { key: string; value: string }>('SELECT key, value FROM meta')
          .all()
          .map((r) => [r.key, r.value]),
      );
      if (meta.get('shipment') !== key.shipment || meta.get('digest') !== key.digest || meta.get('entries') !== String(key.entries)) {
        throw new Error('an index of another manifest');
      }
    } catch (e) {
      this.db.close();
      throw e;
    }
  }

  /** The entry named `name` in folder `parent` (0: the root), or undefined. */
  child(parent: number, name: Buffer): IndexedEntry | undefined {
    const row = this.db
      .prepare<[number, Buffer], Row & { n: number }>('SELECT n, name, entry, owner FROM entry WHERE parent = ? AND name = ?')
      .get(parent, name);
    return row && { n: row.n, entry: this.entryOf(row) };
  }

  /** The first `limit` children of folder `parent` in manifest order (paths as names), and how many it has in all. */
  children(parent: number, limit: number): { entries: ListEntry[]; total: number } {
    const entries = this.db
      .prepare<[number, number], Row>('SELECT name, entry, owner FROM entry WHERE parent = ? ORDER BY n LIMIT ?')
      .all(parent, limit)
      .map((r) => this.entryOf(r));
    const total = this.db.prepare<[number], number>('SELECT children FROM folder WHERE n = ?').pluck().get(parent) ?? 0;
    return { entries, total };
  }

  /** A row as a ListEntry (path: its name). @throws Error for a row BrowseIndexWriter did not write */
  private entryOf(r: Row): ListEntry {
    const e = JSON.parse(r.entry) as unknown;
    if (typeof e !== 'object' || e === null || typeof (e as { type?: unknown }).type !== 'string') throw new Error('not an entry of a browse index');
    const entry = { ...(e as Omit<ListEntry, 'path'>), path: fromBytes(r.name) };
    if (r.owner !== null) {
      let owner = this.owners.get(r.owner);
      if (owner === undefined) {
        const json = this.db.prepare<[number], string>('SELECT owner FROM owner WHERE id = ?').pluck().get(r.owner);
        if (json === undefined) throw new Error('an entry of a browse index names no owner');
        owner = JSON.parse(json) as NonNullable<ListEntry['owner']>;
        this.owners.set(r.owner, owner);
      }
      entry.owner = owner;
    }
    return entry;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
