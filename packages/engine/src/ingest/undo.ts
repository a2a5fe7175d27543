import { stat } from 'node:fs/promises';
import { BrickpostError, quote, type age } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { failpoint } from '../io/failpoint.js';
import { readManifestFile } from '../verify/manifest-stream.js';
import { AttrApplier } from './attrs.js';
import { runRollback, UNDO_KEEP } from './commit.js';
import type { DestDb } from './dest-db.js';
import { policyOf } from './policy.js';
import type { AppliedShipment, DestFolder, DestState } from './state.js';

/**
 * Undoes the shipments applied after `target`, newest first, each
 * journaled like an apply (commit.ts runRollback). Refused before anything
 * changes when a shipment to undo has no undo area left. Returns the
 * shipments undone. The caller holds DEST's lock and has settled it;
 * `begin` runs once the checks passed, before the first change (the
 * rollback writes its in-progress marker there).
 * @throws BrickpostError USAGE (no undo area), PERMISSION, IO
 */
export async function undoTo(
  folder: DestFolder,
  db: DestDb,
  state: DestState,
  target: AppliedShipment,
  identities: age.Identity[],
  onEvent: EventSink,
  begin: () => Promise<void> = async () => undefined,
): Promise<AppliedShipment[]> {
  const idx = state.applied.findIndex((a) => a.shipment === target.shipment);
  const undo = state.applied.slice(idx + 1).reverse();
  const keep = state.keepUndo ?? UNDO_KEEP;
  for (const a of undo) {
    const kept = (await stat(folder.undo(a.shipment)).catch(() => null)) !== null && db.hasOps(a.shipment);
    if (!kept) {
      throw new BrickpostError(
        'USAGE',
        `cannot roll back to seq ${target.seq}: the undo area of shipment ${quote(a.shipment)} (seq ${a.seq}) was not kept (the last ${keep} shipments keep theirs)`,
        {
          hint: 'roll back to a later point, or ingest with a larger --keep-undo next time',
        },
      );
    }
  }
  await begin();
  let now = state;
  for (const a of undo) {
    const next: DestState = { ...now, applied: now.applied.slice(0, now.applied.indexOf(a)) };
    const prev = next.applied[next.applied.length - 1]!;
    const j = { shipment: a.shipment, kind: 'rollback' as const, phase: 'unstage', state: JSON.stringify(next), policy: now.policy ?? policyOf({}) };
    db.setJournal(j);
    const applier = new AttrApplier(j.policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
    await runRollback(
      folder,
      db,
      j,
      () => readManifestFile(folder.manifest(prev.shipment), identities),
      keep,
      applier,
      (message) => onEvent({ type: 'warning', code: 'LEFT_OVER', message }),
    );
    now = next;
    failpoint('rollback-step');
  }
  return undo;
}
