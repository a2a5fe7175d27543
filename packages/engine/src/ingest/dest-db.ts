import type Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { fromField, toField } from '@brickpost/manifest';
import { commandLine } from '../io/command-line.js';
import type { DatabasePlace } from '../io/sqlite-errors.js';
import { APPLICATION_IDS, busyTimeout, closeDatabase, KIND_NAMES, openOwnDatabase, tablesOf } from '../io/sqlite-open.js';
import { DEFAULT_POLICY, type ApplyPolicy } from './policy.js';

/**
 * A destination's journal: one SQLite file in its state folder,
 * DEST/.brickpost/journal.sqlite, so it travels with DEST. It holds
 *
 * - `ops`: what each applied shipment did to DEST, in order (kept while the
 *   shipment's undo area is kept: rollback replays them backwards): retire,
 *   mkdir, install and meta, then (after every file is in place) hardlink,
 *   symlink, special and lmeta;
 * - `journal`: the one apply or rollback in progress and its phase, so a
 *   crash at any point is finished by the next run;
 * - `old`, `new`, `held`: scratch tables of the ingest being planned (the
 *   tree DEST holds, the shipment's tree, and where DEST holds each chunk),
 *   on disk so memory does not grow with the dataset.
 *
 * Paths are stored in their manifest field form (dbPath), so a name that
 * is not UTF-8 survives SQLite's UTF-8 text. Synchronous FULL: a phase
 * change is durable once its transaction commits. The file is marked as a
 * journal (application_id; user_version is JOURNAL_VERSION) and opened as
 * io/sqlite-open.ts says; a damaged one is recovered by
 * `brickpost journal recover DEST` (journal-recover.ts).
 */
export class DestDb {
  readonly db: Database.Database;
  readonly place: DatabasePlace;

  /**
   * Opens (creating, or adopting one an older brickpost wrote) the
   * journal in the state folder `stateDir` of DEST.
   * @throws BrickpostError FOREIGN_DATABASE, DATABASE_DAMAGED (with the command that recovers it), UNSUPPORTED_VERSION, LOCKED, PERMISSION, NO_SPACE, IO
   */
  constructor(stateDir: string) {
    const file = join(stateDir, 'journal.sqlite');
    this.place = { file, what: 'destination journal', recover: commandLine(['journal', 'recover', dirname(stateDir)]) };
    this.db = openOwnDatabase({
      place: this.place,
      appId: APPLICATION_IDS.journal,
      others: KIND_NAMES,
      version: JOURNAL_VERSION,
      isOlder: (db, version) => version === 0 && isOlderJournal(tablesOf(db)),
      upgrade: (db) => {
        db.exec(SCHEMA);
        // Journals written before v2 manifests lack these columns.
        addColumns(db, 'ops', ['target TEXT', 'attrs TEXT', 'old_attrs TEXT']);
        addColumns(db, 'journal', ['policy TEXT']);
        addColumns(db, 'old', ['attrs TEXT']);
        addColumns(db, 'new', ['parent TEXT', 'fkey TEXT']);
        db.exec('CREATE INDEX IF NOT EXISTS new_fkey ON new (parent, fkey) WHERE fkey IS NOT NULL');
      },
      pragmas: ['synchronous = FULL'],
      busyMs: busyTimeout(10_000),
      newerHint: 'a newer brickpost ingested into this destination: use that version',
      foreignHint: 'move it out of the destination\'s .brickpost folder',
    });
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** The apply or rollback in progress, if any. */
  pending(): JournalRow | null {
    const r = this.db.prepare('SELECT shipment, kind, phase, state, policy FROM journal').get() as (Omit<JournalRow, 'policy'> & { policy: string | null }) | undefined;
    if (!r) return null;
    return { ...r, policy: r.policy ? (JSON.parse(r.policy) as ApplyPolicy) : DEFAULT_POLICY };
  }

  setJournal(row: JournalRow | null): void {
    this.tx(() => {
      this.db.prepare('DELETE FROM journal').run();
      if (row) this.db.prepare('INSERT INTO journal (shipment, kind, phase, state, policy) VALUES (?, ?, ?, ?, ?)').run(row.shipment, row.kind, row.phase, row.state, JSON.stringify(row.policy));
    });
  }

  /** Clears the scratch tables of a previous plan. */
  resetScratch(): void {
    this.db.exec('DELETE FROM old; DELETE FROM new; DELETE FROM held;');
  }

  dropOps(shipment: string): void {
    this.db.prepare('DELETE FROM ops WHERE shipment = ?').run(shipment);
  }

  /** Syncs and closes; closed even when the sync fails. @throws BrickpostError IO, NO_SPACE, PERMISSION */
  close(): void {
    closeDatabase(this.db);
  }

  /**
   * Closes after the work on DEST: returns what closing failed with (a
   * failed sync: the caller throws it once DEST's lock is released), or
   * null; when the work itself `failed`, its error is the one reported and
   * a failure to close is dropped.
   */
  closeAfter(failed: boolean): unknown {
    try {
      this.close();
      return null;
    } catch (e) {
      return failed ? null : e;
    }
  }

  /**
   * Opens DEST's journal while DEST's lock is held; when the journal
   * cannot be opened, the lock is released before the error is thrown.
   * @throws what the constructor throws
   */
  static async openLocked(stateDir: string, unlock: () => Promise<void>): Promise<DestDb> {
    try {
      return new DestDb(stateDir);
    } catch (e) {
      await unlock();
      throw e;
    }
  }
}

export interface JournalRow {
  shipment: string;
  kind: 'apply' | 'rollback';
  /** apply: retire, install, links, dirs; rollback: unstage, restore, dirs. */
  phase: string;
  /** JSON: the DestState to write when done. */
  state: string;
  /** What the commit applies of the recorded attributes (the options of the ingest that planned it). */
  policy: ApplyPolicy;
}

/** A path as the journal's tables store it (its manifest field form: UTF-8 text whatever its bytes). */
export function dbPath(p: string): string {
  return toField(p);
}

/** A path read back from the journal's tables. */
export function pathFromDb(p: string): string {
  return fromField(p, 'destination journal', 'path');
}

/** The schema version of a journal this brickpost writes (journals before it were unversioned: 0). */
export const JOURNAL_VERSION = 1;

/** The tables of the first journals, and the columns every version of each had. */
const FIRST_JOURNAL: Readonly<Record<string, readonly string[]>> = {
  held: ['id', 'path', 'offset', 'len'],
  journal: ['shipment', 'kind', 'phase', 'state'],
  new: ['path', 'type', 'action', 'n', 'digest'],
  old: ['path', 'type', 'size', 'mode', 'mtime', 'digest', 'ok'],
  ops: ['shipment', 'n', 'kind', 'path', 'mode', 'mtime', 'old_mode', 'old_mtime'],
};
/** The columns added since, by table. */
const ADDED: Readonly<Record<string, readonly string[]>> = { journal: ['policy'], new: ['parent', 'fkey'], old: ['attrs'], ops: ['target', 'attrs', 'old_attrs'] };

/**
 * Whether the tables of an unmarked file (as tablesOf gives them) are an
 * unversioned journal: exactly the journal's tables, each with its first
 * columns in order followed by some of those added since.
 */
export function isOlderJournal(tables: string[]): boolean {
  const names = Object.keys(FIRST_JOURNAL);
  if (tables.length !== names.length) return false;
  return tables.every((line, i) => {
    const m = /^([a-z_]+)\((.*)\)$/.exec(line);
    if (!m || m[1] !== names[i]) return false;
    const cols = m[2]!.split(',');
    const first = FIRST_JOURNAL[m[1]!]!;
    const rest = cols.slice(first.length);
    return first.every((c, j) => cols[j] === c) && rest.every((c, j) => (ADDED[m[1]!] ?? [])[j] === c);
  });
}

/** Adds columns a table lacks (a journal from an earlier version). */
function addColumns(db: Database.Database, table: string, columns: string[]): void {
  const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
  for (const c of columns) if (!have.has(c.split(' ')[0]!)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${c}`);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  shipment TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  phase TEXT NOT NULL,
  state TEXT NOT NULL,
  policy TEXT
);
CREATE TABLE IF NOT EXISTS ops (
  shipment TEXT NOT NULL,
  n INTEGER NOT NULL,
  kind TEXT NOT NULL,
  path TEXT NOT NULL,
  mode INTEGER,
  mtime TEXT,
  old_mode INTEGER,
  old_mtime TEXT,
  target TEXT,
  attrs TEXT,
  old_attrs TEXT,
  PRIMARY KEY (shipment, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS old (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  size INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  digest BLOB,
  ok INTEGER NOT NULL,
  attrs TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS old_digest ON old (digest);
CREATE TABLE IF NOT EXISTS new (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  action TEXT NOT NULL,
  n INTEGER,
  digest BLOB,
  parent TEXT,
  fkey TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS held (
  id BLOB PRIMARY KEY,
  path TEXT NOT NULL,
  offset INTEGER NOT NULL,
  len INTEGER NOT NULL
) WITHOUT ROWID;
`;
