import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
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
      throw new BrickpostError('DEPENDENCY', `cannot run 'sync' to flush ${quote(path)} to disk: it is not installed`, {
        cause: e,
        hint: 'install coreutils (it provides sync)',
      });
    }
    // `sync: error syncing 'PATH': Input/output error`, or `error opening`.
    const words = /: ([^:]+)\s*$/.exec((err.stderr ?? '').trim())?.[1]?.trim();
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

/** The prefix of writeAtomic's temporary files for `name`: what a killed writer may leave beside it. */
export function atomicTempPrefix(name: string): string {
  return `${name}.tmp-`;
}

/**
 * Writes a small file atomically and durably: a new temporary file beside
 * it, under a random name and created exclusively (O_EXCL: never through a
 * link planted there, never another writer's file), written and fsynced,
 * renamed over the file, then an fsync of the folder. The handle is closed
 * on every path; on failure the temporary file is removed and the file is
 * as it was (or, when only the folder's fsync failed, already replaced).
 * @throws BrickpostError NO_SPACE, READ_ONLY, PERMISSION, IO
 */
export async function writeAtomic(file: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const tmp = atomicTempPrefix(file) + randomBytes(6).toString('hex');
  let created = false;
  try {
    const fh = await open(tmp, 'wx', mode);
    created = true;
    try {
      await fh.writeFile(data);
      await fh.sync();
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw e;
    }
    await fh.close();
    await rename(tmp, file);
    created = false;
    await syncDir(dirname(file));
  } catch (e) {
    if (created) await rm(tmp, { force: true }).catch(() => undefined);
    throw toEnvironmentError(e, `cannot write ${quote(file)}`, { path: tmp });
  }
}
