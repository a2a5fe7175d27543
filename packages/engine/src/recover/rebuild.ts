import { checkCustodyChain, quote, type ShipmentRecord } from '@brickpost/manifest';
import type { LostItem, RebuiltItem } from '../api/recover.js';
import { custodyLogOf } from '../custody/locate.js';
import { driveOf, readBagCustody, readBagInfo, readCustodyLog } from '../custody/read.js';
import { storedChain, storeEvents } from '../catalog/custody.js';
import { shipmentsOn } from '../drive/layout.js';
import { openShipment } from '../drive/open.js';
import { DestFolder, realDest } from '../ingest/state.js';
import { addTrust, selfTrustName, type Identity } from '../keys/index.js';
import { readManifest, readManifestFile } from '../verify/manifest-stream.js';
import type { Catalog } from '../catalog/index.js';

/**
 * Rebuilding a catalog's rows from what lies outside it: this home's key
 * files (its own trusted key), destinations it ingested into (their
 * state.json and kept manifests: datasets and their keys, received
 * shipments, ingests) and drives (bags this home packed: datasets and
 * their keys, published shipments; every bag's custody log). Rows the
 * catalog holds already are kept as they are. Each function returns what
 * it rebuilt and what it could not.
 */
export interface Rebuilt {
  rebuilt: RebuiltItem[];
  lost: LostItem[];
}

/** This home's display name and its own key in the trust store, from its key files. */
export function rebuildIdentity(catalog: Catalog, me: Identity, name: string | undefined, setName: string): Rebuilt {
  const out: Rebuilt = { rebuilt: [], lost: [] };
  const db = catalog.db;
  const known = db.prepare<[], string>("SELECT value FROM meta WHERE key = 'name'").pluck().get();
  if (name !== undefined) {
    db.prepare("INSERT INTO meta (key, value) VALUES ('name', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(name);
    out.rebuilt.push({ what: `your display name ${quote(name)}`, from: 'the --name given' });
  } else if (known === undefined) {
    out.lost.push({
      what: 'your display name',
      meaning: `drives you pack and receipts you write say 'brickpost user' until you run '${setName}' with your name`,
    });
  }
  if (db.prepare('SELECT 1 FROM trust WHERE key_id = ?').get(me.keyId) === undefined) {
    addTrust(catalog, me.minisignPublicKey, { name: selfTrustName(catalog, name ?? known ?? 'me', me.keyId), recipient: me.recipient, self: true });
    out.rebuilt.push({ what: `your own key ${me.keyId} in the trust store`, from: `your key files (${me.minisignPublicKeyFile})` });
  }
  return out;
}

/** The header record of an encrypted manifest file, or null when it cannot be read. */
async function headerOf(records: AsyncIterable<unknown>): Promise<ShipmentRecord | null> {
  try {
    for await (const r of records) return (r as ShipmentRecord).t === 'shipment' ? (r as ShipmentRecord) : null;
  } catch {
    // Not kept, not for this home's key, or damaged: the dataset's key stays unknown.
  }
  return null;
}

/** The records of the shipments applied to a destination, from its state and kept manifests. */
export async function rebuildFromDest(catalog: Catalog, destPath: string, me: Identity): Promise<Rebuilt> {
  const out: Rebuilt = { rebuilt: [], lost: [] };
  const dest = await realDest(destPath);
  const folder = new DestFolder(dest);
  const state = await folder.readState().catch(() => null);
  if (!state || state.applied.length === 0) {
    out.lost.push({ what: `what was ingested into ${quote(destPath)}`, meaning: 'it holds no brickpost state (nothing to rebuild from)' });
    return out;
  }
  const db = catalog.db;
  let ingests = 0;
  let keyFound = db.prepare('SELECT 1 FROM datasets WHERE id = ?').get(state.datasetId) !== undefined;
  for (const a of state.applied) {
    const h = await headerOf(readManifestFile(folder.manifest(a.shipment), me.ageIdentities));
    catalog.tx(() => {
      if (h && h.datasetId === state.datasetId) {
        db.prepare('INSERT OR IGNORE INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(
          state.datasetId,
          state.dataset,
          state.publisher,
          Buffer.from(h.secret, 'base64'),
          a.appliedAt,
        );
        keyFound = true;
      }
      db.prepare(
        `INSERT OR IGNORE INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, files, bytes)
         SELECT ?, ?, ?, ?, ?, ?, 'received', 'applied', ?, ? WHERE EXISTS (SELECT 1 FROM datasets WHERE id = ?)`,
      ).run(a.shipment, state.datasetId, a.seq, a.parent ?? null, a.label, h?.created ?? a.appliedAt, a.files, a.bytes, state.datasetId);
      ingests += db
        .prepare(
          `INSERT OR IGNORE INTO ingests (shipment_id, dataset_id, publisher, seq, dest, state, started_at, finished_at, files, bytes)
           VALUES (?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?)`,
        )
        .run(a.shipment, state.datasetId, state.publisher, a.seq, dest, a.appliedAt, a.appliedAt, a.files, a.bytes).changes;
    });
  }
  if (ingests > 0)
    out.rebuilt.push({
      what: `${ingests} ingest${ingests === 1 ? '' : 's'} into ${quote(dest)} (dataset ${quote(state.dataset)})`,
      from: "the destination's state (.brickpost/state.json)",
    });
  if (!keyFound)
    out.lost.push({
      what: `the key of dataset ${quote(state.dataset)}`,
      meaning: `the destination keeps no manifest this home can read; the next ingest into ${quote(dest)} records it again`,
    });
  return out;
}

/**
 * From the bags on a drive: each one's custody log (when its chain checks
 * out and is longer than the catalog's record), and for a shipment this home
 * packed, its dataset (with the key, from the manifest, encrypted to this
 * home too unless packed with --no-self) and its record as sealed, so the
 * next pack continues the chain (self-contained: the trees are not on the drive).
 */
export async function rebuildFromDrive(catalog: Catalog, drive: string, me: Identity): Promise<Rebuilt> {
  const out: Rebuilt = { rebuilt: [], lost: [] };
  const db = catalog.db;
  const trusted = [{ keyId: me.signingKey.keyId, publicKey: me.signingKey.publicKey, name: 'self' }];
  for (const d of await shipmentsOn(drive)) {
    const info = await readBagInfo(d.dir).catch(() => null);
    if (!info) continue;
    const log = (await readCustodyLog(custodyLogOf(d.dir)).catch(() => null)) ?? (await readBagCustody(d.dir).catch(() => null));
    const which = driveOf(info);
    if (log && log.length > storedChain(catalog, d.id, which).length && checkCustodyChain(log, { shipment: d.id, drive: which }).brokenAt === null) {
      storeEvents(catalog, d.id, which, log, true);
      out.rebuilt.push({ what: `${log.length} custody events of shipment ${d.id} (drive ${which})`, from: `its custody log on ${quote(drive)}` });
    }
    if (info.publisherKey !== me.keyId || db.prepare('SELECT 1 FROM shipments WHERE id = ?').get(d.id) !== undefined) continue;
    const s = await openShipment(d.id, d.dir, trusted).catch(() => null);
    const h = s ? await headerOf(readManifest(s, me.ageIdentities)) : null;
    if (!h) {
      out.lost.push({
        what: `the record of shipment ${d.id} (seq ${info.seq})`,
        meaning: 'its manifest is not readable with your key (packed with --no-self?): the next pack of its dataset cannot continue its chain',
      });
      continue;
    }
    catalog.tx(() => {
      db.prepare('INSERT OR IGNORE INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(
        info.datasetId,
        info.dataset,
        me.keyId,
        Buffer.from(h.secret, 'base64'),
        info.created,
      );
      db.prepare(
        `INSERT OR IGNORE INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, files, bytes)
         SELECT ?, ?, ?, ?, ?, ?, 'published', 'sealed', ?, ? WHERE EXISTS (SELECT 1 FROM datasets WHERE id = ?)`,
      ).run(d.id, info.datasetId, info.seq, info.parent, info.label, info.created, info.files, info.bytes, info.datasetId);
    });
    out.rebuilt.push({ what: `shipment ${d.id} (dataset ${quote(info.dataset)}, seq ${info.seq}) as packed by you`, from: `its bag on ${quote(drive)}` });
  }
  return out;
}
