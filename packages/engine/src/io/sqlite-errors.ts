import { closeSync, constants, existsSync, openSync, accessSync } from 'node:fs';
import { dirname } from 'node:path';
import { BrickpostError, quote, type ErrorCode } from '@brickpost/manifest';
import { describeHolders, fileHolders } from './holders.js';
import { sqliteErrorCode } from './sqlite-codes.js';

/**
 * SQLite's errors, as brickpost reports them: every error SQLite raises on
 * the catalog or a destination journal that sqliteErrorCode (sqlite-codes.ts)
 * classifies becomes a BrickpostError of that code naming the file, with a
 * hint; the holder of a lock is named where /proc shows it, and why a file
 * could not be opened is asked of the system again.
 */

/** Which database an error is about, for its message and hints. */
export interface DatabasePlace {
  file: string;
  /** `catalog`, `destination journal`. */
  what: string;
  /** The command that recovers it when damaged, as a hint prints it (works as printed). */
  recover: string;
}

/** The `SQLITE_…` code of an error SQLite raised, else null. */
export function sqliteCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** True for an error that says the database file is damaged. */
export function isDamage(e: unknown): boolean {
  const code = sqliteCode(e) ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

const IO_DETAIL: Record<string, string> = {
  SQLITE_IOERR_FSYNC: 'sync failed',
  SQLITE_IOERR_DIR_FSYNC: 'sync of its folder failed',
  SQLITE_IOERR_WRITE: 'write failed',
  SQLITE_IOERR_READ: 'read failed',
  SQLITE_IOERR_SHORT_READ: 'read came back short',
  SQLITE_IOERR_TRUNCATE: 'truncate failed',
  SQLITE_IOERR_DELETE: 'delete failed',
  SQLITE_IOERR_FSTAT: 'stat failed',
  SQLITE_IOERR_SHMSIZE: 'its shared-memory file (-shm) could not grow',
  SQLITE_IOERR_SHMOPEN: 'its shared-memory file (-shm) could not be opened',
  SQLITE_IOERR_SHMMAP: 'its shared-memory file (-shm) could not be mapped',
  SQLITE_IOERR_LOCK: 'a file lock failed',
  SQLITE_NOMEM: 'out of memory',
};

/**
 * Maps an error SQLite raised on the database `place` to a BrickpostError
 * (see the table above). Anything else, a BrickpostError included, is
 * returned as it is. Never throws.
 */
export function fromSqliteError(e: unknown, place: DatabasePlace): unknown {
  const sqlite = sqliteCode(e);
  const code = sqlite === null ? null : sqliteErrorCode(sqlite);
  if (sqlite === null || code === null) return e;
  const where = `the ${place.what} ${quote(place.file)}`;
  const detail = (e as Error).message;
  const make = (c: ErrorCode, message: string, hint?: string): BrickpostError =>
    new BrickpostError(c, message, { cause: e, path: place.file, ...(hint !== undefined ? { hint } : {}) });
  switch (code) {
    case 'LOCKED': {
      const holders = fileHolders([place.file, `${place.file}-wal`, `${place.file}-shm`]);
      // Whoever holds a lock has the file open; not everyone who has it open holds one.
      const open = holders.length === 0 ? '' : ` (it is open in ${describeHolders(holders)})`;
      return make('LOCKED', `${where} is locked by another process${open}`, 'wait until that process is done with it (or end it), then run the command again');
    }
    case 'NO_SPACE':
      return make('NO_SPACE', `no space left for ${where} (${detail})`, 'free some space on the disk holding it, then run the command again');
    case 'PERMISSION':
      return make(
        'PERMISSION',
        `${where} cannot be written: ${whyReadOnly(place.file)} (${detail})`,
        'make the file and its folder writable, or check that the disk is not mounted read-only',
      );
    case 'DATABASE_DAMAGED':
      return make(
        'DATABASE_DAMAGED',
        `${where} is damaged (${detail})`,
        `run '${place.recover}': it sets the damaged file aside, keeps what can still be read and rebuilds what it can`,
      );
    case 'CANCELLED':
      return make('CANCELLED', `work on ${where} was interrupted`);
    default:
      if (sqlite === 'SQLITE_CANTOPEN') return cannotOpen(e, place, where);
      return make(
        'IO',
        `i/o error on ${where}: ${IO_DETAIL[sqlite] ?? detail} (${sqlite})`,
        'check the disk holding it (its cable, free space and the system log), then run the command again',
      );
  }
}

/**
 * Why SQLite has a file read-only (it opens a file read-only when it may
 * not write it, and says no more): asked of the system again.
 */
function whyReadOnly(file: string): string {
  try {
    closeSync(openSync(file, constants.O_RDWR));
    return 'it was opened read-only (the system refused to open it for writing)';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? 'it is on a read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : 'it is read-only';
  }
}

/**
 * SQLITE_CANTOPEN does not say why; the file (or its folder, for a new
 * one) is opened again here to learn the errno.
 */
function cannotOpen(e: unknown, place: DatabasePlace, where: string): BrickpostError {
  let errno = '';
  try {
    if (existsSync(place.file)) closeSync(openSync(place.file, constants.O_RDWR));
    else accessSync(dirname(place.file), constants.W_OK | constants.X_OK);
  } catch (x) {
    errno = (x as NodeJS.ErrnoException).code ?? '';
  }
  const opts = { cause: e, path: place.file };
  if (errno === 'EROFS')
    return new BrickpostError('PERMISSION', `cannot open ${where}: read-only file system`, { ...opts, hint: 'check that the disk is not mounted read-only' });
  if (errno === 'EACCES' || errno === 'EPERM')
    return new BrickpostError('PERMISSION', `cannot open ${where}: permission denied`, { ...opts, hint: 'make the file and its folder writable by you' });
  if (errno === 'ENOSPC' || errno === 'EDQUOT')
    return new BrickpostError('NO_SPACE', `cannot open ${where}: no space left on device`, {
      ...opts,
      hint: 'free some space on the disk holding it, then run the command again',
    });
  return new BrickpostError('IO', `cannot open ${where}${errno ? `: ${errno}` : ''} (${(e as Error).message})`, {
    ...opts,
    hint: 'check that its folder exists and is writable, and the disk holding it, then run the command again',
  });
}
