import { execFile } from 'node:child_process';
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
