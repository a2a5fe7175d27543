/**
 * `@brickpost/manifest`: the on-drive format, version brickpost/v1.
 *
 * Owns what is written on a drive and how it is read back, and nothing about
 * when or where: the normative spec is FORMAT.md in this package.
 *
 * - age: the encryption of packs and manifests (age-encryption.org/v1).
 * - minisign: the publisher's Ed25519 signature format.
 * - bagit: the BagIt (RFC 8493) text files of a shipment folder.
 * - frame: zstd frames (RFC 8878) as packs use them.
 * - records: the manifest's NDJSON records, strict JSON and the path grammar.
 * - shipment info: what bag-info.txt says about a shipment.
 * - custody: the hash-chained, signed log of a shipment's handling steps.
 */
export * from './errors.js';
export * as age from './age/index.js';
export * as minisign from './sign/index.js';
export * as bagit from './bag/index.js';
export * as frame from './frame/index.js';
export * from './records/index.js';
export * from './shipment-info.js';
export * from './set-file.js';
export * from './custody/index.js';
export { formatSpec } from './spec.js';
