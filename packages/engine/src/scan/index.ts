/**
 * Scanning a source tree.
 *
 * - source entry: a directory or regular file to ship, with the metadata the
 *   manifest records (size, permission bits, mtime in nanoseconds).
 * - skipped entry: something not shipped (symlink, special file, unportable
 *   name), reported as a warning.
 * - manifest order: see @brickpost/manifest records.
 */
export * from './walk.js';
