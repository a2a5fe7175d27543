import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Creates `dir` and the folders missing above it, one mkdir(2) at a time,
 * so that a failure keeps its own errno: Node's recursive mkdir reports a
 * read-only file system or an I/O error on the way as ENOENT, which reads as
 * a wrong path. An existing folder (or link to one) is fine.
 * @throws the system error of the mkdir that failed (EROFS, EACCES, ENOSPC, EIO, ENOTDIR…); EEXIST when a file is in the way
 */
export async function makeFolders(dir: string, mode = 0o777): Promise<void> {
  try {
    await mkdir(dir, { mode });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await stat(dir).catch(() => null))?.isDirectory()) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw e;
    await makeFolders(dirname(dir), mode);
    await mkdir(dir, { mode }).catch(async (again: unknown) => {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(dir)).isDirectory()) throw again;
    });
  }
}

/** makeFolders, synchronously. @throws as makeFolders */
export function makeFoldersSync(dir: string, mode = 0o777): void {
  try {
    mkdirSync(dir, { mode });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statOrNull(dir)?.isDirectory()) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw e;
    makeFoldersSync(dirname(dir), mode);
    try {
      mkdirSync(dir, { mode });
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw again;
    }
  }
}

function statOrNull(p: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}
