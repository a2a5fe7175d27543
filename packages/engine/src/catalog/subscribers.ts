import type { DriveState, DriveWhere, LagShipment, MaxLag, SubscriberLag } from '../api/index.js';
import type { Catalog } from './catalog.js';

/**
 * The publisher's view of its subscribers, from its catalog alone.
 *
 * Terms:
 * - subscriber: an age recipient of a shipment this home sealed (other than
 *   this home's own), or the recipient a receipt imported here names; named
 *   as the trust store names that recipient, else as its receipt does.
 * - acknowledged: the newest shipment a receipt of theirs whose check passed
 *   names (`brickpost receipt import`).
 * - lag: the dataset's sealed shipments after the acknowledged one (or,
 *   with none, from the first one sent to them): how many, their bytes on
 *   the drives, and the age of the oldest.
 * - drive state: the last step recorded of a drive of a shipment sent to
 *   them: packed (sealed), shipped and returned (`brickpost drive`),
 *   acknowledged (a receipt at that shipment or later), wiped (a custody
 *   event read from the drive).
 */

const DAY_MS = 86_400_000;

interface ShipmentRow {
  id: string;
  seq: number;
  label: string;
  created_at: string;
  bytes_on_drive: number | null;
  layout: string | null;
}

interface ReceiptRow {
  shipment_id: string;
  seq: number;
  created_at: string;
  imported_at: string;
  verified: string;
  subscriber_key: string;
  subscriber_name: string | null;
}

function lagShipment(r: ShipmentRow): LagShipment {
  return { shipment: r.id, seq: r.seq, label: r.label, created: r.created_at, bytesOnDrive: r.bytes_on_drive ?? 0 };
}

/** Every subscriber of every dataset this home sealed shipments of (or only `dataset`, a name or id), by dataset then name. */
export function subscriberLags(catalog: Catalog, o: { dataset?: string; now: Date; maxLag: MaxLag | null }): SubscriberLag[] {
  const db = catalog.db;
  const own = new Set(db.prepare('SELECT recipient FROM trust WHERE self = 1 AND recipient IS NOT NULL').pluck().all() as string[]);
  const datasets = db
    .prepare(
      `SELECT DISTINCT d.id, d.name FROM datasets d JOIN shipments s ON s.dataset_id = d.id
       WHERE s.role = 'published' AND s.state = 'sealed' AND (? IS NULL OR d.name = ? OR d.id = ?) ORDER BY d.name, d.id`,
    )
    .all(o.dataset ?? null, o.dataset ?? null, o.dataset ?? null) as Array<{ id: string; name: string }>;
  const sealed = db.prepare(
    "SELECT id, seq, label, created_at, bytes_on_drive, layout FROM shipments WHERE dataset_id = ? AND role = 'published' AND state = 'sealed' ORDER BY seq",
  );
  const recipients = db.prepare(
    `SELECT x.recipient FROM shipment_recipients x JOIN shipments s ON s.id = x.shipment_id WHERE s.dataset_id = ? AND s.role = 'published' AND s.state = 'sealed'
     UNION SELECT recipient FROM receipts WHERE dataset_id = ?`,
  );
  const sentTo = db.prepare('SELECT shipment_id FROM shipment_recipients WHERE recipient = ?').pluck();
  const lastReceipt = db.prepare(
    `SELECT shipment_id, seq, created_at, imported_at, verified, subscriber_key, subscriber_name FROM receipts
     WHERE dataset_id = ? AND recipient = ? ORDER BY verified = 'failed', seq DESC, created_at DESC LIMIT 1`,
  );
  const trusted = db.prepare('SELECT key_id, name FROM trust WHERE recipient = ? AND self = 0 ORDER BY added_at LIMIT 1');
  const out: SubscriberLag[] = [];
  for (const ds of datasets) {
    const all = sealed.all(ds.id) as ShipmentRow[];
    const newest = all[all.length - 1]!;
    for (const recipient of (recipients.all(ds.id, ds.id) as Array<{ recipient: string }>).map((r) => r.recipient)) {
      if (own.has(recipient)) continue;
      const sent = new Set(sentTo.all(recipient) as string[]);
      const rc = lastReceipt.get(ds.id, recipient) as ReceiptRow | undefined;
      const ack = rc && rc.verified !== 'failed' ? rc : undefined;
      const ackRow = ack ? all.find((s) => s.id === ack.shipment_id) : undefined;
      const firstSent = all.find((s) => sent.has(s.id));
      const from = ackRow ? ackRow.seq + 1 : (firstSent?.seq ?? newest.seq + 1);
      const behind = all.filter((s) => s.seq >= from);
      const oldest = behind[0];
      const lagMs = oldest ? Math.max(0, o.now.getTime() - Date.parse(oldest.created_at)) : 0;
      const t = trusted.get(recipient) as { key_id: string; name: string } | undefined;
      const past =
        o.maxLag !== null &&
        ((o.maxLag.shipments !== undefined && behind.length > o.maxLag.shipments) || (o.maxLag.seconds !== undefined && lagMs > o.maxLag.seconds * 1000));
      out.push({
        dataset: ds.name,
        datasetId: ds.id,
        recipient,
        name: t?.name ?? rc?.subscriber_name ?? null,
        keyId: t?.key_id ?? rc?.subscriber_key ?? null,
        newest: lagShipment(newest),
        acknowledged: ack && ackRow ? { ...lagShipment(ackRow), receiptCreated: ack.created_at, imported: ack.imported_at, level: ack.verified } : null,
        unacknowledged: behind.filter((s) => sent.has(s.id)).map(lagShipment),
        lag: {
          shipments: behind.length,
          bytes: behind.reduce((a, s) => a + (s.bytes_on_drive ?? 0), 0),
          days: Math.floor((lagMs / DAY_MS) * 100) / 100,
          since: oldest?.created_at ?? null,
        },
        pastMaxLag: past,
        drives: drivesOf(
          catalog,
          all.filter((s) => sent.has(s.id)),
          ackRow?.seq ?? 0,
          ack?.imported_at ?? null,
        ),
      });
    }
  }
  return out.sort((a, b) => a.dataset.localeCompare(b.dataset) || (a.name ?? a.recipient).localeCompare(b.name ?? b.recipient));
}

/** Where each drive of `shipments` is; those at or before seq `ackSeq` count as acknowledged (at `ackAt`). */
function drivesOf(catalog: Catalog, shipments: ShipmentRow[], ackSeq: number, ackAt: string | null): DriveWhere[] {
  const db = catalog.db;
  const marks = db.prepare('SELECT drive, state, at FROM drive_marks WHERE shipment_id = ?');
  const wiped = db.prepare("SELECT drive, min(at) AS at FROM custody WHERE shipment_id = ? AND type = 'wiped' GROUP BY drive");
  const known = db.prepare('SELECT DISTINCT drive FROM custody WHERE shipment_id = ?').pluck();
  const out: DriveWhere[] = [];
  for (const s of shipments) {
    const names = new Set(known.all(s.id) as string[]);
    if (names.size === 0) {
      const layout = s.layout ? (JSON.parse(s.layout) as { drives?: number; parity?: number }) : {};
      const n = (layout.drives ?? 1) + (layout.parity ?? 0);
      for (let i = 1; i <= n; i++) names.add(`${i} of ${n}`);
    }
    const m = marks.all(s.id) as Array<{ drive: string; state: string; at: string }>;
    const w = new Map((wiped.all(s.id) as Array<{ drive: string; at: string }>).map((r) => [r.drive, r.at]));
    for (const drive of [...names].sort(byIndex)) {
      const at = (state: string): string | null => m.find((r) => r.drive === drive && r.state === state)?.at ?? null;
      const d: DriveWhere = {
        shipment: s.id,
        seq: s.seq,
        drive,
        state: 'packed',
        packedAt: s.created_at,
        shippedAt: at('shipped'),
        acknowledgedAt: s.seq <= ackSeq ? ackAt : null,
        wipedAt: w.get(drive) ?? null,
        returnedAt: at('returned'),
      };
      d.state = lastState(d);
      out.push(d);
    }
  }
  return out;
}

/** The furthest step recorded, in the order a drive goes through them. */
function lastState(d: DriveWhere): DriveState {
  if (d.returnedAt !== null) return 'returned';
  if (d.wipedAt !== null) return 'wiped';
  if (d.acknowledgedAt !== null) return 'acknowledged';
  if (d.shippedAt !== null) return 'shipped';
  return 'packed';
}

function byIndex(a: string, b: string): number {
  return Number.parseInt(a, 10) - Number.parseInt(b, 10);
}

/**
 * Records that drives of a published shipment were shipped or returned
 * (every drive the catalog knows of it, or `drive`), at `at`. Returns the
 * drives marked; recording again replaces the time.
 */
export function markDrives(catalog: Catalog, shipment: string, drives: readonly string[], state: 'shipped' | 'returned', at: string): void {
  const put = catalog.db.prepare(
    `INSERT INTO drive_marks (shipment_id, drive, state, at, recorded_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (shipment_id, drive, state) DO UPDATE SET at = excluded.at, recorded_at = excluded.recorded_at`,
  );
  const now = new Date().toISOString();
  catalog.tx(() => {
    for (const d of drives) put.run(shipment, d, state, at, now);
  });
}

/** The drives (`i of N`) of a shipment this home sealed, or null when it sealed none by that id. */
export function publishedDrives(catalog: Catalog, shipment: string): string[] | null {
  const s = catalog.db.prepare("SELECT layout FROM shipments WHERE id = ? AND role = 'published' AND state = 'sealed'").get(shipment) as
    { layout: string | null } | undefined;
  if (!s) return null;
  const known = catalog.db.prepare('SELECT DISTINCT drive FROM custody WHERE shipment_id = ?').pluck().all(shipment) as string[];
  if (known.length > 0) return known.sort(byIndex);
  const layout = s.layout ? (JSON.parse(s.layout) as { drives?: number; parity?: number }) : {};
  const n = (layout.drives ?? 1) + (layout.parity ?? 0);
  return Array.from({ length: n }, (_, i) => `${i + 1} of ${n}`);
}

/**
 * Records a shipment seen signed on a drive (verify, ingest), so a later
 * `history` can say how far behind it a destination is. Best effort: the
 * caller ignores a failure to write (it is a hint, not a record of work).
 */
export function recordSeen(catalog: Catalog, s: { datasetId: string; publisher: string; shipment: string; seq: number; created: string }): void {
  catalog.db
    .prepare('INSERT OR IGNORE INTO seen_shipments (dataset_id, publisher, shipment_id, seq, created_at, seen_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(s.datasetId, s.publisher, s.shipment, s.seq, s.created, new Date().toISOString());
}

/** The newest shipment of a dataset seen on a drive, or null. */
export function newestSeen(catalog: Catalog, datasetId: string, publisher: string): { shipment: string; seq: number; seenAt: string } | null {
  const r = catalog.db
    .prepare('SELECT shipment_id, seq, seen_at FROM seen_shipments WHERE dataset_id = ? AND publisher = ? ORDER BY seq DESC LIMIT 1')
    .get(datasetId, publisher) as { shipment_id: string; seq: number; seen_at: string } | undefined;
  return r ? { shipment: r.shipment_id, seq: r.seq, seenAt: r.seen_at } : null;
}
