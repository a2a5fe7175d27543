import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';

/**
 * Where things are on a drive (FORMAT.md §layout):
 *
 *     DRIVE/brickpost/<shipment-id>/        one BagIt bag per shipment
 *     DRIVE/brickpost/<shipment-id>.part/   a shipment being written
 */
export const DRIVE_DIR = 'brickpost';
export const PART_SUFFIX = '.part';

/** Shipment ids: UTC time of packing and 8 random hex digits. */
export const SHIPMENT_ID = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;

/** A new shipment id for now. */
export function newShipmentId(random: Buffer, now = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${t}-${random.subarray(0, 4).toString('hex')}`;
}

/** The bag folder of a shipment on a drive. */
export function bagDir(drive: string, shipment: string): string {
  return join(drive, DRIVE_DIR, shipment);
}

/**
 * The folder that holds a drive's shipments: DRIVE/brickpost/, or the
 * folder given when it is itself a brickpost/ folder; null when neither.
 */
export async function driveRoot(drive: string): Promise<string | null> {
  const root = join(drive, DRIVE_DIR);
  if (await isDir(root)) return root;
  return drive.replace(/\/+$/, '').endsWith(`/${DRIVE_DIR}`) && (await isDir(drive)) ? drive : null;
}

/** True when `dir` is a bag folder (it holds bagit.txt). */
export async function isBagFolder(dir: string): Promise<boolean> {
  return isFile(join(dir, 'bagit.txt'));
}

/**
 * Finds the shipment to read on a drive: the one named, or the only one.
 * Accepts the drive root, its brickpost/ folder or a bag folder itself.
 * @throws BrickpostError NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, NOT_FOUND
 */
export async function findShipment(drive: string, shipment?: string): Promise<{ id: string; dir: string }> {
  const st = await stat(drive).catch(() => null);
  if (!st?.isDirectory()) throw new BrickpostError('NOT_FOUND', `drive ${quote(drive)} is not a folder`);
  // A bag folder given directly.
  if (await isBagFolder(drive)) {
    const id = drive.replace(/\/+$/, '').split('/').pop() ?? '';
    if (shipment && shipment !== id) throw new BrickpostError('NOT_FOUND', `${quote(drive)} holds shipment ${quote(id)}, not ${quote(shipment)}`);
    return { id, dir: drive };
  }
  const root = await driveRoot(drive);
  if (!root) {
    throw new BrickpostError('NOT_A_DRIVE', `${quote(drive)} is not a brickpost drive (no ${DRIVE_DIR}/ folder)`, {
      hint: 'give the folder the drive is mounted at',
    });
  }
  const ids = (await readdir(root)).filter((n) => SHIPMENT_ID.test(n)).sort();
  if (shipment) {
    if (!ids.includes(shipment)) throw new BrickpostError('NOT_FOUND', `no shipment ${quote(shipment)} on ${quote(drive)}`, { hint: `shipments here: ${ids.join(', ') || 'none'}` });
    return { id: shipment, dir: join(root, shipment) };
  }
  if (ids.length === 0) {
    const parts = (await readdir(root)).filter((n) => n.endsWith(PART_SUFFIX));
    throw new BrickpostError('NOT_A_DRIVE', `no complete shipment on ${quote(drive)}${parts.length ? ' (only unfinished ones)' : ''}`, {
      hint: parts.length ? 'the pack that wrote this drive did not finish; pack again' : undefined,
    });
  }
  if (ids.length > 1) {
    throw new BrickpostError('AMBIGUOUS_SHIPMENT', `${quote(drive)} holds ${ids.length} shipments`, { hint: `choose one with --shipment: ${ids.join(', ')}` });
  }
  return { id: ids[0]!, dir: join(root, ids[0]!) };
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}
