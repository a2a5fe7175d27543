import * as posix from '@brickpost/posix';
import { fsPath } from './fs-path.js';

const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);

/**
 * A manifest's mtime (decimal nanoseconds, any value the format allows) as
 * the nanoseconds a system call takes: clamped to 64 bits (about 1677 to
 * 2262), the best a file system can hold of a time outside them.
 */
function clamp(ns: string): bigint {
  const t = BigInt(ns);
  return t > MAX ? MAX : t < MIN ? MIN : t;
}

/** `ns` (decimal nanoseconds) as setTimesFd sets it: clamped to 64 bits, in decimal. */
export function clampedNs(ns: string): string {
  return String(clamp(ns));
}

/** Sets both times of the open file `fd` to `ns` (decimal nanoseconds), clamped to what the system takes. */
export function setTimesFd(fd: number, ns: string): void {
  const t = clamp(ns);
  posix.futimesNs(fd, t, t);
}

/** Sets both times of the entry at `p` itself (a link is not followed) to `ns`, clamped. */
export function setTimesPath(p: string, ns: string): void {
  const t = clamp(ns);
  posix.lutimesNs(fsPath(p), t, t);
}
