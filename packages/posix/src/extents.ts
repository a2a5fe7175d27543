// Where a sparse file's data lies, so the engine reads and records only the
// data regions and recreates the holes between them.
import { addon } from './binding.js';
import { withPath } from './errors.js';

/** A data region of a file: its byte offset and its length in bytes. */
export type Extent = [offset: number, length: number];

/**
 * Lists the data regions of the open regular file `fd` between 0 and `size`,
 * found with lseek SEEK_DATA / SEEK_HOLE. A file system that cannot tell
 * holes apart (EINVAL on SEEK_DATA) gives one extent `[0, size]`; an empty
 * file gives `[]`. Past `maxExtents` (default 2^20) regions the rest of the
 * file is merged into the last extent, so memory stays bounded. The file
 * position afterwards is unspecified: read with pread.
 * @throws SystemError from lseek (EBADF, ESPIPE for a pipe, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE` where the addon is missing.
 */
export function dataExtents(fd: number, size: number, maxExtents?: number): Extent[] {
  return withPath(undefined, () => addon().dataExtents(fd, size, maxExtents));
}

/**
 * Returns the offset of the first data at or after `offset` (lseek SEEK_DATA),
 * or -1 when only a hole follows (ENXIO).
 * @throws SystemError from lseek (EINVAL where the file system lacks SEEK_DATA, EBADF, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function seekData(fd: number, offset: number): number {
  return withPath(undefined, () => addon().seekData(fd, offset));
}

/**
 * Returns the offset of the first hole at or after `offset` (lseek SEEK_HOLE);
 * the end of the file counts as a hole.
 * @throws SystemError from lseek (ENXIO past the end, EBADF, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function seekHole(fd: number, offset: number): number {
  return withPath(undefined, () => addon().seekHole(fd, offset));
}
