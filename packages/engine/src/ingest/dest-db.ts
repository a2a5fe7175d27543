import Database from 'better-sqlite3';
import { join } from 'node:path';
import { BrickpostError, fromField, quote, toField } from '@brickpost/manifest';
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
 * change is durable once its transaction commits.
 */
export class DestDb {
  readonly db: Database.Database;

  constructor(stateDir: string) {
    const file = join(stateDir, 'journal.sqlite');
    try {
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('busy_timeout = 5000');
      this.db.exec(SCHEMA);
      // Journals written before v2 manifests lack these columns.
      addColumns(this.db, 'ops', ['target TEXT', 'attrs TEXT', 'old_attrs TEXT']);
      addColumns(this.db, 'journal', ['policy TEXT']);
      addColumns(this.db, 'old', ['attrs TEXT']);
      addColumns(this.db, 'new', ['parent TEXT', 'fkey TEXT']);
      this.db.exec('CREATE INDEX IF NOT EXISTS new_fkey ON new (parent, fkey) WHERE fkey IS NOT NULL');
    } catch (e) {
      throw new BrickpostError('IO', `cannot open the destination journal ${quote(file)}: ${(e as Error).message}`, { cause: e });
    }
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

  close(): void {
    this.db.close();
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
