/**
 * Folders for the wizard: a folder's children (the browser's folder picker)
 * and what a source folder holds (counts and bytes, for the planner and the
 * capacity check). The walk streams directory by directory and never follows
 * a symbolic link, so a link loop or a link to / cannot blow it up.
 */
import { lstat, opendir, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { BrickpostError, quote } from '@brickpost/engine/api';
import type { FolderListing, SourceInfo } from '../shared/api.js';

/** At most this many entries are listed (a picker does not need more). */
export const LISTING_LIMIT = 5000;

async function requireDirectory(path: string, what: string): Promise<void> {
  const st = await stat(path).catch((e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new BrickpostError('NOT_FOUND', `${what} ${quote(path)} does not exist`, { path, hint: 'choose an existing folder' });
    throw e;
  });
  if (!st.isDirectory()) throw new BrickpostError('USAGE', `${what} ${quote(path)} is not a folder`, { path, hint: 'choose a folder, not a file' });
}

/**
 * The children of `path` (default: the user's home folder), folders first,
 * then by name; a link counts as a folder when it points to one.
 * @throws BrickpostError NOT_FOUND, USAGE; PERMISSION and IO as system errors
 */
export async function listFolder(path?: string): Promise<FolderListing> {
  const dir = resolve(path ?? homedir());
  await requireDirectory(dir, 'folder');
  const entries: FolderListing['entries'] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (entries.length >= LISTING_LIMIT) break;
    const isDir =
      e.isDirectory() ||
      (e.isSymbolicLink() &&
        (await stat(join(dir, e.name)).then(
          (s) => s.isDirectory(),
          () => false,
        )));
    entries.push({ name: e.name, dir: isDir });
  }
  entries.sort((a, b) => Number(b.dir) - Number(a.dir) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parent = dirname(dir);
  return { path: dir, parent: parent === dir ? null : parent, entries };
}

/**
 * Counts the regular files, folders (below `path`) and file bytes of a
 * source folder, without following links. Stops when `signal` aborts.
 * @throws BrickpostError NOT_FOUND, USAGE, CANCELLED; PERMISSION and IO as system errors
 */
export async function sourceInfo(path: string, signal?: AbortSignal): Promise<SourceInfo> {
  const root = resolve(path);
  await requireDirectory(root, 'source folder');
  const info: SourceInfo = { path: root, files: 0, dirs: 0, bytes: 0 };
  // Names as bytes: a name that is not UTF-8 would come back altered as a string and name nothing.
  const pending = [Buffer.from(root)];
  const slash = Buffer.from(sep);
  while (pending.length > 0) {
    if (signal?.aborted) throw new BrickpostError('CANCELLED', `counting ${quote(root)} was cancelled`);
    const dir = pending.pop()!;
    for await (const e of await opendir(dir, { bufferSize: 256, encoding: 'buffer' as BufferEncoding })) {
      const name = e.name as unknown as Buffer;
      const p = Buffer.concat([dir, slash, name]);
      if (e.isDirectory()) {
        info.dirs++;
        pending.push(p);
      } else if (e.isFile()) {
        info.files++;
        info.bytes += (await lstat(p)).size;
      }
    }
  }
  return info;
}
