/**
 * The catalog's record of an ingest around DEST's commit: what is recorded
 * before it (catalog/ingests.ts beginIngest), after it, and how a record
 * a failing catalog missed is caught up from DEST's state.
 */
import { BrickpostError, quote, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { beginIngest, committingDests, finishIngest, reconcileIngests, type IngestRecord } from '../catalog/ingests.js';
import type { Context } from '../context.js';
import type { OpenedShipment } from '../drive/open.js';
import { DestFolder, realDest } from './state.js';

/** The catalog's record of a shipment, from its bag-info and manifest header. */
export function recordOf(s: OpenedShipment, h: ShipmentRecord): Omit<IngestRecord, 'dest' | 'files' | 'bytes'> {
  const i = s.info;
  return {
    shipment: s.id,
    datasetId: i.datasetId,
    dataset: i.dataset,
    publisher: i.publisherKey,
    secret: h.secret,
    seq: i.seq,
    parent: i.parent,
    label: i.label,
    created: i.created,
  };
}

/**
 * Records the ingest in the catalog as committing (beginIngest), before
 * DEST's commit: a catalog that cannot be written stops the ingest with
 * DEST unchanged, and the message says so.
 * @throws BrickpostError LOCKED (naming the holder), PERMISSION, NO_SPACE, IO, DATABASE_DAMAGED
 */
export function recordBeforeCommit(ctx: Context, r: IngestRecord): void {
  try {
    beginIngest(ctx.catalog, r);
  } catch (e) {
    if (!(e instanceof BrickpostError) || (e.category !== 'environment' && e.category !== 'busy')) throw e;
    throw new BrickpostError(e.code, `${e.message}; the ingest stopped before its commit: ${quote(r.dest)} was not changed`, {
      cause: e,
      ...(e.path !== undefined ? { path: e.path } : {}),
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
    });
  }
}

/**
 * The catalog's part after DEST committed: the ingest marked applied, the
 * custody events, the catalog synced. DEST's state is the truth now, so a
 * catalog that fails here (locked since, a failing disk) is a warning, not
 * a failure: the next command on DEST brings it up to date from DEST's
 * state (reconcileIngests), and closing the engine reports it no more.
 */
export async function afterCommit(ctx: Context, shipment: string, dest: string, onEvent: EventSink, custody: () => Promise<void>): Promise<void> {
  let warned = false;
  const warn = (e: unknown): void => {
    if (!(e instanceof BrickpostError) || (e.category !== 'environment' && e.category !== 'busy')) throw e;
    ctx.catalog.failureReported = true;
    if (warned) return;
    warned = true;
    onEvent({
      type: 'warning',
      code: 'CATALOG_NOT_UPDATED',
      message: `shipment ${shipment} is applied to ${quote(dest)}, but this home's catalog could not record it: ${e.message}; the next brickpost command on this destination (ingest, history, receipt) records it from the destination's state`,
      path: ctx.catalog.file,
    });
  };
  try {
    finishIngest(ctx.catalog, shipment, dest);
  } catch (e) {
    warn(e);
  }
  // The drives' custody logs take their events even when the catalog cannot (appendCustody warns for itself).
  await custody();
  try {
    ctx.catalog.flush();
  } catch (e) {
    warn(e);
  }
  // A custody event whose catalog write failed was a warning of its own; the failure is this run's too.
  if (ctx.catalog.writeFailure) warn(ctx.catalog.writeFailure);
}

/**
 * Brings the catalog's record of every destination with an ingest still
 * `committing` in line with that destination's state (reconcileDest): for
 * commands that look at ingests without naming a destination (wipe).
 * @throws only what is a bug
 */
export async function reconcileAll(ctx: Context): Promise<void> {
  let dests: string[];
  try {
    dests = committingDests(ctx.catalog);
  } catch (e) {
    if (e instanceof BrickpostError && (e.category === 'environment' || e.category === 'busy')) return;
    throw e;
  }
  for (const d of dests) await reconcileDest(ctx, d);
}

/**
 * Brings this home's catalog in line with DEST's state (reconcileIngests)
 * before a command on DEST: an ingest whose last catalog write failed
 * after DEST committed is recorded now. Best effort, and quiet: a DEST
 * without state, or a catalog that cannot be written now, changes nothing.
 * @throws only what is a bug
 */
export async function reconcileDest(ctx: Context, destPath: string): Promise<void> {
  const dest = await realDest(destPath).catch(() => null);
  if (dest === null) return;
  const state = await new DestFolder(dest).readState().catch(() => null);
  if (state) reconcileIngests(ctx.catalog, dest, state.applied);
}
