import { readdir, rename, lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, WipeOptions, WipeSummary } from '../api/index.js';
import { appliedDestsOf } from '../catalog/ingests.js';
import type { Context } from '../context.js';
import { toEnvironmentError } from '../io/errors.js';
import { syncDir } from '../io/sync.js';
import { appendCustody } from './append.js';
import { locateCustody, refuseLink, WIPING_SUFFIX } from './locate.js';
import { driveOf, eventOf, readBagInfo, readCustodyLog } from './read.js';
import { custodyReport } from './report.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * Removes a shipment's bag from a drive once this home has ingested it,
 * and records a `wiped` event in the drive's custody log, which stays. The
 * bag folder is first renamed to `<id>.wiping` (and the rename made
 * durable), so a crash part way never leaves a half-removed folder that
 * looks like a shipment; running wipe again finishes the removal.
 * @throws BrickpostError USAGE (not ingested here, without force), NOT_FOUND, NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, PERMISSION, IO
 */
export async function wipe(ctx: Context, opts: WipeOptions, onEvent: EventSink): Promise<WipeSummary> {
  const place = await locateCustody(opts.drive, opts.shipment);
  const from = place.bag ?? place.wiping;
  if (!from)
    throw new BrickpostError('NOT_FOUND', `shipment ${quote(place.id)} is not on ${quote(opts.drive)} (already wiped)`, {
      hint: "'brickpost custody' shows its custody log",
    });
  const ingestedTo = appliedDestsOf(ctx.catalog, place.id);
  if (ingestedTo.length === 0 && !opts.force) {
    throw new BrickpostError('USAGE', `shipment ${quote(place.id)} has not been ingested by this home; wiping it would lose its only copy here`, {
      hint: "ingest it first ('brickpost ingest DRIVE DEST'), or add --force to wipe it anyway",
    });
  }
  const info = await readBagInfo(from).catch(() => null);
  const wiping = place.wiping ?? place.bag + WIPING_SUFFIX;
  await refuseLink(dirname(wiping), "the drive's brickpost folder");
  await refuseLink(from, 'the shipment folder');
  if (place.bag) {
    try {
      await rename(place.bag, wiping);
      await syncDir(dirname(wiping));
    } catch (e) {
      throw toEnvironmentError(e, 'cannot remove the shipment from the drive');
    }
  }
  const { files, bytes } = await measure(wiping);
  const drive = info ? driveOf(info) : null;
  // A wipe that died after recording its event only has the folder left to remove.
  const last = (await readCustodyLog(place.log).catch(() => null))?.at(-1);
  const done = !place.bag && last !== undefined && eventOf(last)?.type === 'wiped';
  const event =
    drive && !done
      ? (
          await appendCustody(
            ctx,
            { shipment: place.id, drive, bag: wiping, log: place.log },
            'wiped',
            { removed: `brickpost/${place.id}`, files, bytes },
            onEvent,
          )
        ).event
      : null;
  try {
    await removeTree(wiping);
    await syncDir(dirname(wiping));
  } catch (e) {
    throw toEnvironmentError(e, 'cannot remove the shipment from the drive');
  }
  const after = await custodyReport(ctx, { drive: opts.drive, shipment: place.id }).catch(() => null);
  return {
    shipmentId: place.id,
    removed: join(dirname(wiping), place.id),
    files,
    bytes,
    ingestedTo,
    event: after?.events.find((e) => e.hash === event?.hash) ?? null,
    log: after?.log ?? null,
  };
}

/** Files and bytes under a folder (not following links). */
async function measure(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else {
        files++;
        bytes += (await lstat(p).catch(() => null))?.size ?? 0;
      }
    }
  };
  await walk(dir);
  return { files, bytes };
}
