import { BrickpostError, quote, type ErrorCode } from '@brickpost/manifest/errors';

/**
 * System errors (errno) as the user meets them. An errno is the machine's
 * answer, never brickpost's bug: each maps to an environment code (exit 5),
 * a message naming what failed, the call and the path, in the words of the
 * errno, and a hint that says what to do about it.
 *
 * Terms: `what` is the step that failed ("cannot write a staged file");
 * `on` is what the path belongs to (the drive, the destination, the
 * source, the home folder), which decides the hint's words; `then` is what
 * to do once the cause is fixed ("run 'brickpost ingest' again to finish").
 */

/** What a path belongs to, for a hint's words. */
export type Place = 'drive' | 'destination' | 'source' | 'home' | 'temporary folder';

/** The place of `path` among the roots given (the longest root it lies in), for EnvironmentOptions.on. */
export function placeIn(roots: ReadonlyArray<readonly [string | undefined, Place]>): (path: string) => Place | undefined {
  return (path) => {
    let best: [number, Place] | undefined;
    for (const [root, place] of roots) {
      if (root !== undefined && (path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`)) && root.length > (best?.[0] ?? -1))
        best = [root.length, place];
    }
    return best?.[1];
  };
}

export interface EnvironmentOptions {
  /** What the path belongs to, or a function that tells from the path (default: a general "the disk"). */
  on?: Place | ((path: string) => Place | undefined);
  /** The path, when the error does not carry one (calls on a file handle). */
  path?: string;
  /** What to do once the cause is fixed, appended to the hint. */
  then?: string;
  /** A hint to use instead of the errno's own (then is still appended). */
  hint?: string;
}

interface Errno {
  code: ErrorCode;
  /** What the system said, lowercase. */
  says: string;
  /** What to do, given where (`it`: "the drive", "the destination"…). */
  fix: (it: string) => string;
}

const ERRNOS: Record<string, Errno> = {
  ENOSPC: { code: 'NO_SPACE', says: 'no space left on device', fix: (it) => `free some space on ${it} or use a larger one` },
  EDQUOT: { code: 'NO_SPACE', says: 'disk quota exceeded', fix: (it) => `free some space on ${it} or ask for a larger quota` },
  EFBIG: {
    code: 'NO_SPACE',
    says: 'file too large for the file system',
    fix: (it) => `use ${it} on a file system that holds large files (exFAT, ext4, NTFS, APFS)`,
  },
  EACCES: { code: 'PERMISSION', says: 'permission denied', fix: (it) => `give your user permission to read and write it, or use ${it} as a user who has` },
  EPERM: {
    code: 'PERMISSION',
    says: 'operation not permitted',
    fix: (it) => `check the file's flags and owner (an immutable or append-only file refuses this), or use ${it} as a user who may`,
  },
  EROFS: {
    code: 'READ_ONLY',
    says: 'read-only file system',
    fix: (it) => `${it} is mounted read-only (or write-protected): mount it read-write, or unlock its write-protect switch, or use another folder`,
  },
  EIO: {
    code: 'IO',
    says: 'i/o error',
    fix: (it) => `${it} failed to read or write: check its cable and connection and the system log (dmesg) for a failing disk`,
  },
  EBUSY: {
    code: 'IO',
    says: 'device or resource busy',
    fix: (it) => `another program is using it (a mount point, an open file on ${it}): close that program or wait for it`,
  },
  ENOTDIR: { code: 'IO', says: 'not a directory: a part of the path is a file', fix: () => 'a folder on the way was replaced by a file: move that file away' },
  EISDIR: { code: 'IO', says: 'is a directory', fix: () => 'a folder sits where a file is expected: move it away' },
  EMFILE: {
    code: 'IO',
    says: 'too many open files',
    fix: () => "raise this process's open-file limit (for instance 'ulimit -n 4096' in the shell that runs brickpost)",
  },
  ENFILE: { code: 'IO', says: 'too many open files in the system', fix: () => 'close other programs, or raise the system-wide limit (fs.file-max)' },
  EUCLEAN: { code: 'IO', says: 'file system needs cleaning', fix: (it) => `the file system of ${it} is damaged: unmount it and check it (fsck)` },
  EREMOTEIO: { code: 'IO', says: 'remote i/o error', fix: (it) => `${it} failed to read or write: check its cable and connection` },
  ENOMEDIUM: { code: 'IO', says: 'no medium found', fix: (it) => `${it} has no medium: insert it and mount it again` },
  ENAMETOOLONG: { code: 'IO', says: 'file name too long', fix: (it) => `use ${it} at a shorter path` },
  ESTALE: { code: 'IO', says: 'stale file handle', fix: (it) => `${it} is a network share that went away: mount it again` },
  ENODEV: { code: 'IO', says: 'no such device', fix: (it) => `${it} was unplugged or unmounted: plug it in and mount it again` },
  ENXIO: { code: 'IO', says: 'no such device or address', fix: (it) => `${it} was unplugged or unmounted: plug it in and mount it again` },
  ENOENT: { code: 'NOT_FOUND', says: 'no such file or directory', fix: () => 'check the path (something may have removed it meanwhile)' },
  EAGAIN: { code: 'IO', says: 'resource temporarily unavailable', fix: () => 'the system is short of a resource: wait a moment' },
  ENOMEM: { code: 'IO', says: 'out of memory', fix: () => 'close other programs' },
};

/** The words for what `on` names, in a hint. */
const IT: Record<Place, string> = {
  drive: 'the drive',
  destination: 'the destination',
  source: 'the source disk',
  home: "brickpost's home folder",
  'temporary folder': 'the temporary folder',
};

/** The calls' names as a message says them. */
const CALLS: Record<string, string> = {
  fsync: 'sync',
  fdatasync: 'sync',
  syncfs: 'sync',
  rmdir: 'remove',
  unlink: 'remove',
  mkdir: 'create folder',
  copyfile: 'copy',
  ftruncate: 'truncate',
};

/**
 * Errnos libuv has no name for (Node says `Unknown system error -122`, or
 * UNKNOWN), by number on this platform: a disk quota is as much the
 * environment as a full disk.
 */
const UNNAMED: Record<string, Record<number, string>> = {
  linux: { 116: 'ESTALE', 117: 'EUCLEAN', 121: 'EREMOTEIO', 122: 'EDQUOT', 123: 'ENOMEDIUM' },
  darwin: { 69: 'EDQUOT', 70: 'ESTALE' },
};

/** The errno name of a system error: its code, or for one libuv cannot name, the name of its number. */
function errnoOf(e: NodeJS.ErrnoException): string | undefined {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined && code !== 'UNKNOWN' && /^E[A-Z0-9]+$/.test(code)) return code;
  if (typeof e.errno !== 'number' || (code !== 'UNKNOWN' && !code?.startsWith('Unknown system error'))) return undefined;
  const platform = (globalThis as { process?: { platform?: string } }).process?.platform ?? '';
  return UNNAMED[platform]?.[Math.abs(e.errno)] ?? `errno ${Math.abs(e.errno)}`;
}

/** True for a Node system error (an errno such as EIO, named or not). */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException & { code: string } {
  return e instanceof Error && errnoOf(e) !== undefined;
}

/**
 * Maps a Node system error (ENOSPC, EROFS, EIO…) to a BrickpostError of the
 * environment category: `what` failed (may be empty), then the call and the
 * path, then what the system said; the hint says what to do, given where the path is. The
 * system error is kept as the cause. A BrickpostError passes through (with
 * `then` added to the hint of an environment one); anything else becomes IO.
 * Throws nothing.
 */
export function toEnvironmentError(e: unknown, what: string, opts: EnvironmentOptions = {}): BrickpostError {
  if (e instanceof BrickpostError) return withThen(e, opts.then);
  const path = isSystemError(e) && typeof e.path === 'string' ? e.path : opts.path;
  const place = typeof opts.on === 'function' ? (path !== undefined ? opts.on(path) : undefined) : opts.on;
  const it = place ? IT[place] : 'the disk';
  if (!isSystemError(e)) {
    const message = e instanceof Error ? e.message : String(e);
    return new BrickpostError('IO', `${what}: ${message}`, {
      cause: e,
      hint: join(opts.hint ?? `check ${it}`, opts.then),
      ...(opts.path !== undefined ? { path: opts.path } : {}),
    });
  }
  const other = (e as { dest?: unknown }).dest;
  const dest = typeof other === 'string' ? other : undefined;
  const errno = errnoOf(e)!;
  const known = ERRNOS[errno];
  const call = e.syscall ? (CALLS[e.syscall] ?? e.syscall) : '';
  const where = path === undefined || what.includes(path) ? '' : `${quote(path)}${dest !== undefined ? ` to ${quote(dest)}` : ''}`;
  const step = [call, where].filter(Boolean).join(' ');
  const message = [what, step, `${known?.says ?? nodeWords(e)} (${errno})`].filter(Boolean).join(': ');
  const hint = join(opts.hint ?? known?.fix(it) ?? `check ${it}`, opts.then);
  return new BrickpostError(known?.code ?? 'IO', message, { cause: e, hint, ...(path !== undefined ? { path } : {}) });
}

/** Node's description of an errno it knows and this table does not ("EXDEV: cross-device link not permitted, rename …"). */
function nodeWords(e: NodeJS.ErrnoException): string {
  const m = /^E[A-Z0-9]+: ([^,]*)/.exec(e.message);
  return (m?.[1] ?? e.message).toLowerCase();
}

function join(hint: string, then: string | undefined): string {
  return then ? `${hint}; then ${then}` : hint;
}

function withThen(e: BrickpostError, then: string | undefined): BrickpostError {
  // A hint that already says what to do next (the commit's "then run … to finish") is kept.
  if (!then || e.category !== 'environment' || (e.hint ?? '').includes('then ')) return e;
  return new BrickpostError(e.code, e.message, {
    cause: e.cause ?? e,
    hint: e.hint ? join(e.hint, then) : `then ${then}`,
    ...(e.path !== undefined ? { path: e.path } : {}),
  });
}

/**
 * The bug an environment error was wrapped around, if any: toEnvironmentError
 * makes IO of anything, so a TypeError, a failed assertion or SQLite
 * refusing a statement (SQLITE_MISUSE, a connection busy with a query…)
 * could be reported as a disk's fault. The CLI and the desktop report what
 * this returns as an internal error (exit 70) instead.
 */
export function bugBehind(e: unknown): Error | null {
  let c: unknown = e;
  for (let depth = 0; depth < 8 && c instanceof Error; depth++, c = (c as { cause?: unknown }).cause) {
    if (c instanceof BrickpostError) {
      if (c.category !== 'environment') return null;
      continue;
    }
    if (isSystemError(c)) return null;
    const code = (c as { code?: unknown }).code;
    if (
      c.name === 'SqliteError' ||
      (c.constructor as { name?: string } | undefined)?.name === 'SqliteError' ||
      c.message === 'This database connection is busy executing a query'
    ) {
      return typeof code === 'string' && code.startsWith('SQLITE_') && !isSqlBug(code) ? null : c;
    }
    if (c instanceof TypeError || c instanceof RangeError || c instanceof ReferenceError || c instanceof SyntaxError || code === 'ERR_ASSERTION') return c;
    return null;
  }
  return null;
}

/** SQLite's result codes that say the statement, not the database or the disk, is wrong. */
function isSqlBug(code: string): boolean {
  return code === 'SQLITE_ERROR' || code === 'SQLITE_MISUSE' || code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH' || code.startsWith('SQLITE_CONSTRAINT');
}
