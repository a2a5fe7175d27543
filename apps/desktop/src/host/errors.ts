/**
 * Turning anything a host call throws into a WireError, the shape the
 * renderer receives (DesktopError's fields): the BrickpostError's code, hint,
 * path and exit code; system errors and SQLite's mapped as the CLI maps
 * them; anything else INTERNAL (a bug), without its stack.
 */
import { ERROR_CODES, EXIT_CODES, bugBehind, isBrickpostError, sqliteErrorCode, toEnvironmentError } from '@brickpost/engine/api';
import type { ErrorCode } from '@brickpost/engine/api';
import type { WireError } from '../shared/methods.js';

/** Exit code of an unexpected failure (the CLI's `internal`, BSD EX_SOFTWARE). */
export const INTERNAL_EXIT_CODE = 70;

/** A path the user picked that is not there, or not a folder, is theirs to fix; other errnos are the machine's (toEnvironmentError). */
const SYSTEM_CODES: Record<string, ErrorCode> = {
  ENOENT: 'NOT_FOUND',
  ENOTDIR: 'NOT_FOUND',
};

function exitCodeOf(code: ErrorCode): number {
  return EXIT_CODES[ERROR_CODES[code]];
}

function wire(code: ErrorCode, message: string, hint?: string, path?: string): WireError {
  const exitCode = Object.hasOwn(ERROR_CODES, code) ? exitCodeOf(code) : INTERNAL_EXIT_CODE;
  const w: WireError = { name: 'BrickpostError', code, message, exitCode };
  if (hint !== undefined) w.hint = hint;
  if (path !== undefined) w.path = path;
  return w;
}

/** True for an error that already has the wire shape (one rebuilt by fromWireError). */
function isWireShaped(e: unknown): e is WireError {
  const w = e as Partial<WireError> | null;
  return (
    typeof w === 'object' &&
    w !== null &&
    w.name === 'BrickpostError' &&
    typeof w.code === 'string' &&
    typeof w.message === 'string' &&
    typeof w.exitCode === 'number'
  );
}

/** Turns a thrown value into a WireError. Never throws. */
export function toWireError(e: unknown): WireError {
  // An environment error wrapped around a bug is the bug.
  e = bugBehind(e) ?? e;
  if (isBrickpostError(e)) return wire(e.code, e.message, e.hint, e.path);
  if (e instanceof Error && e.name === 'BrickpostError' && Object.hasOwn(ERROR_CODES, (e as { code?: string }).code ?? '')) {
    const b = e as Error & { code: ErrorCode; hint?: string; path?: string };
    return wire(b.code, b.message, b.hint, b.path);
  }
  if (isWireShaped(e)) return wire(e.code as ErrorCode, e.message, e.hint, e.path);
  if (e instanceof Error && e.name === 'AbortError') return wire('CANCELLED', 'cancelled');
  const sqlite = (e as { code?: unknown } | null)?.code;
  if (e instanceof Error && typeof sqlite === 'string' && sqlite.startsWith('SQLITE_') && sqliteErrorCode(sqlite) !== null) {
    // SQLite's errors the engine left unmapped are the environment's too, as the CLI reports them.
    return wire(sqliteErrorCode(sqlite)!, `database error: ${e.message.toLowerCase()} (${sqlite})`);
  }
  const sys = e as NodeJS.ErrnoException;
  if (e instanceof Error && typeof sys.code === 'string' && /^E[A-Z0-9]+$/.test(sys.code)) {
    const b = toEnvironmentError(e, '');
    return wire(SYSTEM_CODES[sys.code] ?? b.code, b.message, b.hint, sys.path);
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    name: 'BrickpostError',
    code: 'INTERNAL',
    message: `internal error: ${message}`,
    hint: 'this is a bug in brickpost: please report it',
    exitCode: INTERNAL_EXIT_CODE,
  };
}

/** Rebuilds an Error from a WireError (for Node-side callers of a remote host). */
export function fromWireError(w: WireError): Error & WireError {
  const e = new Error(w.message) as Error & WireError;
  Object.assign(e, w);
  e.name = 'BrickpostError';
  return e;
}
