/**
 * The catalog's record of what this home publishes: datasets, their
 * shipments (role 'published', from 'writing' through 'sealing' to
 * 'sealed', or 'interrupted'), whom each was sent to, the packs closed so
 * far, and the receipts subscribers sent back. pack/ decides; these are
 * its queries.
 */
import type { Catalog } from './catalog.js';

/** A shipment of a dataset's chain, as bases name it. */
export interface ShipmentLink {
  shipmentId: string;
  seq: number;
}

/** A dataset this home publishes. */
export interface DatasetRow {
  id: string;
  name: string;
  secret: Buffer;
}

/** A published shipment as the catalog records it (bases and layout as JSON). */
export interface PublishedRow {
  id: string;
  seq: number;
  parent: string | null;
  label: string;
  created_at: string;
  bases: string | null;
  against: string | null;
  layout: string | null;
}

/** A closed pack of a shipment being written. */
export interface PackRow {
  idx: number;
  share: number;
  size: number;
  sha256: string;
  chunks: number;
  plain: number;
}

const SENT = `SELECT s.id AS shipmentId, s.seq FROM shipments s JOIN shipment_recipients x ON x.shipment_id = s.id
  WHERE s.dataset_id = ? AND s.role = 'published' AND s.state = 'sealed' AND x.recipient = ?`;

/** The dataset `name` of `publisher`. */
export function datasetNamed(catalog: Catalog, publisher: string, name: string): DatasetRow | undefined {
  return catalog.db.prepare<[string, string], DatasetRow>('SELECT id, name, secret FROM datasets WHERE publisher = ? AND name = ?').get(publisher, name);
}

/** The name of dataset `id` when `publisher` publishes it. */
export function datasetName(catalog: Catalog, id: string, publisher: string): string | undefined {
  return catalog.db.prepare<[string, string], string>('SELECT name FROM datasets WHERE id = ? AND publisher = ?').pluck().get(id, publisher);
}

/** Records a new dataset. */
export function insertDataset(catalog: Catalog, d: DatasetRow, publisher: string, createdAt: string): void {
  catalog.db
    .prepare<[string, string, string, Buffer, string]>('INSERT INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(d.id, d.name, publisher, d.secret, createdAt);
}

/** The newest receipt of recipient `r` for the dataset whose check did not fail. */
export function newestReceipt(catalog: Catalog, datasetId: string, r: string): ShipmentLink | undefined {
  return catalog.db
    .prepare<[string, string], ShipmentLink>(
      "SELECT shipment_id AS shipmentId, seq FROM receipts WHERE dataset_id = ? AND recipient = ? AND verified != 'failed' ORDER BY seq DESC LIMIT 1",
    )
    .get(datasetId, r);
}

/** The newest sealed shipment of the dataset sent to recipient `r`. */
export function newestSentTo(catalog: Catalog, datasetId: string, r: string): ShipmentLink | undefined {
  return catalog.db.prepare<[string, string], ShipmentLink>(`${SENT} ORDER BY s.seq DESC LIMIT 1`).get(datasetId, r);
}

/** The sealed shipments of the dataset sent to recipient `r` after `seq`, oldest first. */
export function sentToAfter(catalog: Catalog, datasetId: string, r: string, seq: number): ShipmentLink[] {
  return catalog.db.prepare<[string, string, number], ShipmentLink>(`${SENT} AND s.seq > ? ORDER BY s.seq`).all(datasetId, r, seq);
}

/** The dataset's newest sealed shipment. */
export function lastSealed(catalog: Catalog, datasetId: string): { id: string; seq: number } | undefined {
  return catalog.db
    .prepare<[string], { id: string; seq: number }>(
      "SELECT id, seq FROM shipments WHERE dataset_id = ? AND role = 'published' AND state = 'sealed' ORDER BY seq DESC LIMIT 1",
    )
    .get(datasetId);
}

/** The ids of the dataset's newest `n` sealed shipments. */
export function newestSealedIds(catalog: Catalog, datasetId: string, n: number): string[] {
  return catalog.db
    .prepare<[string, number], string>("SELECT id FROM shipments WHERE dataset_id = ? AND role = 'published' AND state = 'sealed' ORDER BY seq DESC LIMIT ?")
    .pluck()
    .all(datasetId, n);
}

/** The number of shipment `id` when it is a sealed shipment this home published in the dataset. */
export function sealedSeq(catalog: Catalog, id: string, datasetId: string): number | undefined {
  return catalog.db
    .prepare<[string, string], number>("SELECT seq FROM shipments WHERE id = ? AND dataset_id = ? AND role = 'published' AND state = 'sealed'")
    .pluck()
    .get(id, datasetId);
}

/** Every recipient any shipment of the dataset was sent to. */
export function publishedRecipients(catalog: Catalog, datasetId: string): string[] {
  return catalog.db
    .prepare<[string], string>(
      "SELECT DISTINCT x.recipient FROM shipment_recipients x JOIN shipments s ON s.id = x.shipment_id WHERE s.dataset_id = ? AND s.role = 'published'",
    )
    .pluck()
    .all(datasetId);
}

/** The ids of every shipment of the dataset this home published. */
export function publishedIds(catalog: Catalog, datasetId: string): string[] {
  return catalog.db.prepare<[string], string>("SELECT id FROM shipments WHERE dataset_id = ? AND role = 'published'").pluck().all(datasetId);
}

/** The ids of the dataset's shipments left 'sealing', oldest first. */
export function sealingIds(catalog: Catalog, datasetId: string): string[] {
  return catalog.db
    .prepare<[string], string>("SELECT id FROM shipments WHERE dataset_id = ? AND role = 'published' AND state = 'sealing' ORDER BY seq")
    .pluck()
    .all(datasetId);
}

/** Marks shipment `id` sealed. */
export function setSealed(catalog: Catalog, id: string): void {
  catalog.db.prepare<[string]>("UPDATE shipments SET state = 'sealed' WHERE id = ?").run(id);
}

/** The dataset's newest shipment left 'writing' or 'interrupted'. */
export function newestUnfinished(catalog: Catalog, datasetId: string): PublishedRow | undefined {
  return catalog.db
    .prepare<[string], PublishedRow>(
      "SELECT id, seq, parent, label, created_at, bases, against, layout FROM shipments WHERE dataset_id = ? AND role = 'published' AND state IN ('writing', 'interrupted') ORDER BY seq DESC LIMIT 1",
    )
    .get(datasetId);
}

/** The packs closed of shipment `id`, by number. */
export function closedPacks(catalog: Catalog, id: string): PackRow[] {
  return catalog.db.prepare<[string], PackRow>('SELECT idx, share, size, sha256, chunks, plain FROM packs WHERE shipment_id = ? ORDER BY idx').all(id);
}

/** Deletes shipment `id` (its rows go with it). */
export function deleteShipment(catalog: Catalog, id: string): void {
  catalog.db.prepare<[string]>('DELETE FROM shipments WHERE id = ?').run(id);
}

/** A receipt as `receipt import` records it. */
export interface ReceiptRow {
  datasetId: string;
  recipient: string;
  subscriberKey: string;
  subscriberName: string | null;
  shipment: string;
  seq: number;
  verified: string;
  stateDigest: string;
  createdAt: string;
  importedAt: string;
  fileSha256: string;
}

/** Records a receipt; false when this receipt file was recorded before. */
export function insertReceipt(catalog: Catalog, r: ReceiptRow): boolean {
  return (
    catalog.db
      .prepare<[string, string, string, string | null, string, number, string, string, string, string, string]>(
        `INSERT OR IGNORE INTO receipts (dataset_id, recipient, subscriber_key, subscriber_name, shipment_id, seq, verified, state_digest, created_at, imported_at, file_sha256)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.datasetId, r.recipient, r.subscriberKey, r.subscriberName, r.shipment, r.seq, r.verified, r.stateDigest, r.createdAt, r.importedAt, r.fileSha256)
      .changes > 0
  );
}
