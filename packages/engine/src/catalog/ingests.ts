import { isBrickpostError } from '@brickpost/manifest/errors';
import type { Catalog } from './catalog.js';

/**
 * The catalog's record of ingests: one row per shipment and destination,
 * `committing` from just before DEST's commit, `applied` once it is done.
 * DEST's own state (DEST/.brickpost/state.json) is the truth; a row left
 * `committing` by a run whose catalog could not be written after DEST
 * committed (locked by another process, a failing disk) is brought up to
 * date by the next command that reads that destination (reconcileIngests).
 */

/** What the catalog records of an ingest. */
export interface IngestRecord {
  shipment: string;
  datasetId: string;
  dataset: string;
  publisher: string;
  /** The dataset's secret (its chunk-id key), base64, from the manifest. */
  secret: string;
  seq: number;
  parent: string | null;
  label: string;
  created: string;
  dest: string;
  files: number;
  bytes: number;
}

/**
 * Records an ingest as `committing`, with its dataset and shipment, in one
 * transaction that takes the catalog's write lock first: called before
 * DEST's commit, so a catalog that cannot be written (locked, read-only,
 * failing) stops the ingest while DEST is still untouched.
 * @throws BrickpostError LOCKED (naming the holder), PERMISSION, NO_SPACE, IO, DATABASE_DAMAGED
 */
export function beginIngest(catalog: Catalog, r: IngestRecord): void {
  const db = catalog.db;
  const now = new Date().toISOString();
  catalog.txNow(() => {
    db.prepare('INSERT OR IGNORE INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(
      r.datasetId,
      r.dataset,
      r.publisher,
      Buffer.from(r.secret, 'base64'),
      now,
    );
    db.prepare(
      `INSERT OR IGNORE INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, files, bytes)
       SELECT ?, ?, ?, ?, ?, ?, 'received', 'applied', ?, ? WHERE EXISTS (SELECT 1 FROM datasets WHERE id = ?)`,
    ).run(r.shipment, r.datasetId, r.seq, r.parent, r.label, r.created, r.files, r.bytes, r.datasetId);
    db.prepare(
      `INSERT INTO ingests (shipment_id, dataset_id, publisher, seq, dest, state, started_at, finished_at, files, bytes)
       VALUES (?, ?, ?, ?, ?, 'committing', ?, NULL, ?, ?)
       ON CONFLICT (shipment_id, dest) DO UPDATE SET state = 'committing', started_at = excluded.started_at, finished_at = NULL, files = excluded.files, bytes = excluded.bytes`,
    ).run(r.shipment, r.datasetId, r.publisher, r.seq, r.dest, now, r.files, r.bytes);
  });
}

/**
 * Marks an ingest `applied` after DEST committed it.
 * @throws BrickpostError LOCKED, PERMISSION, NO_SPACE, IO, DATABASE_DAMAGED
 */
export function finishIngest(catalog: Catalog, shipment: string, dest: string): void {
  catalog.db.prepare("UPDATE ingests SET state = 'applied', finished_at = ? WHERE shipment_id = ? AND dest = ?").run(new Date().toISOString(), shipment, dest);
}

/**
 * Brings the catalog's rows of `dest` in line with what DEST holds: an
 * ingest left `committing` whose shipment DEST's state lists as applied
 * becomes `applied` (at the time DEST recorded). A row whose shipment DEST
 * does not list is left as it is (its ingest may still be running, or
 * never committed). Best effort: a catalog that cannot be written now is
 * left for the next command. Returns how many rows were updated.
 * @throws only what is not the environment's (a bug)
 */
export function reconcileIngests(catalog: Catalog, dest: string, applied: ReadonlyArray<{ shipment: string; appliedAt: string }>): number {
  try {
    const open = catalog.db.prepare<[string], string>("SELECT shipment_id FROM ingests WHERE dest = ? AND state = 'committing'").pluck().all(dest);
    if (open.length === 0) return 0;
    const at = new Map(applied.map((a) => [a.shipment, a.appliedAt]));
    const done = open.filter((s) => at.has(s));
    if (done.length === 0) return 0;
    const up = catalog.db.prepare("UPDATE ingests SET state = 'applied', finished_at = ? WHERE shipment_id = ? AND dest = ? AND state = 'committing'");
    catalog.tx(() => {
      for (const s of done) up.run(at.get(s)!, s, dest);
    });
    return done.length;
  } catch (e) {
    if (isBrickpostError(e) && (e.category === 'environment' || e.category === 'busy')) return 0;
    throw e;
  }
}

/** The destinations with an ingest left `committing`. */
export function committingDests(catalog: Catalog): string[] {
  return catalog.db.prepare<[], string>("SELECT DISTINCT dest FROM ingests WHERE state = 'committing'").pluck().all();
}

/** Every destination this home ingested into. */
export function ingestDests(catalog: Catalog): string[] {
  return catalog.db.prepare<[], string>('SELECT DISTINCT dest FROM ingests').pluck().all();
}

/** The destinations a shipment was applied to, by name. */
export function appliedDestsOf(catalog: Catalog, shipment: string): string[] {
  return catalog.db.prepare<[string], string>("SELECT dest FROM ingests WHERE shipment_id = ? AND state = 'applied' ORDER BY dest").pluck().all(shipment);
}

/** The newest shipment (by seq) of a dataset and publisher applied to any destination, and where. */
export function newestApplied(catalog: Catalog, datasetId: string, publisher: string): { seq: number; dest: string } | undefined {
  return catalog.db
    .prepare<[string, string], { seq: number; dest: string }>(
      "SELECT seq, dest FROM ingests WHERE dataset_id = ? AND publisher = ? AND state = 'applied' ORDER BY seq DESC LIMIT 1",
    )
    .get(datasetId, publisher);
}

/** The publisher key id of a shipment this home ingested or packed. */
export function publisherOfShipment(catalog: Catalog, shipment: string): string | undefined {
  return catalog.db
    .prepare<[string, string], string>(
      'SELECT publisher FROM ingests WHERE shipment_id = ? UNION ALL SELECT d.publisher FROM shipments s JOIN datasets d ON d.id = s.dataset_id WHERE s.id = ? LIMIT 1',
    )
    .pluck()
    .get(shipment, shipment);
}
