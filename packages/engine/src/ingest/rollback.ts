import { age, BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, RollbackOptions, RollbackSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { DestDb } from './dest-db.js';
import { removeMarker, writeMarker } from './marker.js';
import { openSettled } from './settle.js';
import { undoTo } from './undo.js';
import { jobFailure } from './failures.js';

/**
 * Returns a destination to the tree it had after an earlier shipment, by
 * undoing the shipments applied since, newest first (undo.ts). The
 * in-progress marker stands from the first change to the last, so a
 * rollback killed half way is finished by the next command on DEST
 * (settle.ts), down to the shipment asked for.
 * @throws BrickpostError NOT_FOUND, USAGE, LOCKED, UNFINISHED, PERMISSION, IO
 */
export async function rollback(ctx: Context, opts: RollbackOptions, onEvent: EventSink): Promise<RollbackSummary> {
  const started = performance.now();
  const identities = age.parseIdentityFile(ctx.identity().ageIdentity);
  const { dest, folder, state, unlock } = await openSettled(opts.dest, 'rollback', identities, onEvent);
  const db = await DestDb.openLocked(folder.state, unlock);
  let failed = false;
  try {
    const target = state.applied.find((a) => a.shipment === opts.to) ?? state.applied.find((a) => String(a.seq) === opts.to);
    if (!target) {
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(opts.to)} was applied to ${quote(opts.dest)}`, {
        hint: `'brickpost history ${opts.dest}' lists them (give an id or a sequence number)`,
      });
    }
    const from = state.applied[state.applied.length - 1]!;
    let undone: typeof state.applied = [];
    if (from !== target) {
      const marked = () =>
        writeMarker(folder, { kind: 'rollback', shipment: target.shipment, seq: target.seq, from: { shipment: from.shipment, seq: from.seq } });
      undone = await undoTo(folder, db, state, target, identities, onEvent, marked);
      await removeMarker(folder);
    }
    return {
      dest,
      from: { shipmentId: from.shipment, seq: from.seq },
      to: { shipmentId: target.shipment, seq: target.seq },
      undone: undone.map((a) => ({ shipmentId: a.shipment, seq: a.seq })),
      seconds: (performance.now() - started) / 1000,
    };
  } catch (e) {
    failed = true;
    throw jobFailure(e, 'rollback failed', { dest, home: ctx.home }, 'run the same rollback again');
  } finally {
    const closing = db.closeAfter(failed);
    await unlock().catch((e: unknown) =>
      onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot release the lock of ${quote(dest)}: ${(e as Error).message}` }),
    );
    // A journal that could not be synced fails the command, which must not report success.
    // eslint-disable-next-line no-unsafe-finally, @typescript-eslint/only-throw-error -- a journal that could not be synced fails the command
    if (closing !== null) throw closing;
  }
}
