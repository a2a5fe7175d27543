import { chmodSync, closeSync, constants, fchmodSync, fstatSync, futimesSync, lstatSync, openSync, utimesSync, type Stats } from 'node:fs';
import { BrickpostError, quote } from '@brickpost/manifest';
import { MODE_MASK, nsToSeconds } from './stage.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
// A FIFO swapped in must not block the open (its type is refused right after).
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Gives DEST's entry at p (a regular file, or a folder with kind 'dir') the
 * mode (masked with MODE_MASK) and mtime of the manifest, through a handle
 * opened without following a link at the last component (O_NOFOLLOW, and
 * O_DIRECTORY for a folder), so an entry swapped for a symbolic link during
 * the commit is refused instead of followed out of DEST. The handle must be
 * the entry lstat saw, of the expected type. Where it cannot be opened for
 * reading (its owner lacks read permission, or the system opens no folders)
 * the calls go by path after that lstat. Links in the folders above p are
 * followed: Node has no openat. A missing entry is skipped (a resumed
 * commit already moved it); with `lenient` (an entry rollback puts back as
 * it was, whatever it is) so is an entry of another type.
 * @throws BrickpostError UNSAFE_ENTRY (a link or another type in the way); Node errors otherwise
 */
export function setMeta(p: string, mode: number, mtime: string, kind: 'file' | 'dir', lenient = false): void {
  try {
    setMetaStrict(p, mode, mtime, kind);
  } catch (e) {
    if (!(lenient && e instanceof BrickpostError && e.code === 'UNSAFE_ENTRY')) throw e;
  }
}

function setMetaStrict(p: string, mode: number, mtime: string, kind: 'file' | 'dir'): void {
  let seen: Stats;
  try {
    seen = lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  checkType(p, seen, kind);
  const t = nsToSeconds(mtime);
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | NOFOLLOW | NONBLOCK | (kind === 'dir' ? DIRECTORY : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw swapped(p, kind);
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EISDIR') throw e;
    chmodSync(p, mode & MODE_MASK);
    utimesSync(p, t, t);
    return;
  }
  try {
    const st = fstatSync(fd);
    if (st.ino !== seen.ino || st.dev !== seen.dev) throw swapped(p, kind);
    checkType(p, st, kind);
    fchmodSync(fd, mode & MODE_MASK);
    futimesSync(fd, t, t);
  } finally {
    closeSync(fd);
  }
}

function checkType(p: string, st: Stats, kind: 'file' | 'dir'): void {
  if (kind === 'dir' ? !st.isDirectory() : !st.isFile()) throw swapped(p, kind);
}

/** The refusal of an entry that is not the file or folder ingest planned for. */
export function swapped(p: string, kind: 'file' | 'dir'): BrickpostError {
  return new BrickpostError('UNSAFE_ENTRY', `${quote(p)} is no longer the ${kind === 'dir' ? 'folder' : 'file'} ingest planned for (a symbolic link or another entry was put in its place): its mode and time were not set through it`, {
    path: p,
    hint: 'the destination was changed locally during the commit; move that entry away, then run the same command again to finish',
  });
}
