import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, RepairOptions, RepairSummary, VerifyRepairStatus } from '../api/index.js';
import type { Context } from '../context.js';
import { Progress } from '../io/progress.js';
import { trustedVerifiers } from '../keys/index.js';
import { repairRecovery, scanRecovery, type RecoveryReport } from '../recovery/index.js';
import { findShipment } from './layout.js';
import { openShipment, type OpenedShipment } from './open.js';
import { payloadBound } from './payload-bound.js';

/**
 * Repairs a drive in place from its own recovery data (FORMAT.md
 * §recovery-data): damaged blocks of the manifest, packs, parity and set
 * file are rebuilt and rewritten, and each repaired file must match its
 * SHA-256 in the signed payload manifest again. The signature and tag
 * files are checked first, so only an authentic bag's files are touched.
 * @throws BrickpostError authenticity (the bag is not authentic), USAGE (no recovery data), NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, IO, NO_SPACE, PERMISSION, CANCELLED
 */
export async function repair(ctx: Context, opts: RepairOptions, onEvent: EventSink, signal?: AbortSignal): Promise<RepairSummary> {
  const started = performance.now();
  const found = await findShipment(opts.drive, opts.shipment);
  const s = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog), undefined, { payloadOnly: true });
  if (s.info.recovery === 0) {
    throw new BrickpostError('USAGE', `shipment ${quote(s.id)} on ${quote(opts.drive)} carries no recovery data`, {
      hint: 'it was packed with --recovery 0; a damaged file can only come from another copy or, in a set, from the other drives',
    });
  }
  const progress = new Progress(onEvent, 'repair');
  // The payload manifest openShipment checked against the signed tag manifest is the one repair uses: it is not read again.
  // Nothing is read past what signed data allows a file: a longer one is cut to its recorded size, never hashed whole.
  const bound = (rel: string): number => payloadBound(s, rel).max;
  const r = await (opts.dryRun ? scanRecovery : repairRecovery)(found.dir, { progress, signal, payload: s.payload, bound });
  progress.emit();
  const files = r.files.filter((f) => f.status !== 'intact');
  return {
    shipmentId: s.id,
    drive: found.dir,
    dryRun: opts.dryRun === true,
    ok: files.every((f) => f.status === 'repaired' || (opts.dryRun && f.status === 'repairable')) && r.windowProblems.every((w) => w.state === 'degraded'),
    blocks: r.blocks,
    damagedBlocks: r.damagedBlocks,
    repairedBlocks: r.repairedBlocks,
    files: files.map((f) => ({
      path: f.path,
      status: f.status,
      damagedBlocks: f.damaged.length,
      unrepairableBlocks: f.unrepairable.length,
      ...(f.reason ? { reason: f.reason } : {}),
    })),
    recoveryProblems: r.windowProblems.map((w) => ({ path: w.path, state: w.state, reason: w.reason })),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * What verify says about damage a drive's recovery data could repair, for
 * the opened shipment verify checked; `failing` are the bag paths fixity
 * found damaged. Repairable only when each of them is a file the recovery
 * data can repair, so that proposing `brickpost repair` is never in vain.
 */
export async function repairStatus(s: OpenedShipment, failing: readonly string[], signal?: AbortSignal): Promise<VerifyRepairStatus> {
  const r: RecoveryReport = await scanRecovery(s.dir, { signal, payload: s.payload, bound: (rel) => payloadBound(s, rel).max });
  const files = r.files.filter((f) => f.status !== 'intact');
  const covered = failing.every((rel) => files.some((f) => f.path === rel && f.status === 'repairable'));
  return {
    repairable: covered && files.every((f) => f.status === 'repairable') && r.windowProblems.every((w) => w.state === 'degraded'),
    damagedBlocks: r.damagedBlocks,
    files: files.map((f) => ({ path: f.path, damagedBlocks: f.damaged.length, repairable: f.status === 'repairable' })),
  };
}
