// Copies between open files inside the kernel, where Node's fs.copyFile
// copies whole files only.
import { addon } from './binding.js';
import { withPath } from './errors.js';

/**
 * Copies `length` bytes of the open file `fdIn` from offset `offIn` into
 * the open file `fdOut` at `offOut` inside the kernel (copy_file_range:
 * shared extents where the file system can, else a copy in the page
 * cache), moving neither file's offset. Returns the bytes copied: fewer
 * than `length` only where `fdIn` ends.
 * @throws SystemError ENOSYS where the system has no copy_file_range (not Linux); EXDEV, EINVAL, EOPNOTSUPP where it cannot copy between those files; EBADF, EIO, ENOSPC…; TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function copyRange(fdIn: number, offIn: number, fdOut: number, offOut: number, length: number): number {
  const a = addon();
  // An addon built before copyRange existed has none: as a system without the call.
  if (typeof a.copyRange !== 'function')
    throw Object.assign(new Error('ENOSYS: the posix addon was built without copyRange, copy_file_range'), {
      code: 'ENOSYS',
      errno: -38,
      syscall: 'copy_file_range',
    });
  return withPath(undefined, () => a.copyRange(fdIn, offIn, fdOut, offOut, length));
}

/**
 * Asks the kernel to start writing the dirty pages of `length` bytes of the
 * open file `fd` from `offset` (0: to its end) to the disk, without waiting
 * and without making them durable (sync_file_range, SYNC_FILE_RANGE_WRITE):
 * a sync of many files later finds less left to write. False where the
 * system has no such call (not Linux), the addon predates it, or the call
 * was refused; nothing changes then.
 * @throws TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function startWriteback(fd: number, offset = 0, length = 0): boolean {
  const a = addon();
  return typeof a.startWriteback === 'function' && a.startWriteback(fd, offset, length);
}
