import Database from 'better-sqlite3';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';

/**
 * A destination's journal: one SQLite file in its state folder,
 * DEST/.brickpost/journal.sqlite, so it travels with DEST. It holds
 *
 * - `ops`: what each applied shipment did to DEST, in order (kept while the
 *   shipment's undo area is kept: rollback replays them backwards);
 * - `journal`: the one apply or rollback in progress and its phase, so a
 *   crash at any point is finished by the next run;
 * - `old`, `new`, `held`: scratch tables of the ingest being planned (the
 *   tree DEST holds, the shipment's tree, and where DEST holds each chunk),
 *   on disk so memory does not grow with the dataset.
 *
 * Synchronous FULL: a phase change is durable once its transaction commits.
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
    } catch (e) {
      throw new BrickpostError('IO', `cannot open the destination journal ${quote(file)}: ${(e as Error).message}`, { cause: e });
    }
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** The apply or rollback in progress, if any. */
  pending(): JournalRow | null {
    return (this.db.prepare('SELECT shipment, kind, phase, state FROM journal').get() as JournalRow | undefined) ?? null;
  }

  setJournal(row: JournalRow | null): void {
    this.tx(() => {
      this.db.prepare('DELETE FROM journal').run();
      if (row) this.db.prepare('INSERT INTO journal (shipment, kind, phase, state) VALUES (?, ?, ?, ?)').run(row.shipment, row.kind, row.phase, row.state);
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
  /** apply: retire, install, dirs; rollback: unstage, restore, dirs. */
  phase: string;
  /** JSON: the DestState to write when done. */
  state: string;
}

/** Kinds of ops, in the order a commit runs them. */
export type OpKind =
  /** Move DEST's entry at path (if any) into undo (phase retire). */
  | 'retire'
  /** Create a new directory (phase install). */
  | 'mkdir'
  /** Move the staged file `n` to path (phase install). */
  | 'install'
  /** Set mode and mtime of an entry kept in place; old values kept for rollback (phase install). */
  | 'meta';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  shipment TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  phase TEXT NOT NULL,
  state TEXT NOT NULL
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
  PRIMARY KEY (shipment, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS old (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  size INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  digest BLOB,
  ok INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS old_digest ON old (digest);
CREATE TABLE IF NOT EXISTS new (
  path TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  action TEXT NOT NULL,
  n INTEGER,
  digest BLOB
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS held (
  id BLOB PRIMARY KEY,
  path TEXT NOT NULL,
  offset INTEGER NOT NULL,
  len INTEGER NOT NULL
) WITHOUT ROWID;
`;
