// Extended attributes of an entry, read and written without following a
// symbolic link (the l* calls) or through an open file (the f* calls). On
// Linux they also carry POSIX ACLs (system.posix_acl_access) and file
// capabilities (security.capability). Names and values are bytes.
import { addon, type Path } from './binding.js';
import { withPath } from './errors.js';

/**
 * Lists the names of the extended attributes of `path` itself, not of a
 * symbolic link's target (llistxattr), as Buffers.
 * @throws SystemError from llistxattr (ENOENT, ENOTSUP where the file system has none, …); TypeError for a bad path; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function listXattrs(path: Path): Buffer[] {
  return withPath(path, () => addon().listXattrs(path));
}

/**
 * Reads one extended attribute of `path` itself (lgetxattr); null when the
 * entry has no attribute of that name.
 * @throws SystemError from lgetxattr (ENOENT, ENOTSUP, EPERM, …); TypeError for a bad path or name; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function getXattr(path: Path, name: Path): Buffer | null {
  return withPath(path, () => addon().getXattr(path, name));
}

/**
 * Creates or replaces one extended attribute of `path` itself (lsetxattr).
 * @throws SystemError from lsetxattr (EPERM for user.* names on a symbolic link, ENOSPC or E2BIG for a value the file system cannot hold, ENOTSUP, …); TypeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function setXattr(path: Path, name: Path, value: Buffer): void {
  withPath(path, () => addon().setXattr(path, name, value));
}

/**
 * Removes one extended attribute of `path` itself (lremovexattr).
 * @throws SystemError from lremovexattr (ENODATA when there is no such attribute, ENOENT, …); TypeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function removeXattr(path: Path, name: Path): void {
  withPath(path, () => addon().removeXattr(path, name));
}

/**
 * Lists the names of the extended attributes of the open file `fd` (flistxattr).
 * @throws SystemError from flistxattr (EBADF, ENOTSUP, …); TypeError or RangeError for a bad fd; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function fListXattrs(fd: number): Buffer[] {
  return withPath(undefined, () => addon().fListXattrs(fd));
}

/**
 * Reads one extended attribute of the open file `fd` (fgetxattr); null when absent.
 * @throws SystemError from fgetxattr (EBADF, ENOTSUP, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function fGetXattr(fd: number, name: Path): Buffer | null {
  return withPath(undefined, () => addon().fGetXattr(fd, name));
}

/**
 * Creates or replaces one extended attribute of the open file `fd` (fsetxattr).
 * @throws SystemError from fsetxattr (EBADF, ENOSPC, E2BIG, ENOTSUP, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function fSetXattr(fd: number, name: Path, value: Buffer): void {
  withPath(undefined, () => addon().fSetXattr(fd, name, value));
}

/**
 * Removes one extended attribute of the open file `fd` (fremovexattr).
 * @throws SystemError from fremovexattr (ENODATA when there is no such attribute, EBADF, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function fRemoveXattr(fd: number, name: Path): void {
  withPath(undefined, () => addon().fRemoveXattr(fd, name));
}
