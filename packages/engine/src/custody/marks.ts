import { stat } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { DriveMarkOptions, DriveMarkSummary } from '../api/index.js';
import { markDrives, publishedDrives } from '../catalog/subscribers.js';
import type { Context } from '../context.js';
import { readCustodyLog } from './read.js';
import { custodyReport } from './report.js';
import { storeEvents } from '../catalog/custody.js';

/**
 * `brickpost drive shipped|returned`, on the publisher: records when drives
 * of a shipment it sealed left with a courier or came back, steps no
 * command sees. Given a drive that came back, its custody log is checked
 * (custody/report.ts) and, when the chain holds, its events (a subscriber's
 * verified, ingested, wiped) are recorded in this home's catalog, so the
 * subscribers view shows a wiped drive as wiped.
 * @throws BrickpostError USAGE (a bad time or drive), NOT_FOUND (not a shipment this home sealed), NOT_A_DRIVE, AMBIGUOUS_SHIPMENT, MALFORMED (a broken custody log)
 */
export async function markDrive(ctx: Context, o: DriveMarkOptions): Promise<DriveMarkSummary> {
  const at = o.at ?? new Date().toISOString();
  if (Number.isNaN(Date.parse(at)))
    throw new BrickpostError('USAGE', `--at ${quote(at)} is not a time`, { hint: 'give an ISO 8601 time such as 2026-11-20 or 2026-11-20T14:00:00Z' });
  const isDir = (await stat(o.target).catch(() => null))?.isDirectory() === true;
  let shipment = o.target;
  let eventsRecorded = 0;
  let onDrive: string | null = null;
  if (isDir) {
    const r = await custodyReport(ctx, { drive: o.target });
    shipment = r.shipmentId;
    if (o.state === 'returned' && r.log !== null) {
      if (!r.ok) {
        throw new BrickpostError(
          'MALFORMED',
          `the custody log of shipment ${shipment} on ${quote(o.target)} is broken${r.brokenAt !== null ? ` at event ${r.brokenAt}` : ''}; nothing was recorded`,
          {
            hint: `brickpost custody ${o.target}`,
            path: r.log,
          },
        );
      }
      if (r.drive !== null) {
        const lines = (await readCustodyLog(r.log)) ?? [];
        storeEvents(ctx.catalog, shipment, r.drive, lines, true);
        eventsRecorded = lines.length;
      }
    }
    onDrive = r.drive;
  }
  const all = publishedDrives(ctx.catalog, shipment);
  if (all === null) {
    throw new BrickpostError(
      'NOT_FOUND',
      `${isDir ? `${quote(o.target)} holds shipment ${quote(shipment)}, which` : `shipment ${quote(shipment)}`} this home did not seal`,
      {
        hint: 'run it on the home that packed the shipment; brickpost subscribers lists the shipments this home sent',
      },
    );
  }
  let drives = all;
  const want = o.drive ?? onDrive;
  if (want !== undefined && want !== null) {
    const d = /^[0-9]+$/.test(want) ? all.find((x) => Number.parseInt(x, 10) === Number(want)) : all.find((x) => x === want);
    if (!d)
      throw new BrickpostError('USAGE', `shipment ${shipment} has no drive ${quote(want)}; its drives: ${all.join(', ')}`, {
        hint: `brickpost drive ${o.state} ${shipment} --drive 1`,
      });
    drives = [d];
  }
  markDrives(ctx.catalog, shipment, drives, o.state, new Date(at).toISOString());
  return { shipment, state: o.state, at: new Date(at).toISOString(), drives, eventsRecorded };
}
