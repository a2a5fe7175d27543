// Turns the addon's failures into the errors Node's own fs throws: the addon
// reports only errno and the system call, and this names the code, the text
// and the path, as in `ENOENT: no such file or directory, lgetxattr '/x'`.
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import type { Path } from './binding.js';

/** A failed system call, shaped like the errors of Node's fs module. */
export interface SystemError extends Error {
  /** The errno name, such as `ENOENT` or `ENOTSUP`. */
  code: string;
  /** The errno value, negative as Node reports it. */
  errno: number;
  /** The system call that failed, such as `lgetxattr`. */
  syscall: string;
  /** The path the call was given (a Buffer path decoded as UTF-8, as Node does). */
  path?: string;
}

let names: Map<number, [string, string]> | undefined;

function describe(errno: number, fallback: string): [string, string] {
  names ??= getSystemErrorMap();
  const known = names.get(errno);
  if (known !== undefined) return known;
  const code = Object.entries(constants.errno).find(([, n]) => n === -errno)?.[0] ?? 'UNKNOWN';
  return [code, fallback.toLowerCase()];
}

/**
 * Runs one addon call and rethrows an errno failure as a {@link SystemError}
 * naming `path`. TypeErrors and RangeErrors for bad arguments pass unchanged.
 * @throws SystemError when the system call fails; whatever else `call` throws.
 */
export function withPath<T>(path: Path | undefined, call: () => T): T {
  try {
    return call();
  } catch (e) {
    const raw = e as { errno?: unknown; syscall?: unknown; description?: unknown };
    if (!(e instanceof Error) || typeof raw.errno !== 'number' || typeof raw.syscall !== 'string') throw e;
    const [code, text] = describe(raw.errno, String(raw.description ?? e.message));
    const shown = path === undefined ? undefined : typeof path === 'string' ? path : path.toString('utf8');
    const err = new Error(`${code}: ${text}, ${raw.syscall}${shown === undefined ? '' : ` '${shown}'`}`) as SystemError;
    err.errno = raw.errno;
    err.code = code;
    err.syscall = raw.syscall;
    if (shown !== undefined) err.path = shown;
    Error.captureStackTrace(err, withPath);
    throw err;
  }
}
