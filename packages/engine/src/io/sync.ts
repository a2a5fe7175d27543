import { execFile } from 'node:child_process';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from './errors.js';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * True where one syncfs(2) call can make a whole tree durable (Linux, via
 * coreutils `sync -f`), which is far cheaper than an fsync per file.
 */
export const CAN_SYNC_FS = process.platform === 'linux';

/** coreutils' words for the errnos a sync can meet (strerror), so a failed sync keeps its errno. */
const STRERROR: Record<string, string> = {
  'Input/output error': 'EIO',
  'No space left on device': 'ENOSPC',
  'Disk quota exceeded': 'EDQUOT',
  'Read-only file system': 'EROFS',
  'Permission denied': 'EACCES',
  'Operation not permitted': 'EPERM',
  'Device or resource busy': 'EBUSY',
  'Not a directory': 'ENOTDIR',
  'No such file or directory': 'ENOENT',
  'Too many open files': 'EMFILE',
  'Stale file handle': 'ESTALE',
};

/**
 * Flushes the file system holding `path` to stable storage (Linux only).
 * A failed sync is never success: it throws with the errno `sync` reported.
 * @throws BrickpostError IO, NO_SPACE, READ_ONLY, PERMISSION (the errno of the sync); DEPENDENCY when `sync` cannot be run
 */
export async function syncFilesystem(path: string): Promise<void> {
  try {
    await run('sync', ['-f', path]);
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === 'ENOENT' && err.syscall?.startsWith('spawn')) {
      throw new BrickpostError('DEPENDENCY', `cannot run 'sync' to flush ${quote(path)} to disk: it is not installed`, { cause: e, hint: 'install coreutils (it provides sync)' });
    }
    // `sync: error syncing 'PATH': Input/output error`, or `error opening`.
    const words = /: ([^:]+)\s*$/.exec(String(err.stderr ?? '').trim())?.[1]?.trim();
    const errno = words !== undefined ? STRERROR[words] : undefined;
    const cause = errno ? Object.assign(new Error(`${errno}: ${words}, syncfs '${path}'`), { code: errno, syscall: 'syncfs', path }) : e;
    throw toEnvironmentError(cause, 'cannot flush the written files to disk', { path });
  }
}

/**
 * Makes a folder's entries (creations, renames) durable: fsync of the folder.
 * @throws BrickpostError IO, NO_SPACE, READ_ONLY, PERMISSION (naming the folder)
 */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw toEnvironmentError(e, `cannot flush folder ${quote(dir)} to disk`, { path: dir });
  }
}

/**
 * Writes a small file atomically and durably: a temporary file beside it,
 * fsync, rename over the file, fsync of the folder.
 * @throws BrickpostError NO_SPACE, READ_ONLY, PERMISSION, IO
 */
export async function writeAtomic(file: string, text: string | Buffer, mode = 0o644): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text, { mode });
    const fh = await open(tmp, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    await syncDir(dirname(file));
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw toEnvironmentError(e, `cannot write ${quote(file)}`, { path: tmp });
  }
}
