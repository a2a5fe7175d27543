import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { BrickpostError, quote, type EntryAttributes } from '@brickpost/manifest';
import { fsPath } from '../io/fs-path.js';
import { setTimesFd, setTimesPath } from '../io/times.js';
import type { AttrApplier } from './attrs.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
// A FIFO swapped in must not block the open (its type is refused right after).
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What setMeta may apply besides the mode and time, and how strictly. */
export interface MetaOptions {
  /** An entry of another type (or a link) is left alone instead of refused: rollback puts back whatever was there. */
  lenient?: boolean;
  /** Attributes to apply through the same handle, by the applier's policy. */
  attrs?: EntryAttributes;
  applier?: AttrApplier;
  /** Remove user.* attributes `attrs` does not list (an entry kept in place becomes exactly the record). */
  replace?: boolean;
}

/**
 * Gives DEST's entry at p (a regular file, a folder with kind 'dir', a FIFO
 * or device with kind 'special') the mode (as the policy made it) and mtime
 * of the manifest, and its attributes. A file or folder is changed through
 * a handle opened without following a link at the last component
 * (O_NOFOLLOW, and O_DIRECTORY for a folder), so an entry swapped for a
 * symbolic link during the commit is refused instead of followed out of
 * DEST; the handle must be the entry lstat saw, of the expected type. Where
 * it cannot be opened for reading (its owner lacks read permission, or the
 * system opens no folders), and for special files (opening a device can
 * act on it), the calls go by path after that lstat. Links in the folders
 * above p are followed: Node has no openat. A missing entry is skipped (a
 * resumed commit already moved it).
 * @throws BrickpostError UNSAFE_ENTRY (a link or another type in the way); Node errors otherwise
 */
export function setMeta(p: string, mode: number, mtime: string, kind: 'file' | 'dir' | 'special', opts: MetaOptions = {}): void {
  try {
    setMetaStrict(p, mode, mtime, kind, opts);
  } catch (e) {
    if (!(opts.lenient && e instanceof BrickpostError && e.code === 'UNSAFE_ENTRY')) throw e;
  }
}

function setMetaStrict(p: string, mode: number, mtime: string, kind: 'file' | 'dir' | 'special', opts: MetaOptions): void {
  let seen: Stats;
  try {
    seen = lstatSync(fsPath(p));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  checkType(p, seen, kind);
  if (kind === 'special') {
    // By path: no handle of a device is opened. The lstat above refused a link in its place.
    if (opts.attrs?.o) opts.applier?.toLink(p, p, { o: opts.attrs.o });
    chmodSync(fsPath(p), mode);
    setTimesPath(p, mtime);
    return;
  }
  let fd: number;
  try {
    fd = openSync(fsPath(p), constants.O_RDONLY | NOFOLLOW | NONBLOCK | (kind === 'dir' ? DIRECTORY : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw swapped(p, kind);
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EISDIR') throw e;
    chmodSync(fsPath(p), mode);
    setTimesPath(p, mtime);
    return;
  }
  try {
    const st = fstatSync(fd);
    if (st.ino !== seen.ino || st.dev !== seen.dev) throw swapped(p, kind);
    checkType(p, st, kind);
    // Owner first: chown clears setuid and setgid bits, which the mode then sets.
    if (opts.attrs && opts.applier) opts.applier.toFd(fd, p, opts.attrs, kind === 'dir', opts.replace === true);
    fchmodSync(fd, mode);
    setTimesFd(fd, mtime);
  } finally {
    closeSync(fd);
  }
}

function checkType(p: string, st: Stats, kind: 'file' | 'dir' | 'special'): void {
  const ok = kind === 'dir' ? st.isDirectory() : kind === 'file' ? st.isFile() : st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice();
  if (!ok) throw swapped(p, kind);
}

/** The refusal of an entry that is not the file or folder ingest planned for. */
export function swapped(p: string, kind: 'file' | 'dir' | 'special'): BrickpostError {
  const what = kind === 'dir' ? 'folder' : kind === 'file' ? 'file' : 'special file';
  return new BrickpostError(
    'UNSAFE_ENTRY',
    `${quote(p)} is no longer the ${what} ingest planned for (a symbolic link or another entry was put in its place): its mode and time were not set through it`,
    {
      path: p,
      hint: 'the destination was changed locally during the commit; move that entry away, then run the same command again to finish',
    },
  );
}
