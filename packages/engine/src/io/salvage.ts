import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SalvagedTable } from '../api/recover.js';
import { sqliteCode } from './sqlite-errors.js';

/** Rows copied per transaction of the new database. */
const BATCH = 5000;

/**
 * Copies what can still be read of `tables` from a damaged SQLite file
 * (set aside: it is only read) into the new database `to`, table by table
 * in the order given (parents before the rows that refer to them): every
 * row up to the first that cannot be read, of the columns both schemas
 * have. A row the new database refuses (it refers to a row that was lost)
 * is counted lost. Errors of the new database are thrown; those of the
 * damaged file end that table's copy and are reported in its entry.
 * @throws BrickpostError (the new database failing: IO, NO_SPACE…)
 */
export function salvageTables(fromFile: string, to: Database.Database, tables: readonly string[]): SalvagedTable[] {
  const src = openDamaged(fromFile);
  if (typeof src === 'string') return tables.map((table) => ({ table, kept: 0, lost: null, error: src }));
  try {
    return tables.map((t) => salvageTable(src.db, to, t));
  } finally {
    src.close();
  }
}

/**
 * Opens the damaged file read-only. With a write-ahead log beside it and no
 * shared-memory file, SQLite cannot open it read-only: a copy of both in a
 * temporary folder is read instead, so the file set aside stays as it was.
 */
function openDamaged(file: string): { db: Database.Database; close: () => void } | string {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('schema_version');
    return { db, close: () => db.close() };
  } catch (first) {
    if (!existsSync(`${file}-wal`)) return describe(first);
    const dir = mkdtempSync(join(tmpdir(), 'brickpost-salvage-'));
    try {
      copyFileSync(file, join(dir, 'db'));
      copyFileSync(`${file}-wal`, join(dir, 'db-wal'));
      const db = new Database(join(dir, 'db'), { fileMustExist: true });
      db.pragma('schema_version');
      return { db, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      return describe(e);
    }
  }
}

function describe(e: unknown): string {
  const code = sqliteCode(e);
  return `${(e as Error).message}${code ? ` (${code})` : ''}`;
}

function columnsOf(db: Database.Database, table: string): string[] {
  return db.prepare<[string], string>('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table);
}

function salvageTable(src: Database.Database, to: Database.Database, table: string): SalvagedTable {
  let cols: string[];
  try {
    const have = new Set(columnsOf(src, table));
    if (have.size === 0) return { table, kept: 0, lost: 0, error: null };
    cols = columnsOf(to, table).filter((c) => have.has(c));
  } catch (e) {
    return { table, kept: 0, lost: null, error: describe(e) };
  }
  let total: number | null = null;
  try {
    total = src.prepare<[], number>(`SELECT count(*) FROM "${table}"`).pluck().get() ?? null;
  } catch {
    // Counting reads every page too: a damaged table may not be countable.
  }
  const list = cols.map((c) => `"${c}"`).join(', ');
  const put = to.prepare(`INSERT OR IGNORE INTO "${table}" (${list}) VALUES (${cols.map(() => '?').join(', ')})`);
  let kept = 0;
  let refused = 0;
  let error: string | null = null;
  let inBatch = 0;
  to.exec('BEGIN');
  try {
    for (const row of src.prepare<[], unknown[]>(`SELECT ${list} FROM "${table}"`).raw().iterate()) {
      try {
        if (put.run(...row).changes > 0) kept++;
        if (++inBatch >= BATCH) (to.exec('COMMIT; BEGIN'), (inBatch = 0));
      } catch (e) {
        // A refused row (it refers to one that was lost) is one lost; any other failure of the new database ends the recovery.
        if (!/^SQLITE_CONSTRAINT/.test(sqliteCode(e) ?? '')) throw new NewDatabaseFailed(e);
        refused++;
      }
    }
  } catch (e) {
    if (e instanceof NewDatabaseFailed || sqliteCode(e) === null) {
      if (to.inTransaction) to.exec('ROLLBACK');
      throw e instanceof NewDatabaseFailed ? e.error : e;
    }
    error = describe(e);
  }
  to.exec('COMMIT');
  const lost = total !== null ? Math.max(0, total - kept) : error !== null ? null : refused;
  return { table, kept, lost, error };
}

/** A failure of the new database, carried past the handler of the damaged file's errors. */
class NewDatabaseFailed extends Error {
  constructor(readonly error: unknown) {
    super('the new database failed');
  }
}
