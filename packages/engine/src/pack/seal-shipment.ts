/**
 * Step 5 of a pack (pack.ts): the manifest ended and the bag sealed and
 * signed on every drive, recorded in the catalog on the way.
 */
import { FORMAT_VERSION } from '@brickpost/manifest';
import type { PackEntryCounts, PackOptions } from '../api/index.js';
import type { Context } from '../context.js';
import type { Identity } from '../keys/index.js';
import type { ShipmentRows } from './catalog-rows.js';
import type { PackInfo } from './pack-writer.js';
import type { ShipmentWriter } from './set-writer.js';
import type { Portability } from './source-rules.js';
import type { ChunkStore } from './store.js';

/**
 * Step 5: ends the manifest (pack index, end record), then seals the bag
 * on every drive and signs it; the catalog records it 'sealing' before any
 * drive shows it (`onSealing`), then sealed.
 * @throws BrickpostError UNSAFE_PATH (--portable), and what sealing throws
 */
export async function sealShipment(
  ctx: Context,
  opts: PackOptions,
  me: Identity,
  sh: { shipmentId: string; datasetName: string; datasetId: string; label: string; rows: ShipmentRows; out: ShipmentWriter },
  manifest: ShipmentWriter['manifest'],
  packs: PackInfo[],
  counts: PackEntryCounts,
  portability: Portability,
  store: ChunkStore,
  onSealing: () => void,
): Promise<{ paths: string[]; bytesOnDrive: number; totals: ShipmentWriter['manifest']['totals'] }> {
  const { rows } = sh;
  for (const p of packs) await manifest.add({ t: 'pack', i: p.index, path: p.path, size: p.size, plain: p.plain, chunks: p.chunks });
  const t = manifest.totals;
  Object.assign(counts, { files: t.files, dirs: t.dirs, links: t.links, hardLinks: t.hard, specials: t.specials });
  await manifest.add({
    t: 'end',
    dirs: t.dirs,
    files: t.files,
    links: t.links,
    hard: t.hard,
    specials: t.specials,
    bytes: t.bytes,
    chunks: t.chunks,
    packs: t.packs,
  });
  // Groups of names that differ only in case are complete once the manifest is: nothing is sealed yet.
  portability.finish(manifest.collisions);
  const m = await manifest.close();
  const sealed = await sh.out.seal(
    {
      format: FORMAT_VERSION,
      shipment: sh.shipmentId,
      dataset: sh.datasetName,
      datasetId: sh.datasetId,
      seq: rows.seq,
      parent: rows.parent,
      label: sh.label,
      publisher: ctx.name,
      publisherKey: me.keyId,
      created: rows.created,
      ...(opts.expiresIn !== undefined ? { expires: new Date(Date.parse(rows.created) + opts.expiresIn * 1000).toISOString() } : {}),
      entries: t.dirs + t.files + t.links + t.hard + t.specials,
      files: t.files,
      bytes: t.bytes,
    },
    store.streams,
    m,
    me.signingKey,
    // Recorded (and synced) before any drive shows the shipment: the catalog never lags the drives.
    (bytesOnDrive) => {
      rows.sealing(t.files, t.bytes, bytesOnDrive);
      onSealing();
    },
  );
  rows.sealed(me.recipient);
  return { paths: sealed.paths, bytesOnDrive: sealed.bytesOnDrive, totals: t };
}
