import { resolve } from 'node:path';
import type { DriveSet, ShipmentInfo } from '@brickpost/manifest';
import type { CustodyReport, EventSink, ReportDrive, ReportOptions, ShipmentReport, VerifyProblem, VerifyReport } from '../api/index.js';
import type { Context } from '../context.js';
import { custodyReport } from '../custody/index.js';
import { findShipment } from '../drive/layout.js';
import { openShipment } from '../drive/open.js';
import { trustedVerifiers } from '../keys/index.js';
import { verify } from '../verify/verify.js';
import { PhaseClock } from './phase-clock.js';
import { rankProblems, verdictOf } from './verdict.js';

/** What the drive's own tag files say, when they can be read at all. */
async function shipmentFacts(ctx: Context, id: string, dir: string): Promise<{ info: ShipmentInfo; set: DriveSet | null } | null> {
  try {
    const o = await openShipment(id, dir, trustedVerifiers(ctx.catalog), {
      problems: [],
      signature: 'missing',
      signer: { keyId: '', name: null, trusted: false },
    });
    return { info: o.info, set: o.set };
  } catch {
    // The verify report already names what is wrong with the tag files.
    return null;
  }
}

/**
 * The report of a shipment on a drive: verify (keyless, or deep), then a
 * keyless verify of every other drive of its set that is found, then the
 * custody log. Findings go into the report; nothing about the drive throws.
 * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, NO_IDENTITY (deep), CANCELLED
 */
export async function driveReport(ctx: Context, opts: ReportOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ShipmentReport> {
  const clock = new PhaseClock(onEvent);
  const found = await findShipment(resolve(opts.target), opts.shipment);
  clock.begin('verify');
  const vr = await verify(ctx, { drive: found.dir, shipment: found.id, deep: opts.deep ?? false }, clock.onEvent, signal);
  clock.stop();
  // Fixity's last progress event may come before its end (events are throttled); the report has its totals.
  clock.settle('verify', vr.bytesChecked, vr.filesChecked);
  const facts = await shipmentFacts(ctx, found.id, found.dir);
  const notes: string[] = [];
  const problems: VerifyProblem[] = [...vr.problems];
  const drives = await setDrives(ctx, vr, found.dir, facts, clock, problems, notes, signal);

  let custody: CustodyReport | null = null;
  clock.begin('custody');
  try {
    custody = await custodyReport(ctx, { drive: found.dir, shipment: found.id });
  } catch (e) {
    notes.push(`custody log not shown: ${(e as Error).message}`);
  }
  clock.stop();

  const info = facts?.info;
  const ranked = rankProblems(problems);
  const report: Omit<ShipmentReport, 'verdict'> = {
    format: 'brickpost-report/v1',
    kind: 'drive',
    target: found.dir,
    created: new Date().toISOString(),
    shipment: {
      id: found.id,
      dataset: vr.dataset,
      datasetId: info?.datasetId ?? null,
      seq: vr.seq,
      parent: info?.parent ?? null,
      label: vr.label,
      created: info?.created ?? null,
      files: info?.files ?? null,
      bytes: info?.bytes ?? null,
      drives: drives.length,
      dataDrives: drives.filter((d) => d.role === 'data').length,
      parityDrives: drives.filter((d) => d.role === 'parity').length,
    },
    publisher: vr.publisher,
    // A signature by a key not in the trust store cannot be checked: verify calls it invalid, with UNTRUSTED_PUBLISHER.
    signature: vr.signature !== 'missing' && !vr.publisher.trusted && vr.problems.some((p) => p.code === 'UNTRUSTED_PUBLISHER') ? 'unknown-key' : vr.signature,
    drives,
    check: {
      level: opts.deep ? 'deep' : 'fixity',
      fixity: vr.fixity,
      deep: vr.deep,
      files: vr.filesChecked,
      bytes: vr.bytesChecked,
      chunksChecked: vr.chunksChecked,
      chunksHeld: vr.chunksHeld ?? 0,
      problems: ranked,
      problemsTotal: problems.length,
    },
    repair: vr.repair ?? null,
    dest: null,
    timings: clock.timings(),
    custody,
    notes,
  };
  return { ...report, verdict: verdictOf(report) };
}

/**
 * Every drive of the set in set order, each checked keyless when found
 * (their problems join `problems`); one drive when there is no set.
 */
async function setDrives(
  ctx: Context,
  vr: VerifyReport,
  dir: string,
  facts: { info: ShipmentInfo; set: DriveSet | null } | null,
  clock: PhaseClock,
  problems: VerifyProblem[],
  notes: string[],
  signal?: AbortSignal,
): Promise<ReportDrive[]> {
  const self = (n: number, role: ReportDrive['role']): ReportDrive => ({
    drive: n,
    role,
    state: 'present',
    path: dir,
    fixity: vr.fixity,
    files: vr.filesChecked,
    bytes: vr.bytesChecked,
    problems: vr.problems.length,
  });
  const st = vr.set;
  if (!st) return [self(facts?.info.bagIndex ?? 1, 'data')];
  const roleOf = (n: number): ReportDrive['role'] => (facts?.set?.shares[n - 1]?.kind === 'parity' || (!facts?.set && n > st.data) ? 'parity' : 'data');
  const out: ReportDrive[] = [];
  clock.begin('drives');
  for (let n = 1; n <= st.drives; n++) {
    if (n === st.drive) {
      out.push(self(n, roleOf(n)));
      continue;
    }
    const at = st.found.find((f) => f.drive === n);
    if (!at) {
      out.push({ drive: n, role: roleOf(n), state: 'missing', path: null, fixity: 'skipped', files: 0, bytes: 0, problems: 0 });
      continue;
    }
    const other = await verify(ctx, { drive: at.path, shipment: vr.shipmentId }, clock.onEvent, signal);
    clock.add(other.bytesChecked, other.filesChecked);
    problems.push(...other.problems.map((p) => ({ ...p, message: `drive ${n}: ${p.message}` })));
    out.push({
      drive: n,
      role: roleOf(n),
      state: 'present',
      path: at.path,
      fixity: other.fixity,
      files: other.filesChecked,
      bytes: other.bytesChecked,
      problems: other.problems.length,
    });
  }
  clock.stop();
  if (st.missing.length > 0) {
    notes.push(
      `drive${st.missing.length > 1 ? 's' : ''} ${st.missing.join(', ')} of the set ${st.missing.length > 1 ? 'were' : 'was'} not found next to this one; ` +
        (st.recoverable ? 'the drives found are enough to ingest' : `${st.needed} more ${st.needed > 1 ? 'are' : 'is'} needed to ingest`),
    );
  }
  return out;
}
