import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BrickpostError, MANIFEST_PATH, packPath, quote, SET_PATH, type DriveSet, type SetShare } from '@brickpost/manifest';
import { DRIVE_DIR, findShipment, SHIPMENT_ID } from './layout.js';
import { openShipment, type OpenedShipment, type TrustedSigner } from './open.js';

/** The drives of a set that were found, by 0-based share. */
export interface SetMembers {
  /** The first drive given, as opened. */
  first: OpenedShipment;
  set: DriveSet | null;
  members: Map<number, OpenedShipment>;
}

/** Where a drive set stands: which drives are here and whether that is enough. */
export interface SetStatus {
  drives: number;
  data: number;
  parity: number;
  /** 1-based drive numbers found. */
  present: number[];
  missing: number[];
  recoverable: boolean;
  /** Drives still needed (0 when recoverable). */
  needed: number;
}

/** The status of a set with the given shares present. */
export function setStatus(set: DriveSet, present: Iterable<number>): SetStatus {
  const have = [...new Set(present)].sort((a, b) => a - b);
  const n = set.shares.length;
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !have.includes(i));
  const needed = Math.max(0, set.data - have.length);
  return {
    drives: n,
    data: set.data,
    parity: set.parity,
    present: have.map((i) => i + 1),
    missing: missing.map((i) => i + 1),
    recoverable: needed === 0,
    needed,
  };
}

/**
 * Opens every drive given as one shipment (strictly: each drive's
 * signature, tag files and set file are checked). All must hold the same
 * shipment, signed by the same key, with the same set file and manifest;
 * a drive given twice counts once.
 * @throws BrickpostError SET_MISMATCH, and what openShipment throws
 */
export async function openMembers(drives: string[], trusted: TrustedSigner[], shipment?: string): Promise<SetMembers> {
  let first: OpenedShipment | null = null;
  const members = new Map<number, OpenedShipment>();
  for (const d of drives) {
    // A later drive that lacks the first drive's shipment is opened as it is, to say what it holds.
    const found = await findShipment(d, shipment ?? first?.id).catch((e: unknown) => (first && !shipment ? findShipment(d) : Promise.reject(e)));
    const s = await openShipment(found.id, found.dir, trusted);
    if (!first) {
      first = s;
    } else {
      const why =
        s.id !== first.id
          ? `holds shipment ${quote(s.id)}, not ${quote(first.id)}`
          : s.info.publisherKey !== first.info.publisherKey
            ? `is signed by key ${s.info.publisherKey}, not ${first.info.publisherKey}`
            : s.payload.get(SET_PATH) !== first.payload.get(SET_PATH) || s.payload.get(MANIFEST_PATH) !== first.payload.get(MANIFEST_PATH)
              ? 'carries another set file or manifest than the first drive'
              : null;
      if (why)
        throw new BrickpostError('SET_MISMATCH', `drive ${quote(d)} ${why}: it is not part of the same set`, {
          path: d,
          hint: 'give only the drives of one shipment',
        });
    }
    if (!s.set && drives.length > 1)
      throw new BrickpostError('SET_MISMATCH', `shipment ${quote(s.id)} on ${quote(d)} is a single drive, not part of a set`, {
        path: d,
        hint: 'give that drive alone',
      });
    if (!members.has(s.info.bagIndex - 1)) members.set(s.info.bagIndex - 1, s);
  }
  return { first: first!, set: first!.set, members };
}

/**
 * Refuses a set that lacks drives, naming the drives that could complete it.
 * @throws BrickpostError SET_INCOMPLETE
 */
export function requireRecoverable(m: SetMembers): void {
  if (!m.set) return;
  const st = setStatus(m.set, m.members.keys());
  if (st.recoverable) return;
  throw new BrickpostError(
    'SET_INCOMPLETE',
    `shipment ${quote(m.first.id)} is a set of ${st.drives} drives (${st.data} data, ${st.parity} parity): drives ${st.present.join(', ')} are here, ` +
      `${st.needed} more of drives ${st.missing.join(', ')} ${st.needed === 1 ? 'is' : 'are'} needed`,
    {
      hint: `mount ${st.needed === 1 ? 'one of them' : `${st.needed} of them`} and give every drive on the command line, or use --gather with one drive at a time`,
    },
  );
}

/** The data drives of the set that are not among the members (to rebuild from parity); none for one drive. */
export function lostShares(m: SetMembers): SetShare[] {
  return m.set?.shares.filter((s) => s.kind === 'data' && !m.members.has(s.index)) ?? [];
}

/**
 * The shipment as one bag: the first drive's manifest and every pack's
 * digest from the set file, each pack found on its data drive or among the
 * rebuilt ones in `rebuilt` (a bag folder).
 */
export function mergedShipment(m: SetMembers, rebuilt: string | null): OpenedShipment {
  if (!m.set) return m.first;
  const bags: string[] = [];
  const of = new Uint16Array(m.first.info.packs);
  const payload = new Map([[MANIFEST_PATH, m.first.payload.get(MANIFEST_PATH)!]]);
  for (const share of m.set.shares.filter((s) => s.kind === 'data')) {
    const member = m.members.get(share.index);
    const bag = member ? member.dir : rebuilt;
    if (bag === null) throw new BrickpostError('SET_INCOMPLETE', `data drive ${share.index + 1} is missing and was not rebuilt`);
    let at = bags.indexOf(bag);
    if (at < 0) at = bags.push(bag) - 1;
    for (const f of share.files) {
      of[f.pack!] = at;
      payload.set(packPath(f.pack!), f.sha256);
    }
  }
  return { ...m.first, payload, packDirs: { bags, of } };
}

/**
 * Other drives of the same shipment mounted next to `drive` (drives are
 * usually mounted side by side, as under /media/USER or /Volumes), found by
 * their folder brickpost/ID. Returns their roots; nothing is read but names.
 */
export async function siblingDrives(drive: string, id: string): Promise<string[]> {
  if (!SHIPMENT_ID.test(id)) return [];
  const found = resolve(drive);
  const root = found.endsWith(`/${DRIVE_DIR}/${id}`) ? dirname(dirname(found)) : found.endsWith(`/${DRIVE_DIR}`) ? dirname(found) : found;
  const parent = dirname(root);
  const names = await readdir(parent).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names.sort()) {
    const r = join(parent, n);
    if (r === root) continue;
    const here = await readdir(join(r, DRIVE_DIR)).catch(() => [] as string[]);
    if (here.includes(id)) out.push(r);
  }
  return out;
}

/** The other drives of `s`'s set that open and carry the same set file: those given and those mounted next to it, by share. */
export async function setDrives(s: OpenedShipment, given: string[], trusted: TrustedSigner[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const d of [...given, ...(await siblingDrives(s.dir, s.id))]) {
    try {
      const f = await findShipment(d, s.id);
      const o = await openShipment(f.id, f.dir, trusted, { problems: [], signature: 'missing', signer: { keyId: '', name: null, trusted: false } });
      const i = o.info.bagIndex - 1;
      if (o.signature === 'valid' && o.payload.get(SET_PATH) === s.payload.get(SET_PATH) && i !== s.info.bagIndex - 1 && !out.has(i)) out.set(i, f.dir);
    } catch {
      // Not a readable drive of this set: it does not count as present.
    }
  }
  return out;
}
