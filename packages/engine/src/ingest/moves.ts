// The idempotent steps of a commit or rollback on one entry of DEST (commit.ts): each is done, or
// finds it done (a run after a crash repeats the phase it was in).
import { lstatSync, mkdirSync, renameSync, rmdirSync, type Stats } from 'node:fs';
import { quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { fsPath } from '../io/fs-path.js';

/** Renames from → to when from exists; false when it was already moved. */
export function moveIfPresent(from: string, to: string): boolean {
  try {
    renameSync(fsPath(from), fsPath(to));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/**
 * Moves a folder of the staging tree (StagingWriter.inTree) to `to`, with
 * every file staged below it, when nothing is at `to`; false when there is
 * no such folder (none of its files was staged so, or it moved already)
 * or something is in the way: the caller makes the folder and its files
 * move in one by one.
 */
export function moveFolderIn(from: string, to: string): boolean {
  if (lstatIfPresent(to) !== null) return false;
  try {
    renameSync(fsPath(from), fsPath(to));
    return true;
  } catch (e) {
    // No staged folder, or something was put at `to` meanwhile.
    if (['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(String((e as NodeJS.ErrnoException).code))) return false;
    throw e;
  }
}

/** The lstat of `p`, or null when nothing is there. */
export function lstatIfPresent(p: string): Stats | null {
  try {
    return lstatSync(fsPath(p));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Whether `p` is a FIFO or a device. */
export function isSpecial(p: string): boolean {
  const st = lstatIfPresent(p);
  return st !== null && (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice());
}

/** Makes folder `p` (mode 0700 until the dirs phase); a folder already there is fine. @throws when something else is in the way */
export function mkdirIfAbsent(p: string): void {
  try {
    mkdirSync(fsPath(p), { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    if (!lstatSync(fsPath(p)).isDirectory()) throw toEnvironmentError(e, `${quote(p)} is in the way of a folder`);
  }
}

/** Removes a folder a shipment created; one holding other entries (added locally) moves out whole instead. */
export function removeDir(p: string, outPath: string): void {
  try {
    rmdirSync(fsPath(p));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return void moveIfPresent(p, outPath);
    throw e;
  }
}
