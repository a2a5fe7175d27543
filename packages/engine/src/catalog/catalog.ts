import type Database from 'better-sqlite3';
import { BrickpostError } from '@brickpost/manifest/errors';
import { APPLICATION_IDS, busyTimeout, checkpoint, closeDatabase, isLostWrite, KIND_NAMES, openOwnDatabase } from '../io/sqlite-open.js';
import type { DatabasePlace } from '../io/sqlite-errors.js';
import { isOlderCatalog, migrate, SCHEMA_VERSION } from './migrate.js';

/** How long a catalog statement waits for another process's lock, by default. */
const BUSY_MS = 10_000;

/**
 * The catalog: one SQLite file per home, marked as brickpost's
 * (application_id, user_version: io/sqlite-open.ts). Write-ahead logging
 * with synchronous FULL, so a commit is on disk when it returns and a
 * failed sync is an error of the statement that committed; foreign keys
 * on; a busy timeout so two brickpost processes on one home wait for each
 * other a bounded time, then fail as LOCKED naming the holder. Every
 * SQLite error on it is reported as the environment's (io/sqlite-errors.ts).
 */
export class Catalog {
  readonly db: Database.Database;
  readonly place: DatabasePlace;
  /**
   * Set when a failure of the catalog was reported already (as a warning:
   * after DEST committed an ingest, DEST's state is the truth); closing
   * then does not report it again.
   */
  failureReported = false;
  /**
   * The first write of this session that failed on the disk (an I/O error,
   * a full disk), even one its caller chose to go on after (a custody
   * event, a drive-speed measurement): closing reports it, so a command
   * never reports success over a failed write.
   */
  writeFailure: BrickpostError | null = null;

  /**
   * Opens (creating, adopting an older brickpost's, migrating) the catalog
   * at `file`. `recover`: the command a damaged catalog's hint prints.
   * @throws BrickpostError FOREIGN_DATABASE, DATABASE_DAMAGED, UNSUPPORTED_VERSION, LOCKED, PERMISSION, NO_SPACE, IO
   */
  constructor(
    readonly file: string,
    opts: { recover?: string } = {},
  ) {
    this.place = { file, what: 'catalog', recover: opts.recover ?? 'brickpost catalog recover' };
    this.db = openOwnDatabase({
      place: this.place,
      appId: APPLICATION_IDS.catalog,
      others: KIND_NAMES,
      version: SCHEMA_VERSION,
      isOlder: isOlderCatalog,
      upgrade: (db) => migrate(db, file),
      // 8 MB of pages, not the 16 MB better-sqlite3 builds SQLite with: they were the largest single part of a second
      // pack's peak memory, and a third pack of 300,000 files took as long with them (the system caches the rest).
      pragmas: ['synchronous = FULL', 'foreign_keys = ON', 'cache_size = -8000'],
      busyMs: busyTimeout(BUSY_MS),
      observe: (mapped, raw) => {
        if (this.writeFailure === null && mapped instanceof BrickpostError && isLostWrite(raw)) this.writeFailure = mapped;
      },
      newerHint: 'upgrade brickpost, or use another --home',
      foreignHint: 'move it out of the home folder, or use another --home',
    });
  }

  /** Runs fn in one transaction. @throws what fn throws; LOCKED, IO… when the commit fails */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * Runs fn in one transaction that takes the write lock first (BEGIN
   * IMMEDIATE), so a catalog another process holds is found before fn
   * does anything. @throws LOCKED, and what tx throws
   */
  txNow<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Syncs the write-ahead log into the catalog file. @throws BrickpostError IO, NO_SPACE, PERMISSION */
  flush(): void {
    checkpoint(this.db);
  }

  /**
   * Syncs and closes; closed even when the sync fails. The sync's failure,
   * else an earlier failed write (writeFailure), is thrown unless a failure
   * was reported already (failureReported).
   * @throws BrickpostError IO, NO_SPACE, PERMISSION
   */
  close(): void {
    try {
      closeDatabase(this.db);
    } catch (e) {
      if (!this.failureReported) throw e;
    }
    const w = this.writeFailure;
    if (w !== null && !this.failureReported) {
      throw new BrickpostError(w.code, `a write to this home's catalog failed during the command: ${w.message}`, {
        cause: w,
        path: this.file,
        ...(w.hint !== undefined ? { hint: w.hint } : {}),
      });
    }
  }
}
