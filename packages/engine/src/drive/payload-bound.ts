import type { DriveSet, ShipmentInfo } from '@brickpost/manifest';
import type { SizeBound } from '../io/read-limited.js';

/** The files of this drive's share in the set file, by bag path → size; memoised per set. */
const shareSizes = new WeakMap<DriveSet, Map<string, number>>();

/**
 * The bound of payload file `rel` (bag-relative) of a bag whose bag-info and
 * set file have been checked (FORMAT.md §verification level 1): the size the
 * set file gives a file of this drive's share (§17.2), else the whole
 * payload's size (`Payload-Oxum`).
 */
export function payloadBound(s: { info: ShipmentInfo; set: DriveSet | null }, rel: string): SizeBound {
  if (s.set) {
    let sizes = shareSizes.get(s.set);
    if (!sizes) {
      sizes = new Map((s.set.shares[s.info.bagIndex - 1]?.files ?? []).map((f) => [f.path, f.size] as const));
      shareSizes.set(s.set, sizes);
    }
    const size = sizes.get(rel);
    if (size !== undefined) return { max: size, why: 'the set file gives it' };
  }
  return { max: s.info.payloadBytes, why: `the whole payload holds (Payload-Oxum ${s.info.payloadBytes}.${s.info.payloadFiles})` };
}

/** The tighter of a bound and what is left of the payload's total after the files already read. */
export function withinTotal(b: SizeBound, left: number, total: number): SizeBound {
  if (left >= b.max) return b;
  return { max: Math.max(0, left), why: `are left of the payload's ${total} bytes (Payload-Oxum) after the files before it` };
}
