// Locks the kernel releases when their holder dies: an open file
// description lock (flock where the system has none).
import { addon } from './binding.js';
import { withPath } from './errors.js';

/**
 * Takes an exclusive lock on the whole file open as `fd`, without waiting.
 * The kernel drops it when the descriptor is closed or the process dies.
 * Returns false when another open file description holds it.
 * @throws SystemError from fcntl or flock (EBADF, ENOLCK, …); TypeError or RangeError for a bad argument; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function tryLock(fd: number): boolean {
  return withPath(undefined, () => addon().tryLock(fd));
}
