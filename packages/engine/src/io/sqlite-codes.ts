import type { ErrorCode } from '@brickpost/manifest/errors';

/**
 * The error code of each SQLite result code (SQLITE_BUSY, SQLITE_IOERR_FSYNC…):
 * what brickpost reports when SQLite fails on one of its databases. Every
 * one of these is the environment's doing (or the user's: an interrupt),
 * never brickpost's bug:
 *
 * | SQLite code                          | code             | exit |
 * | ------------------------------------ | ---------------- | ---- |
 * | BUSY*, LOCKED*, PROTOCOL             | LOCKED           | 7    |
 * | IOERR*, NOMEM, NOLFS, TOOBIG         | IO               | 5    |
 * | FULL                                 | NO_SPACE         | 5    |
 * | READONLY*, PERM, AUTH                | PERMISSION       | 5    |
 * | CANTOPEN                             | IO (PERMISSION, NO_SPACE by the errno, sqlite-errors.ts) | 5 |
 * | CORRUPT*, NOTADB                     | DATABASE_DAMAGED | 5    |
 * | INTERRUPT                            | CANCELLED        | 130  |
 *
 * Errors of the SQL itself (SQLITE_ERROR, SQLITE_CONSTRAINT*, SQLITE_MISUSE,
 * SQLITE_RANGE, SQLITE_MISMATCH, SQLITE_SCHEMA…) give null: brickpost
 * wrote a statement the database does not take, which is its own bug.
 * No Node imports: the CLI's failure classifier and the renderer load it.
 */
export function sqliteErrorCode(code: string): ErrorCode | null {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === 'SQLITE_PROTOCOL') return 'LOCKED';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_NOMEM' || code === 'SQLITE_NOLFS' || code === 'SQLITE_TOOBIG' || code === 'SQLITE_CANTOPEN')
    return 'IO';
  if (code === 'SQLITE_FULL') return 'NO_SPACE';
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') return 'PERMISSION';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'DATABASE_DAMAGED';
  if (code === 'SQLITE_INTERRUPT') return 'CANCELLED';
  return null;
}
