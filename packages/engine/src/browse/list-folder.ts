/**
 * One folder of a shipment, for browsing: its direct children in manifest
 * order, at most a limit of them, and how many it holds. The shipment is
 * opened and its signature checked every time, as Engine.list does; the
 * children come from the shipment's browse index (index-file.ts), built by
 * the first call for that manifest. Later calls cost a few indexed queries,
 * whatever the shipment's size.
 */
import { BrickpostError, MANIFEST_PATH, quote, toBytes } from '@brickpost/manifest';
import type { FolderListing, FolderOptions, ListEntry } from '../api/index.js';
import type { BrowseIndexReader } from '../catalog/browse-index.js';
import type { Context } from '../context.js';
import { findShipment } from '../drive/layout.js';
import { openShipment } from '../drive/open.js';
import { trustedVerifiers } from '../keys/index.js';
import { fromSqliteError } from '../io/sqlite-errors.js';
import { shellArg } from '../io/command.js';
import { browseIndex, discard, indexFile } from './index-file.js';

/**
 * The folder's path as ListEntry paths are written: no leading, trailing or
 * doubled '/', no '.' parts; '' for the root.
 * @throws BrickpostError USAGE for a '..' part
 */
export function folderPath(folder: string): string {
  const parts = folder.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new BrickpostError('USAGE', `folder ${quote(folder)}: a path with '..' names nothing in a shipment`);
  return parts.join('/');
}

/**
 * Lists folder `opts.folder` of a shipment (README "The wizards": taking files off a drive).
 * @throws BrickpostError USAGE (a '..' part, a limit that is not a positive whole number, not a folder), NOT_FOUND (no such folder), what Engine.list throws
 */
export async function listFolder(ctx: Context, opts: FolderOptions): Promise<FolderListing> {
  const folder = folderPath(opts.folder);
  if (!Number.isSafeInteger(opts.limit) || opts.limit < 1)
    throw new BrickpostError('USAGE', `limit ${String(opts.limit)}: give a whole number of entries, 1 or more`);
  const ids = ctx.identity().ageIdentities;
  const found = await findShipment(opts.drive, opts.shipment);
  const s = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog));
  const digest = s.payload.get(MANIFEST_PATH);
  if (digest === undefined) throw new BrickpostError('MALFORMED', `the signed payload manifest of ${quote(s.id)} lists no ${MANIFEST_PATH}`, { path: s.dir });
  const key = { shipment: s.id, digest, entries: s.info.entries };
  for (let attempt = 1; ; attempt++) {
    const { index, built } = await browseIndex(ctx.home, s, key, ids);
    let listing: Omit<FolderListing, 'indexBuilt'> | null = null;
    try {
      listing = query(index, folder, opts.limit);
    } catch (e) {
      // An index damaged after it was checked: it is a cache, so it is built again, once.
      if (e instanceof BrickpostError) throw e;
      const file = indexFile(ctx.home, key);
      if (attempt > 1) throw fromSqliteError(e, { file, what: 'browse index', recover: `rm ${shellArg(file)}` });
    } finally {
      index.close();
    }
    if (listing !== null) return { ...listing, indexBuilt: built };
    discard(indexFile(ctx.home, key));
  }
}

/** The listing of `folder` from `index`. @throws BrickpostError NOT_FOUND, USAGE; Error for a damaged index */
function query(index: BrowseIndexReader, folder: string, limit: number): Omit<FolderListing, 'indexBuilt'> {
  let n = 0;
  const parts = folder === '' ? [] : folder.split('/');
  for (const [i, name] of parts.entries()) {
    const child = index.child(n, toBytes(name));
    const last = i === parts.length - 1;
    if (child === undefined || (!last && child.entry.type !== 'dir')) {
      throw new BrickpostError('NOT_FOUND', `the shipment holds no folder ${quote(folder)}`, {
        hint: "go back to the shipment's top folder and open the folders from there",
      });
    }
    if (child.entry.type !== 'dir') {
      throw new BrickpostError('USAGE', `${quote(folder)} is not a folder in the shipment (it is a ${kindOf(child.entry)})`, {
        hint: 'tick it to take it instead',
      });
    }
    n = child.n;
  }
  const prefix = folder === '' ? '' : `${folder}/`;
  const { entries, total } = index.children(n, limit);
  return { folder, entries: entries.map((e) => ({ ...e, path: prefix + e.path })), total };
}

function kindOf(e: ListEntry): string {
  return e.type === 'link' ? 'symbolic link' : e.type === 'hard' ? 'hard link' : e.type;
}
