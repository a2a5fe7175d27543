import { BrickpostError, quote } from '@brickpost/manifest';
import type { CustodyReport, EventSink, ReportOptions, ShipmentReport } from '../api/index.js';
import type { Context } from '../context.js';
import { history } from '../ingest/history.js';
import { openSettled } from '../ingest/settle.js';
import { Progress } from '../io/progress.js';
import { custodyReport } from '../custody/index.js';
import { getTrust } from '../keys/index.js';
import { checkDest } from '../receipt/index.js';
import { PhaseClock } from './phase-clock.js';
import { rankProblems, verdictOf } from './verdict.js';

/**
 * The report of a destination: its current shipment and the ones applied
 * before, a check of the destination against the current shipment's kept
 * manifest (the check `receipt` makes: 'stat', or 'deep' re-reading every
 * file), and the custody events of the catalog. DEST is locked while it is
 * checked.
 * @throws BrickpostError NOT_FOUND (not a destination, no kept manifest), NO_IDENTITY, LOCKED, UNFINISHED, NO_MATCHING_KEY, CANCELLED
 */
export async function destReport(ctx: Context, opts: ReportOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ShipmentReport> {
  const clock = new PhaseClock(onEvent);
  const me = ctx.identity();
  const { dest, folder, state, unlock } = await openSettled(opts.target, 'report', me.ageIdentities, onEvent);
  const last = state.applied[state.applied.length - 1]!;
  let hist;
  try {
    if (opts.shipment !== undefined && opts.shipment !== last.shipment) {
      throw new BrickpostError('NOT_FOUND', `destination ${quote(opts.target)} holds shipment ${quote(last.shipment)}, not ${quote(opts.shipment)}`, {
        hint: 'a destination is reported at its current shipment; leave out --shipment',
        path: dest,
      });
    }
    hist = await history(dest);
  } catch (e) {
    await unlock();
    throw e;
  }
  const notes: string[] = [];
  let verification;
  try {
    const manifest = await folder.keptManifest(last.shipment, 'report');
    clock.begin('dest-check');
    const progress = new Progress(clock.onEvent, 'dest-check');
    progress.bytesTotal = last.bytes;
    progress.filesTotal = last.files;
    progress.emit();
    verification = await checkDest(dest, manifest, me.ageIdentities, opts.deep ?? false, progress, signal);
    progress.emit();
    clock.stop();
  } finally {
    await unlock();
  }
  let custody: CustodyReport | null = null;
  try {
    const c = await custodyReport(ctx, { shipment: last.shipment });
    if (c.events.length > 0) custody = c;
    else notes.push(`this home's catalog holds no custody events of shipment ${last.shipment}`);
  } catch (e) {
    notes.push(`custody log not shown: ${(e as Error).message}`);
  }

  const trusted = getTrust(ctx.catalog, state.publisher);
  const ok = verification.ok;
  const report: Omit<ShipmentReport, 'verdict'> = {
    format: 'brickpost-report/v1',
    kind: 'dest',
    target: dest,
    created: new Date().toISOString(),
    shipment: {
      id: last.shipment,
      dataset: state.dataset,
      datasetId: state.datasetId,
      seq: last.seq,
      parent: last.parent ?? null,
      label: last.label,
      created: null,
      files: last.files,
      bytes: last.bytes,
      drives: 0,
      dataDrives: 0,
      parityDrives: 0,
    },
    publisher: { keyId: state.publisher, name: trusted?.name ?? null, trusted: trusted !== null },
    signature: 'not-checked',
    drives: [],
    check: {
      level: verification.level,
      fixity: ok ? 'ok' : 'failed',
      deep: verification.level === 'deep' ? (ok ? 'ok' : 'failed') : 'skipped',
      files: verification.files,
      bytes: verification.bytes,
      chunksChecked: 0,
      chunksHeld: 0,
      problems: rankProblems(verification.problems),
      // checkDest keeps at most 100 problems and does not count the rest.
      problemsTotal: verification.problems.length,
    },
    repair: null,
    dest: { path: dest, publisherKeyId: hist.publisherKeyId, keepUndo: hist.keepUndo, applied: hist.shipments },
    timings: clock.timings(),
    custody,
    notes,
  };
  if (verification.problems.length >= 100) notes.push('the destination check lists its first 100 problems only; there may be more');
  return { ...report, verdict: verdictOf(report) };
}
