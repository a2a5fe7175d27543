import { execFile } from 'node:child_process';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toEnvironmentError } from './errors.js';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * True where one syncfs(2) call can make a whole tree durable (Linux, via
 * coreutils `sync -f`), which is far cheaper than an fsync per file.
 */
export const CAN_SYNC_FS = process.platform === 'linux';

/** Flushes the file system holding `path` to stable storage (Linux only). */
export async function syncFilesystem(path: string): Promise<void> {
  await run('sync', ['-f', path]);
}

/** Makes a folder's entries (creations, renames) durable: fsync of the folder. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes a small file atomically and durably: a temporary file beside it,
 * fsync, rename over the file, fsync of the folder.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO
 */
export async function writeAtomic(file: string, text: string | Buffer, mode = 0o644): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text, { mode });
    const fh = await open(tmp, 'r');
    await fh.sync();
    await fh.close();
    await rename(tmp, file);
    await syncDir(dirname(file));
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw toEnvironmentError(e, `cannot write ${file}`);
  }
}
