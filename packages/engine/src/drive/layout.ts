import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { bagit, BrickpostError, parseShipmentInfo, quote } from '@brickpost/manifest';
import type { DriveShipment } from '../api/index.js';
import { readLimited } from '../io/read-limited.js';

/**
 * Where things are on a drive (FORMAT.md §layout):
 *
 *     DRIVE/brickpost/<shipment-id>/        one BagIt bag per shipment
 *     DRIVE/brickpost/<shipment-id>.part/   a shipment being written
 */
export const DRIVE_DIR = 'brickpost';
export const PART_SUFFIX = '.part';

/** Tag files every shipment bag carries, in tag-manifest order. */
export const TAG_FILES = ['bagit.txt', 'bag-info.txt', 'manifest-sha256.txt', 'README.txt', 'FORMAT.md'] as const;
export const TAG_MANIFEST = 'tagmanifest-sha256.txt';
export const SIGNATURE_FILE = 'tagmanifest-sha256.txt.minisig';
/** The publisher's custody events, a tag file after the five above (FORMAT.md §custody). */
export const CUSTODY_TAG_FILE = 'custody.ndjson';

/** The first bytes of every pack file (FORMAT.md §pack). */
export const PACK_FORMAT = 'brickpost-pack/v1';

/** Shipment ids: UTC time of packing and 8 random hex digits. */
export const SHIPMENT_ID = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;

/** A new shipment id for now. */
export function newShipmentId(random: Buffer, now = new Date()): string {
  const t = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
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
 * Finds the shipment to read on a drive: the one named, the only one, or
 * the one `choose` picks among several. Accepts the drive root, its
 * brickpost/ folder or a bag folder itself.
 * @throws BrickpostError NOT_A_DRIVE, AMBIGUOUS_SHIPMENT (listing the shipments; `choices` holds their ids), NOT_FOUND
 */
export async function findShipment(
  drive: string,
  shipment?: string,
  choose?: (all: DriveShipment[]) => DriveShipment | undefined,
): Promise<{ id: string; dir: string }> {
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
  const ids = await shipmentIds(root);
  if (shipment) {
    if (!ids.includes(shipment))
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(shipment)} on ${quote(drive)}`, { hint: `shipments here: ${ids.join(', ') || 'none'}` });
    return { id: shipment, dir: join(root, shipment) };
  }
  if (ids.length === 0) {
    const parts = (await readdir(root)).filter((n) => n.endsWith(PART_SUFFIX));
    throw new BrickpostError('NOT_A_DRIVE', `no complete shipment on ${quote(drive)}${parts.length ? ' (only unfinished ones)' : ''}`, {
      hint: parts.length ? 'the pack that wrote this drive did not finish; pack again' : undefined,
    });
  }
  if (ids.length === 1) return { id: ids[0]!, dir: join(root, ids[0]!) };
  const all = await describeShipments(root, ids);
  const chosen = choose?.(all);
  if (chosen) return { id: chosen.id, dir: chosen.dir };
  throw ambiguous(drive, all);
}

/** The error for a drive with several shipments and none chosen: it lists them, newest last. */
export function ambiguous(drive: string, all: DriveShipment[]): BrickpostError {
  return new BrickpostError('AMBIGUOUS_SHIPMENT', `${quote(drive)} holds ${all.length} shipments: ${all.map(describe).join('; ')}`, {
    hint: `choose one with --shipment ID (the newest is ${all[all.length - 1]!.id})`,
    choices: all.map((s) => s.id),
  });
}

/** `#2 ID (dataset "survey", label "2026-12")`, for messages. */
export function describe(s: DriveShipment): string {
  if (s.seq === null) return `${s.id} (its bag-info.txt is unreadable)`;
  return `#${s.seq} ${s.id} (dataset ${quote(s.dataset ?? '')}${s.label ? `, label ${quote(s.label)}` : ''})`;
}

/**
 * The complete shipments on a drive, oldest first (by the time of packing
 * its bag-info gives, to the millisecond: ids give it to the second only,
 * so two packed in the same second would otherwise come in random order),
 * each as its bag-info describes it. This is for choosing and listing only: nothing here is
 * verified (the shipment chosen is opened and checked before use).
 * @throws BrickpostError NOT_FOUND, NOT_A_DRIVE
 */
export async function shipmentsOn(drive: string): Promise<DriveShipment[]> {
  if (await isBagFolder(drive)) {
    const id = drive.replace(/\/+$/, '').split('/').pop() ?? '';
    return describeShipments(join(drive, '..'), [id]);
  }
  const root = await driveRoot(drive);
  if (!root)
    throw new BrickpostError('NOT_A_DRIVE', `${quote(drive)} is not a brickpost drive (no ${DRIVE_DIR}/ folder)`, {
      hint: 'give the folder the drive is mounted at',
    });
  return describeShipments(root, await shipmentIds(root));
}

async function shipmentIds(root: string): Promise<string[]> {
  return (await readdir(root)).filter((n) => SHIPMENT_ID.test(n)).sort();
}

/** Bag-info of a listing is read up to this size (its limit in FORMAT.md §limits). */
const BAG_INFO_MAX = 1 << 20;

async function describeShipments(root: string, ids: string[]): Promise<DriveShipment[]> {
  const out: DriveShipment[] = [];
  for (const id of ids) {
    const dir = join(root, id);
    try {
      const info = parseShipmentInfo(bagit.parseBagInfo(await readLimited(join(dir, 'bag-info.txt'), BAG_INFO_MAX, 'bag-info.txt')));
      out.push({
        id,
        dir,
        seq: info.seq,
        dataset: info.dataset,
        datasetId: info.datasetId,
        label: info.label,
        parent: info.parent,
        created: info.created,
        drive: info.bagIndex,
        drives: info.bagCount,
      });
    } catch {
      out.push({ id, dir, seq: null, dataset: null, datasetId: null, label: null, parent: null, created: null, drive: null, drives: null });
    }
  }
  return out.sort(byPacking);
}

/** Oldest first: by the time of packing (bag-info's, to the millisecond), then by sequence number, then by id. */
export function byPacking(a: DriveShipment, b: DriveShipment): number {
  const x = packedAt(a);
  const y = packedAt(b);
  if (x !== y) return x < y ? -1 : 1;
  if (a.seq !== null && b.seq !== null && a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** When a shipment was packed, as an ISO time: its bag-info's, else its id's (to the second). */
function packedAt(s: DriveShipment): string {
  if (s.created !== null) return s.created;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(s.id);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : s.id;
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}
