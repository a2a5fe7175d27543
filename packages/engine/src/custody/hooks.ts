import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseCustodyEvent } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import type { Context } from '../context.js';
import type { OpenedShipment } from '../drive/open.js';
import { TAG_MANIFEST } from '../drive/layout.js';
import { appendCustody, type CustodyRecord } from './append.js';
import { custodyLogOf } from './locate.js';
import { driveOf, readBagCustody } from './read.js';
import { storedDrives, storeEvents } from '../catalog/custody.js';

/*
 * The one call each operation makes to record its step (FORMAT.md §custody).
 * None throws: a failure to record is a warning.
 */

function target(s: OpenedShipment): { shipment: string; drive: string; bag: string; log: string } {
  return { shipment: s.id, drive: driveOf(s.info), bag: s.dir, log: custodyLogOf(s.dir) };
}

/** pack: the publisher's events of each drive's bag into the publisher's catalog. */
export async function recordSealed(ctx: Context, shipment: string, bags: string[], onEvent: EventSink): Promise<void> {
  for (const bag of bags) {
    try {
      const lines = await readBagCustody(bag);
      // Written by this pack a moment ago: a line that does not parse is a failure to record, said as a warning.
      const drive = lines?.[0] !== undefined ? parseCustodyEvent(lines[0]).drive : undefined;
      if (lines && drive) storeEvents(ctx.catalog, shipment, drive, lines, true);
    } catch (e) {
      onEvent({
        type: 'warning',
        code: 'CUSTODY_CATALOG_ONLY',
        message: `the custody events of ${bag} were not recorded in the catalog: ${(e as Error).message}`,
      });
    }
  }
}

/** verify: a `verified` event on the drive verified; returns where it was recorded. */
export async function recordVerified(
  ctx: Context,
  s: OpenedShipment,
  r: { deep: boolean; ok: boolean; problems: number },
  onEvent: EventSink,
): Promise<CustodyRecord['where']> {
  const tm = await readFile(join(s.dir, TAG_MANIFEST)).catch(() => null);
  const tagManifest = tm ? createHash('sha256').update(tm).digest('hex') : null;
  return (await appendCustody(ctx, target(s), 'verified', { level: r.deep ? 'deep' : 'keyless', ok: r.ok, problems: r.problems, tagManifest }, onEvent)).where;
}

/**
 * ingest: an `ingested` event on every drive used. The destination is
 * named by its folder's name only: the log travels with the drive.
 */
export async function recordIngested(ctx: Context, drives: OpenedShipment[], dest: string, files: number, bytes: number, onEvent: EventSink): Promise<void> {
  for (const s of drives) await appendCustody(ctx, target(s), 'ingested', { destination: basename(dest), files, bytes }, onEvent);
}

/** receipt: a `receipt-issued` event in the catalog record of each drive of the shipment (the drives may be gone). */
export async function recordReceipt(ctx: Context, shipment: string, receiptSha256: string, ok: boolean, dest: string, onEvent: EventSink): Promise<void> {
  for (const drive of storedDrives(ctx.catalog, shipment)) {
    await appendCustody(ctx, { shipment, drive, bag: null, log: null }, 'receipt-issued', { receipt: receiptSha256, ok, destination: basename(dest) }, onEvent);
  }
}
