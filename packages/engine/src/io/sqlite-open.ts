import Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { BrickpostError, quote } from '@brickpost/manifest';
import { fromSqliteError, type DatabasePlace } from './sqlite-errors.js';
import { guardDatabase } from './sqlite-guard.js';

/**
 * Opening brickpost's own SQLite files (the catalog, destination
 * journals). Each kind carries its own `PRAGMA application_id`, and
 * `user_version` is its schema version. A file is
 *
 * - new (no file, an empty one, or SQLite without tables): initialised;
 * - ours (our application_id): brought up to the current schema, or
 *   refused when a newer brickpost wrote it (UNSUPPORTED_VERSION);
 * - an older brickpost's (application_id 0, tables exactly one of our
 *   earlier schemas): adopted, marked, and brought up to date;
 * - anything else (another program's database, brickpost's other kind of
 *   database, a file that is not SQLite): refused, FOREIGN_DATABASE, and
 *   never changed: nothing is written to it, not even its journal mode.
 *
 * A damaged file is refused as DATABASE_DAMAGED with the command that
 * recovers it; every later error goes through fromSqliteError (sqlite-guard.ts).
 */
export interface OwnDatabase {
  place: DatabasePlace;
  /** The application_id of this kind of file. */
  appId: number;
  /** What brickpost's other kinds of file are, by application_id (`a destination journal`). */
  others: Readonly<Record<number, string>>;
  /** The schema version this brickpost writes. */
  version: number;
  /** For a file with application_id 0 and tables: whether they are exactly an older brickpost's schema. */
  isOlder(db: Database.Database, userVersion: number): boolean;
  /** Creates the schema, or brings it from version `from` (0: none, or an older unversioned one) to `version`; runs in a transaction. */
  upgrade(db: Database.Database, from: number): void;
  /** Pragmas set after the file is known to be ours (`synchronous = FULL`, `foreign_keys = ON`). */
  pragmas: readonly string[];
  /** How long a statement waits for another process's lock before LOCKED. */
  busyMs: number;
  /** What to do about a file from a newer brickpost. */
  newerHint: string;
  /** What to do about a file that is not this database (a command or step that works as printed). */
  foreignHint: string;
  /** Sees every error SQLite raised on the file, as mapped (the catalog keeps its failed writes). */
  observe?: (mapped: unknown, raw: unknown) => void;
}

/** SQLite's file header starts with these 16 bytes. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** The busy timeout: BRICKPOST_BUSY_TIMEOUT milliseconds (tests lower it), else `fallback`. */
export function busyTimeout(fallback: number): number {
  const v = Number(process.env.BRICKPOST_BUSY_TIMEOUT);
  return process.env.BRICKPOST_BUSY_TIMEOUT && Number.isSafeInteger(v) && v >= 0 ? v : fallback;
}

/**
 * Opens (creating or adopting) one of brickpost's databases, guarded.
 * @throws BrickpostError FOREIGN_DATABASE, DATABASE_DAMAGED, UNSUPPORTED_VERSION, LOCKED, PERMISSION, NO_SPACE, IO
 */
export function openOwnDatabase(spec: OwnDatabase): Database.Database {
  const { place } = spec;
  const map = (e: unknown): unknown => {
    const mapped = fromSqliteError(e, place);
    if (mapped !== e) spec.observe?.(mapped, e);
    return mapped;
  };
  if (place.file !== ':memory:') checkHeader(spec);
  let raw: Database.Database;
  try {
    raw = new Database(place.file);
  } catch (e) {
    throw map(e);
  }
  const db = guardDatabase(raw, map);
  try {
    db.pragma(`busy_timeout = ${spec.busyMs}`);
    const found = identify(db);
    const state = classify(spec, db, found);
    db.pragma('journal_mode = WAL');
    for (const p of spec.pragmas) db.pragma(p);
    if (state !== 'current') {
      db.transaction(() => {
        // Another process may have set the file up since it was looked at.
        const now = identify(db);
        const again = classify(spec, db, now);
        if (again === 'current') return;
        spec.upgrade(db, again === 'new' ? 0 : now.version);
        db.pragma(`application_id = ${spec.appId}`);
        db.pragma(`user_version = ${spec.version}`);
      }).immediate();
    }
    return db;
  } catch (e) {
    raw.close();
    throw e;
  }
}

/** Each table of a database's schema with its columns, as `table(col,col,…)` lines in name order. */
export function tablesOf(db: Database.Database): string[] {
  const tables = tableNames(db);
  const columns = db.prepare<[string], string>('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck();
  return tables.map((t) => `${t}(${columns.all(t).join(',')})`);
}

/** The names of a database's own tables, in order. */
function tableNames(db: Database.Database): string[] {
  return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
}

interface Found {
  appId: number;
  version: number;
  tables: string[];
}

function identify(db: Database.Database): Found {
  return {
    appId: db.pragma('application_id', { simple: true }) as number,
    version: db.pragma('user_version', { simple: true }) as number,
    tables: tableNames(db),
  };
}

/** What the file is: current, needing an upgrade, new, or an older brickpost's; throws for anything else. */
function classify(spec: OwnDatabase, db: Database.Database, f: Found): 'current' | 'upgrade' | 'new' | 'older' {
  const where = `the ${spec.place.what} ${quote(spec.place.file)}`;
  const refuse = (what: string): BrickpostError =>
    new BrickpostError('FOREIGN_DATABASE', `${where} ${what}; brickpost leaves it as it is`, { path: spec.place.file, hint: spec.foreignHint });
  if (f.appId === spec.appId) {
    if (f.version > spec.version) {
      throw new BrickpostError('UNSUPPORTED_VERSION', `${where} has schema ${f.version}, newer than this brickpost knows (${spec.version})`, {
        path: spec.place.file,
        hint: spec.newerHint,
      });
    }
    return f.version === spec.version ? 'current' : 'upgrade';
  }
  const other = spec.others[f.appId];
  if (other !== undefined) throw refuse(`is ${other}, not a ${spec.place.what}`);
  if (f.appId !== 0) throw refuse(`is another program's database (application_id 0x${(f.appId >>> 0).toString(16).padStart(8, '0')})`);
  if (f.tables.length === 0 && f.version === 0) return 'new';
  if (spec.isOlder(db, f.version)) return 'older';
  throw refuse(
    `is another program's database (tables ${f.tables
      .slice(0, 6)
      .map((t) => quote(t))
      .join(', ')}${f.tables.length > 6 ? ', …' : ''})`,
  );
}

/** Refuses a file that is not SQLite at all (SQLite would only say "file is not a database"). */
function checkHeader(spec: OwnDatabase): void {
  let fd: number;
  try {
    fd = openSync(spec.place.file, 'r');
  } catch {
    return; // absent (created next) or unreadable (reported by the open)
  }
  const head = Buffer.alloc(MAGIC.length);
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } catch {
    return;
  } finally {
    closeSync(fd);
  }
  // A header cut short is a damaged file, which SQLite reports as such.
  if (head.subarray(0, n).equals(MAGIC.subarray(0, n))) return;
  throw new BrickpostError(
    'FOREIGN_DATABASE',
    `the ${spec.place.what} ${quote(spec.place.file)} is not a SQLite database (it starts with ${quote(head.subarray(0, n).toString('latin1'), 16)}); brickpost leaves it as it is`,
    {
      path: spec.place.file,
      hint: `${spec.foreignHint}; if it was brickpost's and got damaged, run '${spec.place.recover}': it sets the file aside and rebuilds what it can`,
    },
  );
}

/**
 * The application_id of each kind of brickpost database ('BPct', 'BPjn',
 * 'BPbx' in ASCII), and what each is called in a message.
 */
export const APPLICATION_IDS = { catalog: 0x42504374, journal: 0x42506a6e, browse: 0x42506278 } as const;
export const KIND_NAMES: Readonly<Record<number, string>> = {
  [APPLICATION_IDS.catalog]: "a brickpost home's catalog",
  [APPLICATION_IDS.journal]: "a brickpost destination's journal",
  [APPLICATION_IDS.browse]: "a brickpost shipment's browse index",
};

/**
 * Syncs what the write-ahead log holds into the database file (a passive
 * checkpoint: it waits for no other process) and reports its failure,
 * which closing would swallow: a failed fsync is an error, never silence.
 * @throws BrickpostError IO, NO_SPACE, PERMISSION (through the guard)
 */
export function checkpoint(db: Database.Database): void {
  if (db.memory || db.readonly || !db.open) return;
  db.pragma('wal_checkpoint(PASSIVE)');
}

/** True for an error that may have lost a write: SQLite's I/O errors and a full disk. */
export function isLostWrite(raw: unknown): boolean {
  const code = (raw as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_FULL');
}

/**
 * Checkpoints and closes a database; the database is closed even when the
 * checkpoint fails, and the failure is thrown.
 * @throws BrickpostError IO, NO_SPACE, PERMISSION
 */
export function closeDatabase(db: Database.Database): void {
  if (!db.open) return;
  try {
    checkpoint(db);
  } finally {
    db.close();
  }
}
