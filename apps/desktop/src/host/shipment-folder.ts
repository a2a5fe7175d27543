/**
 * One folder of a shipment for the browse view: the direct children of a
 * folder, at most FOLDER_LIMIT of them, as Engine.listFolder gives them
 * from the shipment's browse index. The first folder opened builds that
 * index (one pass over the manifest); every later one is an indexed query,
 * whatever the shipment's size.
 */
import type { Engine } from '@brickpost/engine';
import { BrickpostError, quote } from '@brickpost/engine/api';
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
 * Lists the direct children of `req.folder`, at most `limit` of them, from
 * the shipment's browse index (Engine.listFolder builds it on the first look).
 * @throws BrickpostError NOT_FOUND (no such folder in the shipment), USAGE (it is not a folder), and what Engine.list throws
 */
export async function shipmentFolder(engine: Engine, req: FolderRequest, limit = FOLDER_LIMIT): Promise<ShipmentFolder> {
  const folder = folderPath(req.folder);
  const f = await engine.listFolder({ drive: req.drive, folder, limit, ...(req.shipment !== undefined ? { shipment: req.shipment } : {}) });
  const more = f.total - f.entries.length;
  const note =
    more === 0
      ? null
      : `This folder holds ${f.total.toLocaleString('en')} entries; the first ${limit.toLocaleString('en')} are listed. Tick the whole folder to take everything in it.`;
  return { folder: f.folder, entries: f.entries, limit, more, note };
}
