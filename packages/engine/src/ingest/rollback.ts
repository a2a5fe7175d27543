import { stat } from 'node:fs/promises';
import { age, BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, RollbackOptions, RollbackSummary } from '../api.js';
import type { Context } from '../context.js';
import { readManifestFile } from '../verify/manifest-stream.js';
import { runRollback, UNDO_KEEP } from './commit.js';
import { AttrApplier } from './attrs.js';
import { DestDb } from './dest-db.js';
import { policyOf } from './policy.js';
import { resumePending } from './ingest.js';
import { openDest, type DestState } from './state.js';

/**
 * Returns a destination to the tree it had after an earlier shipment, by
 * undoing the shipments applied since, newest first. Each undo is journaled
 * like an apply (commit.ts runRollback): what the shipment installed moves
 * out, what it retired moves back from the undo area. Refused before
 * anything changes when a shipment to undo has no undo area left.
 * @throws BrickpostError NOT_FOUND, USAGE, LOCKED, PERMISSION, IO
 */
export async function rollback(ctx: Context, opts: RollbackOptions, onEvent: EventSink): Promise<RollbackSummary> {
  const started = performance.now();
  const { dest, folder } = await openDest(opts.dest);
  const identities = age.parseIdentityFile(ctx.identity().ageIdentity);
  const unlock = await folder.lock();
  const db = await DestDb.openLocked(folder.state, unlock);
  let failed = false;
  try {
    await resumePending(folder, db, identities, onEvent);
    let state = (await folder.readState())!;
    const target = state.applied.find((a) => a.shipment === opts.to) ?? state.applied.find((a) => String(a.seq) === opts.to);
    if (!target) {
      throw new BrickpostError('NOT_FOUND', `no shipment ${quote(opts.to)} was applied to ${quote(opts.dest)}`, { hint: `'brickpost history ${opts.dest}' lists them (give an id or a sequence number)` });
    }
    const from = state.applied[state.applied.length - 1]!;
    const idx = state.applied.indexOf(target);
    const undo = state.applied.slice(idx + 1).reverse();
    const keep = state.keepUndo ?? UNDO_KEEP;
    for (const a of undo) {
      const kept = (await stat(folder.undo(a.shipment)).catch(() => null)) !== null && (db.db.prepare('SELECT 1 FROM ops WHERE shipment = ? LIMIT 1').get(a.shipment) !== undefined);
      if (!kept) {
        throw new BrickpostError('USAGE', `cannot roll back to seq ${target.seq}: the undo area of shipment ${quote(a.shipment)} (seq ${a.seq}) was not kept (the last ${keep} shipments keep theirs)`, {
          hint: 'roll back to a later point, or ingest with a larger --keep-undo next time',
        });
      }
    }
    for (const a of undo) {
      const next: DestState = { ...state, applied: state.applied.slice(0, state.applied.indexOf(a)) };
      const prev = next.applied[next.applied.length - 1]!;
      const j = { shipment: a.shipment, kind: 'rollback' as const, phase: 'unstage', state: JSON.stringify(next), policy: state.policy ?? policyOf({}) };
      db.setJournal(j);
      const applier = new AttrApplier(j.policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
      await runRollback(folder, db, j, () => readManifestFile(folder.manifest(prev.shipment), identities), keep, applier);
      state = next;
    }
    return {
      dest,
      from: { shipmentId: from.shipment, seq: from.seq },
      to: { shipmentId: target.shipment, seq: target.seq },
      undone: undo.map((a) => ({ shipmentId: a.shipment, seq: a.seq })),
      seconds: (performance.now() - started) / 1000,
    };
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    const closing = db.closeAfter(failed);
    await unlock();
    // A journal that could not be synced fails the command, which must not report success.
    if (closing !== null) throw closing;
  }
}
