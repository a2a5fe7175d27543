/**
 * The catalog: what this home knows, in one SQLite file.
 *
 * - trust: minisign public keys whose shipments this home accepts.
 * - dataset: a named series of shipments from one publisher, with the secret
 *   its chunk ids are keyed by.
 * - shipment: one packed (role 'published') or ingested ('received') shipment.
 * - pack / chunk: where each chunk of a published shipment went.
 * - ingest: one application of a shipment to a destination, and its state.
 * - custody: the custody events of each drive of a shipment (custody/).
 *
 * Schema changes are numbered migrations (migrations/), never edited.
 *
 * Every query of the catalog is a typed function here, by tables: trust.ts,
 * meta.ts, ingests.ts, custody.ts, published.ts (datasets, shipments,
 * recipients, packs, receipts), trees.ts and shipment-tables.ts (the rows
 * of the shipment being packed). Operations call these; they never
 * prepare SQL themselves. A destination's journal has its own: DestDb
 * (ingest/dest-db.ts). A shipment's browse index, a cache file of its own
 * beside the catalog, is written and read by browse-index.ts.
 */
export { Catalog } from './catalog.js';
export { migrate } from './migrate.js';
