// Timestamps to the nanosecond. Node's lutimes and futimes take seconds as
// doubles, which cannot hold today's times to the nanosecond; these take
// bigint nanoseconds since the epoch, as lstat's `{ bigint: true }` reports.
import { addon, type Path } from './binding.js';
import { withPath } from './errors.js';

/**
 * Sets the access and modification times of `path` itself, not a symbolic
 * link's target (utimensat with AT_SYMLINK_NOFOLLOW).
 * @throws SystemError from utimensat (ENOENT, EPERM, …); TypeError or RangeError for a bad path or a time outside 64 bits; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function lutimesNs(path: Path, atimeNs: bigint, mtimeNs: bigint): void {
  withPath(path, () => addon().lutimesNs(path, atimeNs, mtimeNs));
}

/**
 * Sets the access and modification times of the open file `fd` (futimens).
 * @throws SystemError from futimens (EBADF, EPERM, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function futimesNs(fd: number, atimeNs: bigint, mtimeNs: bigint): void {
  withPath(undefined, () => addon().futimesNs(fd, atimeNs, mtimeNs));
}
