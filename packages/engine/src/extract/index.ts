/**
 * Taking entries off a drive without ingesting it.
 *
 * - selection: the paths a person names, each with what is below it.
 * - extract: writes the selection into a folder, with metadata as the
 *   apply policy (ingest's options) allows; never replaces an entry.
 * - cat: one file's bytes, for a pipe.
 * - readable shipment: a drive (or set) opened for reading some chunks:
 *   signature and tag files checked, the manifest copied aside, chunks read
 *   where they are and checked against their keyed ids.
 */
export { extract } from './extract.js';
export { cat } from './cat.js';
