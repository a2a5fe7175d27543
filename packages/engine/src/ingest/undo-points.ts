import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { age, BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, PinInfo, PinOptions, PinSummary, PruneOptions, PruneSummary, UnpinOptions } from '../api/index.js';
import type { Context } from '../context.js';
import { pruneUndo } from './commit.js';
import { DestDb } from './dest-db.js';
import { jobFailure } from './failures.js';
import { retentionFields, retentionOf } from './retention.js';
import { openSettled, type SettledDest } from './settle.js';
import type { AppliedShipment, DestState, Pin } from './state.js';
import { wholeBytes } from './undo-store.js';

/**
 * Named consistency points and pruning of a destination's undo data
 * (`brickpost pin`, `unpin`, `prune`). A pin keeps the undo data of every
 * shipment after the pinned one, whatever the retention says
 * (retention.ts); pruning past a pin is refused, naming it.
 */

async function withDest<T>(ctx: Context, destPath: string, command: string, onEvent: EventSink, work: (d: SettledDest, db: DestDb) => Promise<T>): Promise<T> {
  const identities = age.parseIdentityFile(ctx.identity().ageIdentity);
  const d = await openSettled(destPath, command, identities, onEvent);
  const db = await DestDb.openLocked(d.folder.state, d.unlock);
  let failed = false;
  try {
    return await work(d, db);
  } catch (e) {
    failed = true;
    throw jobFailure(e, `${command} failed`, { dest: d.dest, home: ctx.home }, `run the same ${command} again`);
  } finally {
    const closing = db.closeAfter(failed);
    await d.unlock().catch(() => undefined);
    // eslint-disable-next-line no-unsafe-finally, @typescript-eslint/only-throw-error -- a journal that could not be synced fails the command
    if (closing !== null) throw closing;
  }
}

function find(state: DestState, given: string, dest: string): AppliedShipment {
  const a = state.applied.find((x) => x.shipment === given) ?? state.applied.find((x) => String(x.seq) === given);
  if (!a)
    throw new BrickpostError('NOT_FOUND', `no shipment ${quote(given)} was applied to ${quote(dest)}`, {
      hint: `'brickpost history ${dest}' lists them (give an id or a sequence number)`,
    });
  return a;
}

const info = (p: Pin): PinInfo => ({ name: p.name, shipmentId: p.shipment, seq: p.seq, at: p.at });
const sorted = (pins: Pin[]): Pin[] => [...pins].sort((a, b) => a.seq - b.seq || a.name.localeCompare(b.name));

/**
 * Pins the tree DEST had after an applied shipment under a name, so no
 * pruning removes the undo data rollback needs to return to it.
 * @throws BrickpostError NOT_FOUND, USAGE (an empty or taken name, a point rollback can no longer reach), LOCKED, PERMISSION, IO
 */
export async function pin(ctx: Context, opts: PinOptions, onEvent: EventSink): Promise<PinSummary> {
  return withDest(ctx, opts.dest, 'pin', onEvent, async ({ dest, folder, state }) => {
    const name = opts.name.trim();
    if (name === '' || name.length > 200) throw new BrickpostError('USAGE', `pin name ${quote(opts.name)} must be 1 to 200 characters`);
    const pins = state.pins ?? [];
    const taken = pins.find((p) => p.name === name);
    if (taken)
      throw new BrickpostError('USAGE', `${quote(dest)} already has a pin named ${quote(name)} (on #${taken.seq})`, {
        hint: `choose another name, or 'brickpost unpin ${dest} ${JSON.stringify(name)}' first`,
      });
    const a = find(state, opts.shipment, dest);
    for (const later of state.applied.slice(state.applied.indexOf(a) + 1)) {
      if (!(await stat(folder.undo(later.shipment)).catch(() => null))) {
        throw new BrickpostError(
          'USAGE',
          `cannot pin #${a.seq} of ${quote(dest)}: the undo data of #${later.seq} is no longer kept, so rollback cannot return to it`,
          { hint: `'brickpost history ${dest}' shows which shipments are kept` },
        );
      }
    }
    const next = sorted([...pins, { shipment: a.shipment, seq: a.seq, name, at: new Date().toISOString() }]);
    await folder.writeState({ ...state, pins: next });
    return { dest, pins: next.map(info), freedBytes: 0 };
  });
}

/**
 * Removes a pin (by name, or every pin on a sequence number), then prunes
 * what the retention no longer keeps.
 * @throws BrickpostError NOT_FOUND (no such pin), LOCKED, PERMISSION, IO
 */
export async function unpin(ctx: Context, opts: UnpinOptions, onEvent: EventSink): Promise<PinSummary> {
  return withDest(ctx, opts.dest, 'unpin', onEvent, async ({ dest, folder, state }, db) => {
    const pins = state.pins ?? [];
    const left = pins.filter((p) => p.name !== opts.pin && String(p.seq) !== opts.pin);
    if (left.length === pins.length) {
      throw new BrickpostError(
        'NOT_FOUND',
        `${quote(dest)} has no pin named ${quote(opts.pin)}${pins.length ? ` (its pins: ${pins.map((p) => `${quote(p.name)} on #${p.seq}`).join(', ')})` : ''}`,
        { hint: `'brickpost history ${dest}' lists the pins` },
      );
    }
    const next: DestState = { ...state, ...retentionFields({ ...retentionOf(state), pins: left }) };
    if (left.length === 0) delete next.pins;
    await folder.writeState(next);
    const freed = await pruneCounting(folder, db, next);
    return { dest, pins: left.map(info), freedBytes: freed.bytes };
  });
}

/**
 * Sets a destination's retention (when given) and removes the undo data it
 * no longer keeps; `before` also removes what rollback needs to go back
 * before that sequence number, refused when a pin is older.
 * @throws BrickpostError USAGE (a pin would be lost: the message names it), NOT_FOUND, LOCKED, PERMISSION, IO
 */
export async function prune(ctx: Context, opts: PruneOptions, onEvent: EventSink): Promise<PruneSummary> {
  if (opts.keepUndo !== undefined && (!Number.isSafeInteger(opts.keepUndo) || opts.keepUndo < 0 || opts.keepUndo > 1000)) {
    throw new BrickpostError('USAGE', `--keep-undo ${String(opts.keepUndo)} must be a whole number from 0 to 1000, or 'all'`);
  }
  if (opts.keepDays !== undefined && (!Number.isSafeInteger(opts.keepDays) || opts.keepDays < 0 || opts.keepDays > 100_000)) {
    throw new BrickpostError('USAGE', `--keep-days ${String(opts.keepDays)} must be a whole number of days from 0 to 100000`);
  }
  if (opts.before !== undefined && (!Number.isSafeInteger(opts.before) || opts.before < 0))
    throw new BrickpostError('USAGE', `--before ${String(opts.before)} must be a sequence number`);
  return withDest(ctx, opts.dest, 'prune', onEvent, async ({ dest, folder, state }, db) => {
    const r = retentionOf(state);
    if (opts.keepUndo !== undefined) r.keepUndo = opts.keepUndo;
    if (opts.keepAll !== undefined) r.keepAll = opts.keepAll;
    if (opts.keepDays !== undefined) r.keepDays = opts.keepDays;
    const before = opts.before;
    if (before !== undefined) {
      const lost = r.pins.filter((p) => p.seq < before);
      if (lost.length > 0) {
        const p = lost[0]!;
        throw new BrickpostError(
          'USAGE',
          `cannot prune ${quote(dest)} before #${before}: shipment #${p.seq} is pinned as ${quote(p.name)}${lost.length > 1 ? ` (and ${lost.length - 1} more pin${lost.length > 2 ? 's' : ''})` : ''}, and rollback to it needs that undo data`,
          {
            hint: `brickpost unpin ${dest} ${JSON.stringify(p.name)}`,
          },
        );
      }
    }
    const next: DestState = { ...state, ...retentionFields(r) };
    if (!r.keepAll) delete next.keepAll;
    if (r.keepDays === null) delete next.keepDays;
    await folder.writeState(next);
    const freed = await pruneCounting(folder, db, next, before);
    return {
      dest,
      retention: { keepUndo: r.keepUndo, keepAll: r.keepAll, keepDays: r.keepDays },
      pins: r.pins.map(info),
      removed: freed.removed.map((a) => ({ shipmentId: a.shipment, seq: a.seq })),
      freedBytes: freed.bytes,
      undoBytes: freed.left,
    };
  });
}

/** Prunes as the retention of `state` says (and, with `before`, everything up to that seq); counts what went and what is left. */
async function pruneCounting(
  folder: SettledDest['folder'],
  db: DestDb,
  state: DestState,
  before?: number,
): Promise<{ removed: AppliedShipment[]; bytes: number; left: number }> {
  const had = new Set(await readdir(join(folder.state, 'undo')).catch(() => [] as string[]));
  const wholeBefore = new Map<string, number>();
  for (const id of had) wholeBefore.set(id, await wholeBytes(folder, id));
  const storeBefore = storeBytes(db);
  const freedChunks = await pruneUndo(folder, db, state, undefined, before);
  const now = new Set(await readdir(join(folder.state, 'undo')).catch(() => [] as string[]));
  const removed = state.applied.filter((a) => had.has(a.shipment) && !now.has(a.shipment));
  let bytes = Math.max(freedChunks, storeBefore - storeBytes(db));
  for (const a of removed) bytes += wholeBefore.get(a.shipment) ?? 0;
  let left = storeBytes(db);
  for (const id of now) left += await wholeBytes(folder, id);
  return { removed, bytes, left };
}

function storeBytes(db: DestDb): number {
  return db.db.prepare('SELECT COALESCE(SUM(stored), 0) FROM undo_chunks').pluck().get() as number;
}
