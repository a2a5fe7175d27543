import { closeSync, constants, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import * as posix from '@brickpost/posix';
import { BrickpostError } from '@brickpost/manifest';
import { toEnvironmentError } from './errors.js';
import { pausepoint } from './failpoint.js';

/**
 * Locks held by one brickpost process at a time on what they guard (a
 * destination, a home's packing). The lock is the kernel's, on an open
 * file (an open-file-description lock, or flock): it goes when its holder
 * closes the file or dies, however it dies, so no lock is ever left behind
 * and a pid that was reused, or a zombie, holds nothing. The file itself
 * stays (removing it would let two processes lock two different files of
 * one name); while held it says who holds it, for messages only.
 *
 * Where the system has no such lock (no posix addon: Windows), the file is
 * created exclusively and holds the pid, and a lock whose pid is gone is
 * taken over.
 */

/** Who holds a lock, as its holder wrote it. */
export interface LockHolder {
  pid: number;
  /** When it took the lock (ISO 8601). */
  since: string | null;
  /** The command it runs, e.g. "ingest". */
  command: string | null;
  host: string | null;
}

/** What a lock guards, for its messages. */
export interface LockSubject {
  /** The message up to its holder: "destination "/data/x" is in use by", "home "/h" is packing in". */
  what: string;
  /** The command this process runs, written for others to read. */
  command: string;
  /** A command that shows more (e.g. `brickpost status DEST`), for the hint. */
  inspect?: string;
}

/**
 * Takes the lock `file` for this process, without waiting. Returns the
 * release function.
 * @throws BrickpostError LOCKED (naming the holder: pid, command, since when), PERMISSION, IO
 */
export async function takeLock(file: string, subject: LockSubject): Promise<() => Promise<void>> {
  if (!posix.available) return pidLock(file, subject);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    throw toEnvironmentError(e, 'cannot open the lock file');
  }
  let taken: boolean;
  try {
    taken = posix.tryLock(fd);
  } catch (e) {
    closeSync(fd);
    const code = (e as NodeJS.ErrnoException).code;
    // A file system without locks (some network mounts): the pid file it can hold.
    if (code === 'ENOLCK' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return pidLock(`${file}.pid`, subject);
    throw toEnvironmentError(e, 'cannot lock');
  }
  if (!taken) {
    closeSync(fd);
    throw busy(file, subject, readHolder(file));
  }
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, `${JSON.stringify({ pid: process.pid, since: new Date().toISOString(), command: subject.command, host: hostname() })}\n`, 0);
  } catch (e) {
    closeSync(fd);
    throw toEnvironmentError(e, 'cannot write the lock file');
  }
  await pausepoint('lock-held');
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    // Emptied first: a reader that finds the file unlocked and empty knows nobody holds it.
    try {
      ftruncateSync(fd, 0);
    } catch {
      // The lock goes with the descriptor either way.
    }
    closeSync(fd);
  };
}

/**
 * Who holds the lock `file` now, or null when nobody does. Takes the lock
 * for an instant to tell (and so never blocks a holder).
 * @throws BrickpostError PERMISSION, IO
 */
export function lockHolder(file: string): LockHolder | null {
  if (!posix.available) return pidHolder(file);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // Only a writer can test the lock; a reader goes by what the file says (emptied when released).
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return readHolder(file);
    throw toEnvironmentError(e, 'cannot open the lock file');
  }
  try {
    if (posix.tryLock(fd)) return null;
    return readHolder(file) ?? { pid: 0, since: null, command: null, host: null };
  } catch (e) {
    throw toEnvironmentError(e, 'cannot check the lock');
  } finally {
    closeSync(fd);
  }
}

/** "process 4711 (brickpost ingest, since 2026-11-26 10:02:11 UTC)", or "another process". */
export function describeHolder(h: LockHolder | null): string {
  if (!h || h.pid <= 0) return 'another brickpost process';
  const details = [
    h.command ? `brickpost ${h.command}` : null,
    h.since ? `since ${h.since.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}` : null,
    h.host && h.host !== hostname() ? `on ${h.host}` : null,
  ].filter(Boolean);
  return `brickpost process ${h.pid}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
}

function busy(file: string, subject: LockSubject, holder: LockHolder | null): BrickpostError {
  return new BrickpostError('LOCKED', `${subject.what} ${describeHolder(holder)}`, {
    path: file,
    hint: subject.inspect
      ? `'${subject.inspect}' shows what it is doing; run the command again once it has finished`
      : 'run the command again once it has finished',
  });
}

/** The holder a lock file names; null when it is empty or unreadable (being written, or released). */
function readHolder(file: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), since: null, command: null, host: null };
  try {
    const j = JSON.parse(text) as Partial<LockHolder>;
    if (typeof j.pid !== 'number' || !Number.isSafeInteger(j.pid)) return null;
    return {
      pid: j.pid,
      since: typeof j.since === 'string' ? j.since : null,
      command: typeof j.command === 'string' ? j.command : null,
      host: typeof j.host === 'string' ? j.host : null,
    };
  } catch {
    return null;
  }
}

/** The fallback without kernel locks: an exclusively created file holding the holder; a dead pid's is taken over. */
async function pidLock(file: string, subject: LockSubject): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw toEnvironmentError(e, 'cannot create the lock');
      const holder = pidHolder(file);
      if (holder) throw busy(file, subject, holder);
      removeQuietly(file);
      continue;
    }
    writeSync(fd, `${JSON.stringify({ pid: process.pid, since: new Date().toISOString(), command: subject.command, host: hostname() })}\n`);
    closeSync(fd);
    await pausepoint('lock-held');
    return async () => removeQuietly(file);
  }
  throw busy(file, subject, null);
}

function pidHolder(file: string): LockHolder | null {
  const h = readHolder(file);
  return h && h.pid > 0 && alive(h.pid) ? h : null;
}

function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Left for the next run to take over.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
