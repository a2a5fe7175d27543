import Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { fromField, toField } from '@brickpost/manifest';
import { commandLine } from '../io/command-line.js';
import type { DatabasePlace } from '../io/sqlite-errors.js';
import { APPLICATION_IDS, busyTimeout, closeDatabase, KIND_NAMES, openOwnDatabase, tablesOf } from '../io/sqlite-open.js';
import { addColumns, isOlderJournal, JOURNAL_VERSION, SCHEMA } from './dest-schema.js';
import { DEFAULT_POLICY, type ApplyPolicy } from './policy.js';
import { UNDO_SCHEMA } from './undo-db.js';
import { RowBatch } from './row-batch.js';
import { ScratchTables } from './scratch-tables.js';

export { isOlderJournal, JOURNAL_VERSION } from './dest-schema.js';
import { STAGED_IN_TREE, type JournalRow, type OpInsert, type OpRow, type OpSelection } from './dest-rows.js';
export type { JournalRow, OldRow, OpInsert, OpKind, OpRow, OpSelection } from './dest-rows.js';

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
 * - `undo_files`, `undo_refs`, `undo_chunks`: the chunk undo store's
 *   record (undo-db.ts);
 * - `old`, `new`, `held`: scratch tables of the ingest being planned (the
 *   tree DEST holds, the shipment's tree, and where DEST holds each chunk),
 *   on disk so memory does not grow with the dataset (`scratch`,
 *   scratch-tables.ts).
 *
 * Paths are stored in their manifest field form (dbPath), so a name that
 * is not UTF-8 survives SQLite's UTF-8 text. Synchronous FULL: a phase
 * change is durable once its transaction commits. The file is marked as a
 * journal (application_id; user_version is JOURNAL_VERSION) and opened as
 * io/sqlite-open.ts says; a damaged one is recovered by
 * `brickpost journal recover DEST` (journal-recover.ts).
 */
export class DestDb {
  private readonly conn: Database.Database;
  readonly place: DatabasePlace;
  private readonly stmts = new Map<string, Database.Statement>();
  /** Rows of `ops` the planner added, inserted a batch at a time (flushed before any other statement). */
  private readonly opRows = new RowBatch(
    () => this.conn,
    'INSERT INTO ops (shipment, n, kind, path, mode, mtime, old_mode, old_mtime, target, attrs, old_attrs) VALUES',
    11,
  );
  /** The scratch tables of the ingest being planned (scratch-tables.ts), their rows batched likewise. */
  readonly scratch = new ScratchTables(
    () => this.conn,
    (sql) => this.q(sql),
    () => this.flush(),
  );
  private readonly batches = [this.opRows, ...this.scratch.batches];

  /** The connection, with every row added so far inserted. */
  get db(): Database.Database {
    this.flush();
    return this.conn;
  }

  /** Inserts every row added so far. */
  private flush(): void {
    for (const b of this.batches) b.flush();
  }

  /**
   * Opens (creating, or adopting one an older brickpost wrote) the
   * journal in the state folder `stateDir` of DEST.
   * @throws BrickpostError FOREIGN_DATABASE, DATABASE_DAMAGED (with the command that recovers it), UNSUPPORTED_VERSION, LOCKED, PERMISSION, NO_SPACE, IO
   */
  constructor(stateDir: string) {
    const file = join(stateDir, 'journal.sqlite');
    this.place = { file, what: 'destination journal', recover: commandLine(['journal', 'recover', dirname(stateDir)]) };
    this.conn = openOwnDatabase({
      place: this.place,
      appId: APPLICATION_IDS.journal,
      others: KIND_NAMES,
      version: JOURNAL_VERSION,
      isOlder: (db, version) => version === 0 && isOlderJournal(tablesOf(db)),
      upgrade: (db) => {
        db.exec(SCHEMA);
        db.exec(UNDO_SCHEMA);
        // Journals written before v2 manifests lack these columns.
        addColumns(db, 'ops', ['target TEXT', 'attrs TEXT', 'old_attrs TEXT']);
        addColumns(db, 'journal', ['policy TEXT']);
        addColumns(db, 'old', ['attrs TEXT']);
        addColumns(db, 'new', ['parent TEXT', 'fkey TEXT']);
        db.exec('CREATE INDEX IF NOT EXISTS new_fkey ON new (parent, fkey) WHERE fkey IS NOT NULL');
      },
      // 8 MB of pages, as the catalog (not the 16 MB better-sqlite3 builds SQLite with): an ingest of a million files
      // filled all 16 and peaked 8–12 MB higher, in the same time at 300,000 files and at a million.
      pragmas: ['synchronous = FULL', 'cache_size = -8000'],
      busyMs: busyTimeout(10_000),
      newerHint: 'a newer brickpost ingested into this destination: use that version',
      foreignHint: "move it out of the destination's .brickpost folder",
    });
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** The apply or rollback in progress, if any. */
  pending(): JournalRow | null {
    const r = this.q<[], Omit<JournalRow, 'policy'> & { policy: string | null }>('SELECT shipment, kind, phase, state, policy FROM journal').get();
    if (!r) return null;
    return { ...r, policy: r.policy ? (JSON.parse(r.policy) as ApplyPolicy) : DEFAULT_POLICY };
  }

  setJournal(row: JournalRow | null): void {
    this.tx(() => {
      this.q('DELETE FROM journal').run();
      if (row)
        this.q('INSERT INTO journal (shipment, kind, phase, state, policy) VALUES (?, ?, ?, ?, ?)').run(
          row.shipment,
          row.kind,
          row.phase,
          row.state,
          JSON.stringify(row.policy),
        );
    });
  }

  dropOps(shipment: string): void {
    this.q<[string]>('DELETE FROM ops WHERE shipment = ?').run(shipment);
  }

  /** Records op `n` of a shipment (the planner writes them in order). */
  addOp(o: OpInsert): void {
    this.opRows.add(o.shipment, o.n, o.kind, o.path, o.mode, o.mtime, o.oldMode, o.oldMtime, o.target, o.attrs, o.oldAttrs);
  }

  /**
   * The ops of the install phase of a shipment in order, paths in their
   * stored form, a page at a time, passing over the files staged in the
   * staging tree below a folder the commit moved in whole from there (they
   * moved with it): after each op, `passOver()` names that folder (stored
   * form) when such files may follow. The manifest lists a folder's tree
   * after it, so they come in runs between the ops of the folders below
   * (which are still made where the staging tree had none: a folder with no
   * file staged in it). Within a page a run is skipped; the pages after it
   * are read without them (in SQL), so a tree moved whole costs a row read
   * for each of its folders, not for each of its files.
   */
  *installPhase(shipment: string, passOver: () => string | null): Generator<OpRow, void> {
    const page = this.q<[string, number], OpRow>(`SELECT ${OP_COLUMNS} FROM ops WHERE shipment = ? AND n > ?${INSTALL_OPS} ORDER BY n LIMIT ${OPS_PAGE}`);
    let rows = page.all(shipment, -1);
    let i = 0;
    while (i < rows.length) {
      yield rows[i++]!;
      const dir = passOver();
      if (dir !== null) {
        const below = `${dir}/`;
        while (i < rows.length && rows[i]!.kind === 'install' && rows[i]!.target === STAGED_IN_TREE && rows[i]!.path.startsWith(below)) i++;
      }
      if (i === rows.length && rows.length === OPS_PAGE) {
        const after = rows[i - 1]!.n;
        rows =
          dir === null
            ? page.all(shipment, after)
            : this.q<[string, number, string, string, string], OpRow>(
                `SELECT ${OP_COLUMNS} FROM ops WHERE shipment = ? AND n > ?${INSTALL_OPS} AND NOT (path >= ? AND path < ? AND kind = 'install' AND target = ?) ORDER BY n LIMIT ${OPS_PAGE}`,
              ).all(shipment, after, `${dir}/`, `${dir}0`, STAGED_IN_TREE);
        i = 0;
      }
    }
  }

  /** The ops of a shipment of one commit phase (or all of them, newest first to undo them), paths in their stored form. */
  ops(shipment: string, which: OpSelection): Generator<OpRow, void> {
    const where = which === 'retire' ? ` AND kind = 'retire'` : which === 'install' ? INSTALL_OPS : which === 'links' ? ` AND kind IN ${LINK_OPS}` : '';
    return this.opPages<OpRow>(OP_COLUMNS, shipment, where, which === 'undo');
  }

  /**
   * Columns `cols` of a shipment's ops matching `where`, in order of their
   * numbers, a page at a time (keyset on the primary key): the connection
   * is free between pages and memory does not grow with the shipment's files.
   */
  private *opPages<R extends { n: number }>(cols: string, shipment: string, where: string, desc: boolean): Generator<R, void> {
    const page = this.q<[string, number], R>(
      `SELECT ${cols} FROM ops WHERE shipment = ? AND n ${desc ? '<' : '>'} ?${where} ORDER BY n ${desc ? 'DESC' : 'ASC'} LIMIT ${OPS_PAGE}`,
    );
    let after = desc ? Number.MAX_SAFE_INTEGER : -1;
    for (;;) {
      const rows = page.all(shipment, after);
      yield* rows;
      const last = rows[rows.length - 1];
      if (rows.length < OPS_PAGE || last === undefined) return;
      after = last.n;
    }
  }

  /** The install ops of a shipment numbered after `after`, in order, a page at most (the Stager reads them as the plan writes them). */
  installsAfter(shipment: string, after: number): Array<{ n: number; path: string; target: string | null }> {
    return this.q<[string, number], { n: number; path: string; target: string | null }>(
      `SELECT n, path, target FROM ops WHERE shipment = ? AND n > ? AND kind = 'install' ORDER BY n LIMIT ${OPS_PAGE}`,
    ).all(shipment, after);
  }

  /** Whether the journal keeps any op of `shipment` (its undo steps). */
  hasOps(shipment: string): boolean {
    return this.q<[string]>('SELECT 1 FROM ops WHERE shipment = ? LIMIT 1').get(shipment) !== undefined;
  }

  /** The shipments whose ops the journal keeps. */
  opShipments(): string[] {
    return this.q<[], string>('SELECT DISTINCT shipment FROM ops').pluck().all();
  }

  /** Starts a batch of writes (a transaction; planning a large tree commits it every so often). */
  begin(): void {
    this.db.exec('BEGIN');
  }

  /** Commits the batch of writes; `more` opens the next one. */
  commit(more = false): void {
    this.db.exec(more ? 'COMMIT; BEGIN' : 'COMMIT');
  }

  /** Rolls the batch back, if one is open. */
  rollback(): void {
    for (const b of this.batches) b.discard();
    if (this.conn.inTransaction) this.conn.exec('ROLLBACK');
  }

  /** Clears the folder attributes to apply deepest first (a temporary table of this connection). */
  resetDirMeta(): void {
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS dirmeta (path TEXT PRIMARY KEY, mode INTEGER, mtime TEXT, attrs TEXT) WITHOUT ROWID; DELETE FROM dirmeta;');
  }

  /** Records a folder's attributes; `key` is its path's bytes as latin1 text, so that descending order puts every folder after what it holds. */
  addDirMeta(key: string, mode: number, mtime: string, attrs: string | null): void {
    this.q<[string, number, string, string | null]>('INSERT OR REPLACE INTO dirmeta (path, mode, mtime, attrs) VALUES (?, ?, ?, ?)').run(
      key,
      mode,
      mtime,
      attrs,
    );
  }

  /** The recorded folders, deepest first. */
  dirMetaDeepestFirst(): IterableIterator<{ path: string; mode: number; mtime: string; attrs: string | null }> {
    return this.q<[], { path: string; mode: number; mtime: string; attrs: string | null }>(
      'SELECT path, mode, mtime, attrs FROM dirmeta ORDER BY path DESC',
    ).iterate();
  }

  /** Empties the folder attributes recorded. */
  clearDirMeta(): void {
    this.db.exec('DELETE FROM dirmeta');
  }

  /** The statement of `sql`, prepared once per DestDb. */
  private q<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    const db = this.db;
    let s = this.stmts.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s as Database.Statement<P, R>;
  }

  /** Syncs and closes; closed even when the sync fails. @throws BrickpostError IO, NO_SPACE, PERMISSION */
  close(): void {
    // Rows never committed go with their transaction.
    for (const b of this.batches) b.discard();
    closeDatabase(this.conn);
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

/** Rows of the journal's ops read at a time: a commit holds one page, never the shipment's ops whole. */
const OPS_PAGE = 512;

/** Ops of the links phase: after every file and folder is in place. */
const LINK_OPS = "('hardlink', 'symlink', 'special', 'lmeta')";

/** The condition on the ops of the install phase. */
const INSTALL_OPS = ` AND kind != 'retire' AND kind NOT IN ${LINK_OPS}`;

/** The columns of an OpRow. */
const OP_COLUMNS = 'n, kind, path, mode, mtime, old_mode, old_mtime, target, attrs, old_attrs';

/**
 * The step of the journal in progress, read without writing (the journal
 * file may belong to a running ingest): null when there is none, or when
 * the journal cannot be read.
 */
export function readPendingStep(file: string): { shipment: string; kind: string; phase: string } | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return db.prepare<[], { shipment: string; kind: string; phase: string }>('SELECT shipment, kind, phase FROM journal').get() ?? null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/** A path as the journal's tables store it (its manifest field form: UTF-8 text whatever its bytes). */
export function dbPath(p: string): string {
  return toField(p);
}

/** A path read back from the journal's tables. */
export function pathFromDb(p: string): string {
  return fromField(p, 'destination journal', 'path');
}
