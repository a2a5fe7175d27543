/**
 * The custody log of shipments (FORMAT.md §custody), as this home keeps it.
 *
 * Terms:
 * - event: one signed, hash-chained handling step; the format is in
 *   `@brickpost/manifest` (custody/).
 * - publisher events: packed and sealed, written into each drive's bag as
 *   custody.ndjson when the bag is sealed (drive/seal.ts).
 * - drive log: `brickpost/<id>.custody` next to the bag: the publisher
 *   events, then every later event; it survives wipe.
 * - catalog record: every event of each drive's chain this home has seen or
 *   written; events the drive could not take (read-only, or no drive, as a
 *   receipt) are recorded here only and reach the drive at its next write.
 * - wipe: removing a bag once it is ingested, recorded as an event.
 */
export { appendCustody, CATALOG_ONLY, NOT_RECORDED, type CustodyTarget } from './append.js';
export { custodyLogOf, locateCustody } from './locate.js';
export { driveOf, readBagCustody } from './read.js';
export { custodyReport } from './report.js';
export { storedDrives, storeEvents } from '../catalog/custody.js';
export { wipe } from './wipe.js';
export { recordIngested, recordReceipt, recordSealed, recordVerified } from './hooks.js';
