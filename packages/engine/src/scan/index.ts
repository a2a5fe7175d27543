/**
 * Scanning a source tree.
 *
 * - source entry: what pack ships of one name in the tree: a folder, a
 *   file, a symbolic link, a further name of a hard-linked file, or a
 *   special file, with the metadata the manifest records (size, every
 *   permission bit, mtime in nanoseconds, extended attributes, ACLs, owner).
 *   Names are byte strings (`@brickpost/manifest` bytes.ts).
 * - skipped entry: something not shipped, with its reason: excluded on
 *   purpose, unreadable, vanished while scanning.
 * - exclude pattern: restic's and rsync's pattern rules (exclude.ts).
 * - manifest order: see `@brickpost/manifest` records.
 */
export * from './walk.js';
export { measure, measureAside, type Measuring, type SourceTotals } from './measure.js';
export * from './exclude.js';
