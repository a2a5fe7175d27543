import Database from 'better-sqlite3';
import { BrickpostError, quote } from '@brickpost/manifest/errors';
import { migrate } from './migrate.js';

/**
 * The catalog: one SQLite file per home. Write-ahead logging so a crash
 * never corrupts it, foreign keys on, a busy timeout so two brickpost
 * processes on one home wait for each other briefly instead of failing.
 */
export class Catalog {
  readonly db: Database.Database;

  /**
   * Opens (creating and migrating) the catalog at `file`.
   * @throws BrickpostError IO, LOCKED, UNSUPPORTED_VERSION
   */
  constructor(readonly file: string) {
    try {
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      migrate(this.db, file);
    } catch (e) {
      if (e instanceof BrickpostError) throw e;
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_BUSY') throw new BrickpostError('LOCKED', `catalog ${quote(file)} is busy`, { cause: e, hint: 'another brickpost is using this home; retry when it is done' });
      throw new BrickpostError('IO', `cannot open catalog ${quote(file)}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Runs fn in one transaction. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
