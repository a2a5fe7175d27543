import { addon, available } from './binding.js';

/**
 * Caps how many allocator arenas the C library keeps (glibc's mallopt
 * M_ARENA_MAX), for threads started from now on. Returns whether the cap was
 * set: false where the C library has no such setting or the addon is not
 * loaded (nothing to do there).
 * @throws RangeError for a count outside 1 … 1024
 */
export function limitArenas(arenas: number): boolean {
  return available && addon().limitArenas(arenas);
}
