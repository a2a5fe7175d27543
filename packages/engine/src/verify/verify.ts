import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBrickpostError } from '@brickpost/manifest';
import type { EventSink, VerifyOptions, VerifyProblem, VerifyReport } from '../api/index.js';
import type { Context } from '../context.js';
import { noteSeen } from '../catalog/seen.js';
import { recordVerified } from '../custody/hooks.js';
import { findShipment } from '../drive/layout.js';
import { openShipment, type LenientFindings } from '../drive/open.js';
import { withDriveHint, type HintedShipment } from '../drive/read-hint.js';
import { lostShares, mergedShipment, openMembers, requireRecoverable, setDrives, setStatus } from '../drive/set.js';
import { Progress } from '../io/progress.js';
import { requireSpace } from '../io/space.js';
import { trustedVerifiers } from '../keys/index.js';
import { describeCreated } from './created.js';
import { expansionLimit } from './expansion.js';
import { checkDeferred, checkFixity } from './fixity.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * Verifies a shipment on a drive. Level 1 (always, no decryption key): the
 * publisher's signature against the trust store, the tag files, and every
 * payload file's SHA-256. Level 2 (`deep`, needs this home's age identity):
 * the manifest and every chunk decrypted, decompressed and checked against
 * its keyed id; on one drive (not a set) the packs' SHA-256 is then checked
 * as they are decrypted, not in a pass of its own. Findings are collected into the report rather than thrown,
 * so one run says everything that is wrong.
 * A drive or a temporary folder that fails to read or write (an errno) stops
 * verify: that is not a finding about the shipment, and the error says what
 * to do about the drive.
 * Deep verify decodes each distinct chunk frame once and counts the refs
 * it covered, and refuses (a problem, LIMIT_EXCEEDED) a shipment whose
 * data expands past `maxExpansion` times its size on the drive.
 * The code of deep verify, of rebuilding a set's lost drives and of
 * recovery status is loaded only when it runs: a keyless verify starts
 * hashing without it.
 * @throws BrickpostError when there is nothing to verify (NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT), deep verify lacks an identity (NO_IDENTITY), maxExpansion is not a limit (USAGE), or the environment fails (IO, NO_SPACE, PERMISSION…).
 */
export async function verify(ctx: Context, opts: VerifyOptions, onEvent: EventSink, signal?: AbortSignal): Promise<VerifyReport> {
  const found = await findShipment(opts.drive, opts.shipment);
  const seen: { opened?: HintedShipment } = {};
  try {
    return await verifyFound(ctx, opts, found, seen, onEvent, signal);
  } catch (e) {
    throw withDriveHint(e, [seen.opened ?? { dir: found.dir, info: { recovery: 0, bagIndex: 1, bagCount: 1, setParity: 0 } }]);
  }
}

async function verifyFound(
  ctx: Context,
  opts: VerifyOptions,
  found: { id: string; dir: string },
  seen: { opened?: HintedShipment },
  onEvent: EventSink,
  signal?: AbortSignal,
): Promise<VerifyReport> {
  const started = performance.now();
  const identityText = opts.deep ? ctx.identity().ageIdentity : '';
  const maxExpansion = expansionLimit(opts.maxExpansion);
  const progress = new Progress(onEvent, 'verify');
  const problems: VerifyProblem[] = [];
  /** Not a finding about the shipment: stops verify. */
  const stops = (e: unknown): boolean => !isBrickpostError(e) || e.code === 'CANCELLED' || e.category === 'environment';
  const asProblem = (e: unknown): void => {
    if (stops(e) || !isBrickpostError(e)) throw e;
    problems.push({ code: e.code, message: e.message, ...(e.path ? { path: e.path } : {}), ...(e.hint ? { hint: e.hint } : {}) });
  };
  const report: VerifyReport = {
    ok: false,
    shipmentId: found.id,
    dataset: '',
    seq: 0,
    label: '',
    publisher: { keyId: '', name: null, trusted: false },
    signature: 'missing',
    fixity: 'skipped',
    deep: 'skipped',
    filesChecked: 0,
    bytesChecked: 0,
    chunksChecked: 0,
    problems,
    custody: 'none',
    seconds: 0,
  };
  let opened;
  const findings: LenientFindings = { problems, signature: 'missing', signer: { keyId: '', name: null, trusted: false } };
  try {
    opened = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog), findings);
  } catch (e) {
    asProblem(e);
    report.signature = findings.signature;
    report.publisher = findings.signer;
  }
  if (opened) {
    seen.opened = opened;
    Object.assign(report, {
      datasetFiles: opened.info.files,
      datasetBytes: opened.info.bytes,
      created: opened.info.created,
      dataset: opened.info.dataset,
      seq: opened.info.seq,
      label: opened.info.label,
      publisher: {
        keyId: opened.signer.keyId || opened.info.publisherKey,
        name: opened.signer.name,
        trusted: opened.signer.trusted,
        ...(opened.signer.publicKey ? { publicKey: opened.signer.publicKey } : {}),
      },
      signature: opened.signature,
    });
    const packed = describeCreated(opened.info.created);
    report.packed = packed;
    if (packed.warning) onEvent({ type: 'warning', code: 'CREATED_IN_FUTURE', message: `shipment ${opened.id}: ${packed.warning}` });
    // A deep verify of one drive reads every pack anyway, checking each against its signed
    // SHA-256 as ingest does: the packs are then hashed there, not read twice. Should the
    // walk stop early, they are hashed here after all, so the report names a damaged pack
    // as keyless verify does.
    const walkChecksPacks = opts.deep === true && opened.signature === 'valid' && opened.signer.trusted && !opened.set;
    const fx = await checkFixity(opened, progress, signal, walkChecksPacks ? (rel) => rel.startsWith('data/packs/') : undefined);
    const fixityProblems = [...fx.problems];
    report.filesChecked = fx.files;
    report.bytesChecked = fx.bytes;
    const shipment = opened;
    const settleFixity = async (): Promise<void> => {
      problems.push(...fixityProblems);
      report.fixity = fixityProblems.length === 0 ? 'ok' : 'failed';
      if (fixityProblems.length > 0 && shipment.info.recovery > 0) {
        try {
          const dir = shipment.dir;
          const failing = fixityProblems.flatMap((p) => (p.path !== undefined && p.path.startsWith(dir + '/') ? [p.path.slice(dir.length + 1)] : []));
          const { repairStatus } = await import('../drive/repair.js');
          report.repair = await repairStatus(shipment, failing, signal);
        } catch (e) {
          asProblem(e);
        }
      }
    };
    if (!walkChecksPacks) await settleFixity();
    const others = opened.set ? await setDrives(opened, opts.drives ?? [], trustedVerifiers(ctx.catalog)) : new Map<number, string>();
    if (opened.set) {
      const st = setStatus(opened.set, [opened.info.bagIndex - 1, ...others.keys()]);
      report.set = {
        drive: opened.info.bagIndex,
        ...st,
        found: [[opened.info.bagIndex - 1, found.dir] as const, ...others].map(([i, path]) => ({ drive: i + 1, path })).sort((a, b) => a.drive - b.drive),
      };
    }
    if (opts.deep && (opened.signature !== 'valid' || !opened.signer.trusted)) {
      // Nothing from a drive is decrypted or decoded before its signature checks out.
      problems.push({
        code: 'UNTRUSTED_PUBLISHER',
        message: `deep verify skipped: the signature of shipment ${opened.id} is ${opened.signature === 'valid' ? 'by a key not trusted here' : opened.signature}`,
      });
    } else if (opts.deep) {
      progress.phase = 'deep-verify';
      progress.bytesDone = 0;
      progress.filesDone = 0;
      progress.bytesTotal = opened.info.bytes;
      progress.filesTotal = opened.info.files;
      let scratch: string | null = null;
      try {
        let whole = opened;
        if (opened.set) {
          const m = await openMembers([found.dir, ...others.values()], trustedVerifiers(ctx.catalog), found.id);
          requireRecoverable(m);
          scratch = await mkdtemp(join(tmpdir(), 'brickpost-rebuild-'));
          const lost = lostShares(m);
          await requireSpace(
            scratch,
            lost.reduce((a, x) => a + x.bytes, 0),
            {
              where: 'temporary folder',
              what: `rebuilding data drive ${lost.map((x) => x.index + 1).join(', ')} from parity`,
              hint: 'free some space there, set TMPDIR to a folder with room, or give the missing drives',
            },
          );
          const { rebuildMissing } = await import('../drive/rebuild.js');
          await rebuildMissing(m, scratch, undefined, signal);
          whole = mergedShipment(m, scratch);
        }
        const { walkShipment } = await import('./walk-shipment.js');
        const t = await walkShipment({ ...whole, maxExpansion }, identityText, {}, progress, signal);
        report.chunksChecked = t.decoded;
        report.refsCovered = t.chunks - t.held;
        report.chunksHeld = t.held;
        report.deep = 'ok';
        if (walkChecksPacks) {
          report.filesChecked += fx.deferred.jobs.length;
          report.bytesChecked += fx.deferred.bytes;
        }
      } catch (e) {
        report.deep = 'failed';
        if (walkChecksPacks && !stops(e)) {
          progress.phase = 'verify';
          progress.bytesDone = 0;
          progress.filesDone = 0;
          const packs = await checkDeferred(fx.deferred, progress, signal);
          fixityProblems.push(...packs.problems);
          report.filesChecked += packs.files;
          report.bytesChecked += packs.bytes;
          await settleFixity();
        }
        asProblem(e);
      } finally {
        if (scratch) await removeTree(scratch);
      }
    }
    if (walkChecksPacks && report.fixity === 'skipped') await settleFixity();
  }
  progress.emit();
  report.ok = problems.length === 0;
  if (opened?.signature === 'valid' && opened.signer.trusted) noteSeen(ctx, opened.info);
  if (opened) report.custody = await recordVerified(ctx, opened, { deep: opts.deep === true, ok: report.ok, problems: problems.length }, onEvent);
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
