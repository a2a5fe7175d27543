import { lstat, opendir, rmdir, unlink } from 'node:fs/promises';
import { fromBytes } from '@brickpost/manifest';
import { fsPath } from './fs-path.js';

/** Entries of a folder read before they are removed. */
const BATCH = 256;
/** Files being removed at once. */
const AT_ONCE = 32;

/**
 * Removes `path` and everything under it, as `rm -rf` does: nothing when
 * it is not there, a file or link itself (never what a link points to).
 * In bounded memory: the entries of a folder are read a batch at a time
 * and removed, a few files at once, before the next batch is read;
 * folders are emptied one after another, depth first. fs.rm with
 * `recursive` starts removing every entry of the tree at once: removing
 * the staging area of an ingest of a million files that failed took it
 * past 1.1 GB.
 * @throws the system error of an entry that cannot be removed (EACCES, EROFS, EIO…), its path as an escaped string
 */
export async function removeTree(path: string): Promise<void> {
  const p = fsPath(path);
  const root = typeof p === 'string' ? Buffer.from(p) : p;
  try {
    const st = await lstat(root).catch(missing);
    if (!st) return;
    if (!st.isDirectory()) {
      await unlink(root).catch(missing);
      return;
    }
    await empty(root);
    await rmdir(root).catch(missing);
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { path?: unknown };
    if (Buffer.isBuffer(err.path)) err.path = fromBytes(err.path);
    throw err;
  }
}

/** Resolves to undefined for an entry already gone; rethrows anything else. */
function missing(e: unknown): undefined {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw e;
}

/** Removes everything in folder `dir`. */
async function empty(dir: Buffer): Promise<void> {
  const slash = Buffer.from('/');
  for (;;) {
    const files: Buffer[] = [];
    const dirs: Buffer[] = [];
    // A batch, then the folder is closed: entries are never removed while it is being read.
    const d = await opendir(dir, { encoding: 'buffer' as BufferEncoding, bufferSize: 64 });
    for await (const e of d) {
      const full = Buffer.concat([dir, slash, e.name as unknown as Buffer]);
      (e.isDirectory() ? dirs : files).push(full);
      if (files.length + dirs.length >= BATCH) break;
    }
    if (files.length + dirs.length === 0) return;
    for (let i = 0; i < files.length; i += AT_ONCE) await Promise.all(files.slice(i, i + AT_ONCE).map((f) => unlink(f).catch(missing)));
    for (const sub of dirs) {
      await empty(sub);
      await rmdir(sub).catch(missing);
    }
  }
}
