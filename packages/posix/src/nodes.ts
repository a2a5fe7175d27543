// Special files: device numbers as lstat reports them in st_rdev, and
// creating character and block devices and FIFOs. Sockets are not recreated.
import { addon, type Path } from './binding.js';
import { withPath } from './errors.js';

/**
 * Creates a character or block device at `path` (mknod); `mode` holds the
 * S_IFCHR or S_IFBLK type bits and the permissions, which the umask narrows.
 * @throws SystemError from mknod (EPERM without CAP_MKNOD, EEXIST, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function mknod(path: Path, mode: number, major: number, minor: number): void {
  withPath(path, () => addon().mknod(path, mode, major, minor));
}

/**
 * Creates a FIFO at `path` with permissions `mode`, which the umask narrows (mkfifo).
 * @throws SystemError from mkfifo (EEXIST, ENOENT, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function mkfifo(path: Path, mode: number): void {
  withPath(path, () => addon().mkfifo(path, mode));
}

/**
 * Returns the major number of a device number (st_rdev from lstat, as a number or a bigint).
 * @throws TypeError or RangeError for a value that is not a non-negative integer; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function major(rdev: number | bigint): number {
  return addon().major(rdev);
}

/**
 * Returns the minor number of a device number (st_rdev from lstat, as a number or a bigint).
 * @throws TypeError or RangeError for a value that is not a non-negative integer; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function minor(rdev: number | bigint): number {
  return addon().minor(rdev);
}

/**
 * Combines a major and a minor number into a device number, as the C library's makedev does.
 * @throws TypeError or RangeError for a part outside 0..2^32-1; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function makedev(major: number, minor: number): number {
  return addon().makedev(major, minor);
}
