import { realpath, stat, statfs } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BrickpostError, MAX_SET_DRIVES, quote } from '@brickpost/manifest';
import type { PackOptions } from '../api/index.js';

/** Slack per drive for the manifest and the tag files. */
const SLACK = 1 << 20;
/** Recovery data takes at least a block per group of a window: 32 × 64 KiB. */
const RECOVERY_FLOOR = 2 << 20;

/** The drives a shipment goes to and how it is spread over them. */
export interface DrivePlan {
  roots: string[];
  /** Parity drives m; the first roots.length − m drives hold data. */
  parity: number;
  recovery: number;
  /** Bytes each drive may take: its free space, or less with --drive-size. */
  capacities: number[];
}

/** Default parity: one parity drive from three drives up, none below. */
export function defaultParity(drives: number): number {
  return drives >= 3 ? 1 : 0;
}

/**
 * Checks the drives given to pack (folders, distinct, outside the source)
 * and the parity and recovery options, and measures each drive's capacity.
 * @throws BrickpostError USAGE, NOT_FOUND
 */
export async function planDrives(opts: PackOptions, source: string): Promise<DrivePlan> {
  const n = opts.drives.length;
  if (n === 0) throw new BrickpostError('USAGE', 'no drive given', { hint: 'give --to DRIVE, once per drive of the set' });
  if (n > MAX_SET_DRIVES) throw new BrickpostError('USAGE', `a drive set has at most ${MAX_SET_DRIVES} drives, not ${n}`);
  const parity = opts.parity ?? defaultParity(n);
  if (!Number.isInteger(parity) || parity < 0 || parity >= n) {
    throw new BrickpostError('USAGE', `--parity ${parity} does not fit ${n} drive${n === 1 ? '' : 's'}: it must be from 0 to ${n - 1}`, {
      hint: 'at least one drive must hold data',
    });
  }
  const recovery = opts.recovery ?? 2;
  if (!Number.isInteger(recovery) || recovery < 0 || recovery > 100)
    throw new BrickpostError('USAGE', `--recovery must be a whole percent from 0 to 100, not ${recovery}`);
  if (opts.driveSize !== undefined && !(Number.isSafeInteger(opts.driveSize) && opts.driveSize > 0))
    throw new BrickpostError('USAGE', '--drive-size must be a positive size');
  const roots: string[] = [];
  const seen = new Map<string, string>();
  const capacities: number[] = [];
  for (const d of opts.drives) {
    const root = resolve(d);
    const st = await stat(root).catch(() => null);
    if (!st?.isDirectory())
      throw new BrickpostError('NOT_FOUND', `drive ${quote(d)} is not a folder`, { hint: 'mount the drive, or create the folder standing in for it' });
    const real = await realpath(root);
    if (real === source || real.startsWith(source + '/')) throw new BrickpostError('USAGE', `drive ${quote(root)} is inside the source ${quote(source)}`);
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key))
      throw new BrickpostError('USAGE', `drives ${quote(seen.get(key)!)} and ${quote(root)} are the same folder`, { hint: 'give each drive of the set once' });
    seen.set(key, root);
    roots.push(root);
    const fs = await statfs(root).catch(() => null);
    const free = fs ? fs.bavail * fs.bsize : Number.MAX_SAFE_INTEGER;
    capacities.push(Math.min(free, opts.driveSize ?? Number.MAX_SAFE_INTEGER));
  }
  return { roots, parity, recovery, capacities };
}

/** Worst-case bytes on each drive of a set of `n` drives with `m` parity, for `bytes` of source. */
export function bytesPerDrive(bytes: number, n: number, m: number, recovery: number): number {
  // Nothing compresses or deduplicates; age adds 16 bytes per 64 KiB; frames are spread evenly.
  const share = Math.ceil((bytes * 1.0003) / (n - m));
  return Math.ceil(share * (1 + recovery / 100)) + SLACK + (recovery > 0 ? RECOVERY_FLOOR : 0);
}

/**
 * Refuses before writing when a drive may be too small for its share of
 * `bytes`, naming the drive and the shortfall, and how many drives of the
 * smallest size the set would need.
 * @throws BrickpostError NO_SPACE
 */
export function checkCapacity(plan: DrivePlan, bytes: number): void {
  const n = plan.roots.length;
  const need = bytesPerDrive(bytes, n, plan.parity, plan.recovery);
  const i = plan.capacities.findIndex((c) => c < need);
  if (i < 0) return;
  const cap = Math.min(...plan.capacities);
  let enough = n;
  while (enough <= MAX_SET_DRIVES && bytesPerDrive(bytes, enough, plan.parity, plan.recovery) > cap) enough++;
  const what = n === 1 ? 'the shipment' : `its share of the shipment (1/${n - plan.parity} of the data, with parity ${plan.parity})`;
  const more =
    enough > MAX_SET_DRIVES
      ? 'no set of drives that small can hold it: use larger drives'
      : `with drives of ${cap} bytes, ${enough} drives are needed (${enough - n} more, with --parity ${plan.parity})`;
  throw new CapacityError(
    'NO_SPACE',
    `drive ${n > 1 ? `${i + 1} ` : ''}${quote(plan.roots[i]!)} can take ${plan.capacities[i]} bytes; ${what} may need up to ${need} (short by ${need - plan.capacities[i]!}); ${more}`,
    { path: plan.roots[i]!, hint: 'use larger drives, more drives, or free some space' },
  );
}

/** The refusal before writing: nothing was written, so there is nothing to resume. */
export class CapacityError extends BrickpostError {}
