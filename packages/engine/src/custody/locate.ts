import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import { DRIVE_DIR, driveRoot, isBagFolder, SHIPMENT_ID } from '../drive/layout.js';

/** The suffix of a bag folder being removed by wipe: not a shipment (§3.2), not an unfinished one (§3.3). */
export const WIPING_SUFFIX = '.wiping';
/** The suffix of a drive's custody log of a shipment, next to its bag. */
export const CUSTODY_SUFFIX = '.custody';

/** Where one shipment's custody records are on a drive. */
export interface CustodyPlace {
  id: string;
  /** The bag folder, when the shipment is still on the drive. */
  bag: string | null;
  /** A bag folder wipe renamed and has not finished removing. */
  wiping: string | null;
  /** `brickpost/<id>.custody`, which may not exist yet. */
  log: string;
}

/** The custody log next to a bag folder. */
export function custodyLogOf(bagDir: string): string {
  return join(dirname(bagDir), `${basename(bagDir)}${CUSTODY_SUFFIX}`);
}

async function kind(p: string): Promise<'file' | 'dir' | null> {
  const st = await stat(p).catch(() => null);
  return st?.isDirectory() ? 'dir' : st?.isFile() ? 'file' : null;
}

/**
 * Finds a shipment's custody records on a drive: its bag, a bag being
 * wiped, or its custody log alone (after wipe). Accepts the drive root,
 * its brickpost/ folder or a bag folder.
 * @throws BrickpostError NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT
 */
export async function locateCustody(drive: string, shipment?: string): Promise<CustodyPlace> {
  if ((await kind(drive)) !== 'dir') throw new BrickpostError('NOT_FOUND', `drive ${quote(drive)} is not a folder`);
  if (await isBagFolder(drive)) {
    const id = basename(drive.replace(/\/+$/, ''));
    if (shipment && shipment !== id) throw new BrickpostError('NOT_FOUND', `${quote(drive)} holds shipment ${quote(id)}, not ${quote(shipment)}`);
    return { id, bag: drive, wiping: null, log: custodyLogOf(drive) };
  }
  const root = await driveRoot(drive);
  if (!root)
    throw new BrickpostError('NOT_A_DRIVE', `${quote(drive)} is not a brickpost drive (no ${DRIVE_DIR}/ folder)`, {
      hint: 'give the folder the drive is mounted at',
    });
  const ids = new Set<string>();
  for (const name of await readdir(root)) {
    const id = name.endsWith(CUSTODY_SUFFIX)
      ? name.slice(0, -CUSTODY_SUFFIX.length)
      : name.endsWith(WIPING_SUFFIX)
        ? name.slice(0, -WIPING_SUFFIX.length)
        : name;
    if (SHIPMENT_ID.test(id)) ids.add(id);
  }
  const all = [...ids].sort();
  let id: string;
  if (shipment) {
    if (!ids.has(shipment))
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(shipment)} and no custody log of it on ${quote(drive)}`, {
        hint: `shipments here: ${all.join(', ') || 'none'}`,
      });
    id = shipment;
  } else if (all.length === 1) {
    id = all[0]!;
  } else if (all.length === 0) {
    throw new BrickpostError('NOT_A_DRIVE', `no shipment and no custody log on ${quote(drive)}`);
  } else {
    throw new BrickpostError('AMBIGUOUS_SHIPMENT', `${quote(drive)} holds ${all.length} shipments or custody logs`, {
      hint: `choose one with --shipment: ${all.join(', ')}`,
    });
  }
  const bag = join(root, id);
  const wiping = bag + WIPING_SUFFIX;
  return {
    id,
    bag: (await kind(bag)) === 'dir' ? bag : null,
    wiping: (await kind(wiping)) === 'dir' ? wiping : null,
    log: join(root, `${id}${CUSTODY_SUFFIX}`),
  };
}

/**
 * Refuses to write or remove through a symbolic link a drive holds: the
 * drive's brickpost/ folder or a bag folder pointing elsewhere would make
 * a custody write or a wipe act outside the drive.
 * @throws BrickpostError UNSAFE_ENTRY
 */
export async function refuseLink(path: string, what: string): Promise<void> {
  const st = await lstat(path).catch(() => null);
  if (st?.isSymbolicLink()) {
    throw new BrickpostError('UNSAFE_ENTRY', `${what} ${quote(path)} is a symbolic link; brickpost does not write through links on a drive`, {
      hint: 'the drive may have been tampered with; check it with brickpost verify',
      path,
    });
  }
}
