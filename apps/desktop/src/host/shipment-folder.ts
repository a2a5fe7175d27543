/**
 * One folder of a shipment for the browse view: the direct children of a
 * folder, picked out of the manifest as `Engine.list` streams it, so memory
 * holds at most FOLDER_LIMIT entries whatever the shipment's size. Manifest
 * order is depth-first with each folder followed by what is inside it
 * (FORMAT.md §9.6), so reading stops once a folder's entries are behind; the
 * root's children are spread over the whole manifest, which is read to its end.
 */
import type { Engine } from '@brickpost/engine';
import { BrickpostError, quote, type ListEntry } from '@brickpost/engine/api';
import type { ShipmentFolder } from '../shared/api.js';

/** At most this many children of a folder are listed; the rest are counted. */
export const FOLDER_LIMIT = 5000;

/** What to list: a drive, optionally its shipment, and a folder ('' or '.' for the root). */
export interface FolderRequest {
  drive: string;
  shipment?: string;
  folder: string;
}

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
 * Lists the direct children of `req.folder`, at most `limit` of them.
 * @throws BrickpostError NOT_FOUND (no such folder in the shipment), USAGE (it is not a folder), and what Engine.list throws
 */
export async function shipmentFolder(engine: Engine, req: FolderRequest, limit = FOLDER_LIMIT): Promise<ShipmentFolder> {
  const folder = folderPath(req.folder);
  const prefix = folder === '' ? '' : `${folder}/`;
  const entries: ListEntry[] = [];
  let more = 0;
  let found: ListEntry | null = null;
  const opts = req.shipment !== undefined ? { drive: req.drive, shipment: req.shipment } : { drive: req.drive };
  for await (const e of engine.list(opts)) {
    if (folder !== '' && found === null) {
      if (e.path === folder) {
        found = e;
        if (e.type !== 'dir') break;
      }
      continue;
    }
    if (!e.path.startsWith(prefix)) {
      if (folder === '') continue;
      break;
    }
    if (e.path.indexOf('/', prefix.length) >= 0) continue;
    if (entries.length < limit) entries.push(e);
    else more++;
  }
  if (folder !== '' && found === null) {
    throw new BrickpostError('NOT_FOUND', `the shipment holds no folder ${quote(folder)}`, {
      hint: "go back to the shipment's top folder and open the folders from there",
    });
  }
  if (found !== null && found.type !== 'dir') {
    throw new BrickpostError(
      'USAGE',
      `${quote(folder)} is not a folder in the shipment (it is a ${found.type === 'link' ? 'symbolic link' : found.type === 'hard' ? 'hard link' : found.type})`,
      { hint: 'tick it to take it instead' },
    );
  }
  const note =
    more === 0
      ? null
      : `This folder holds ${(limit + more).toLocaleString('en')} entries; the first ${limit.toLocaleString('en')} are listed. Tick the whole folder to take everything in it.`;
  return { folder, entries, limit, more, note };
}
