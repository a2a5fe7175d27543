import { rename } from 'node:fs/promises';
import { makeFolders } from '../io/folders.js';
import { jobFailure, tidy } from './failures.js';
import { join, resolve } from 'node:path';
import { age, BrickpostError, MANIFEST_PATH, quote, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, IngestOptions, IngestSummary } from '../api/index.js';
import type { Context } from '../context.js';
import { recordIngested } from '../custody/index.js';
import type { OpenedShipment, TrustedSigner } from '../drive/open.js';
import { payloadBound } from '../drive/payload-bound.js';
import { copyDriveFile } from '../io/read-limited.js';
import { withDriveHint } from '../drive/read-hint.js';
import { openMembers, setDrives, setStatus, type SetMembers } from '../drive/set.js';
import { trustedVerifiers } from '../keys/index.js';
import { readManifest } from '../verify/manifest-stream.js';
import { describeCreated } from '../verify/created.js';
import type { ExpansionLimit } from '../drive/open.js';
import { expansionLimit } from '../verify/expansion.js';
import { checkChain, checkNotOlder } from './chain.js';
import { chooseShipment } from './choose.js';
import { checkNotExpired } from './expiry.js';
import { runApply, UNDO_KEEP } from './commit.js';
import { retentionFields, retentionOf } from './retention.js';
import { noteSeen } from '../catalog/seen.js';
import { removeMarker, writeMarker } from './marker.js';
import { settle } from './settle.js';
import { DestDb, type JournalRow } from './dest-db.js';
import { reconcileIngests } from '../catalog/ingests.js';
import { pausepoint } from '../io/failpoint.js';
import { withGathered } from './gather.js';
import { afterCommit, recordBeforeCommit, recordOf } from './record.js';
import { merge, writeNotApplied } from './lists.js';
import { policyOf } from './policy.js';
import { discardPrestored } from './prestore.js';
import { DestFolder, prepareDest, type AppliedShipment, type DestState } from './state.js';
import { planAndStage, type Planned, type Run, type Staged } from './steps.js';
import { removeTree } from '../io/remove-tree.js';

/**
 * Applies a shipment to a destination folder, so that DEST becomes the
 * shipment's tree: a self-contained shipment into an empty folder, or a
 * shipment relative to what DEST holds (FORMAT.md §10.4). Steps:
 *
 * 1. authenticate (openMembers, takeManifest): the publisher's signature
 *    (against the trust store) and the tag files are checked before
 *    anything else on the drive is read;
 * 2. checkFollows: the shipment must follow DEST's chain (replay, gap and
 *    fork refused);
 * 3. planAndStage: DEST's current tree (its stored manifest, each file
 *    checked with lstat) against the shipment's; what DEST lacks refuses
 *    the shipment before anything changes, with a request file for the
 *    publisher;
 * 4. planAndStage, staging: every new or changed file is built in
 *    DEST/.brickpost/staging from the drive (each chunk checked against its
 *    keyed id, each pack against its signed SHA-256), from chunks of DEST's
 *    files and from deltas against them (each rebuilt chunk checked against
 *    its id); unchanged files are not touched, moved files are copies of
 *    the old one;
 * 5. commitStaged, journaled (commit.ts): a crash leaves DEST at the old
 *    tree, or resumable to the new one by running ingest again.
 * @throws BrickpostError authenticity, integrity, unsafe, chain (CHAIN_REPLAY, CHAIN_GAP, CHAIN_FORK, BASIS_MISSING, DATASET_MISMATCH), environment, LOCKED, USAGE
 */
export async function ingest(ctx: Context, opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const identities = age.parseIdentityFile(me.ageIdentity);
  const trusted = trustedVerifiers(ctx.catalog);
  const drives = [opts.drive, ...(opts.drives ?? [])];
  const choice = opts.shipment === undefined ? await chooseShipment(opts.drive, opts.dest) : null;
  const given = await authenticate(drives, trusted, opts.shipment ?? choice?.chosen.id);
  if (opts.keepUndo !== undefined && (!Number.isSafeInteger(opts.keepUndo) || opts.keepUndo < 0 || opts.keepUndo > 1000)) {
    throw new BrickpostError('USAGE', `--keep-undo ${String(opts.keepUndo)} must be a whole number from 0 to 1000, or 'all'`);
  }
  if (opts.keepDays !== undefined && (!Number.isSafeInteger(opts.keepDays) || opts.keepDays < 0 || opts.keepDays > 100_000)) {
    throw new BrickpostError('USAGE', `--keep-days ${String(opts.keepDays)} must be a whole number of days from 0 to 100000`);
  }
  const policy = policyOf(opts);
  const maxExpansion = expansionLimit(opts.maxExpansion);
  const dest = await prepareDest(opts.dest);
  const folder = new DestFolder(dest);
  await folder.ensure();
  const unlock = await folder.lock('ingest');
  const db = await DestDb.openLocked(folder.state, unlock);
  let failed = false;
  let caps: IngestSummary['destination'] | null = null;
  try {
    const members = await withGathered(given, folder.state, opts.gather === true, trusted, onEvent);
    await settle(folder, db, identities, onEvent);
    // Staged files of an ingest that died before its commit are of no use.
    await removeTree(join(folder.state, 'staging'));
    const state = await folder.readState();
    if (state) reconcileIngests(ctx.catalog, dest, state.applied);
    const { s, h, incoming } = await takeManifest(given.first, members, folder, identities, maxExpansion);
    const run: Run = {
      ctx,
      opts,
      onEvent,
      signal,
      me,
      identities,
      policy,
      dest,
      folder,
      db,
      members,
      s,
      h,
      state,
      current: state?.applied[state.applied.length - 1],
    };
    const summary = (extra: Partial<IngestSummary>): IngestSummary => ({
      shipmentId: s.id,
      dataset: s.info.dataset,
      seq: s.info.seq,
      created: s.info.created,
      dest,
      files: 0,
      dirs: 0,
      bytesWritten: 0,
      alreadyApplied: false,
      incremental: h.bases.length > 0 || h.against !== null,
      filesUnchanged: 0,
      filesWritten: 0,
      filesLinked: 0,
      retired: 0,
      bytesFromDrive: 0,
      bytesReused: 0,
      chunksFromDelta: 0,
      seconds: (performance.now() - started) / 1000,
      warnings: 0,
      skipped: 0,
      skippedList: null,
      laterOnDrive: (choice?.later ?? []).map((l) => ({ shipmentId: l.id, seq: l.seq!, label: l.label ?? '' })),
      links: 0,
      hardLinks: 0,
      specials: 0,
      notApplied: {},
      notAppliedList: null,
      destination: caps ?? { caseInsensitive: false, normalizationInsensitive: false, windowsNames: false },
      ...extra,
    });
    if (run.current?.shipment === s.id) return summary({ alreadyApplied: true });
    await checkFollows(run);
    const { planned, staged } = await planAndStage(run);
    caps = planned.caps;
    const notAppliedList = await commitStaged(run, planned, staged, incoming, given);
    const { plan } = planned;
    const { stager, writer } = staged;
    return summary({
      files: s.info.files,
      dirs: s.info.entries - s.info.files - plan.links - plan.hardLinks - plan.specials,
      bytesWritten: writer.bytes,
      filesUnchanged: plan.filesKept,
      filesWritten: writer.files - stager.linked,
      filesLinked: stager.linked,
      retired: plan.retired,
      bytesFromDrive: stager.bytesFromDrive,
      bytesReused: stager.bytesReused,
      chunksFromDelta: stager.deltas,
      skipped: staged.skipped.size,
      skippedList: staged.skippedList,
      links: plan.links,
      hardLinks: plan.hardLinks,
      specials: plan.specials,
      notApplied: merge(plan.notApplied, staged.applier.notApplied),
      notAppliedList,
    });
  } catch (e) {
    failed = true;
    throw jobFailure(
      withDriveHint(e, [...given.members.values()]),
      'ingest failed',
      { drives: drives.map((d) => resolve(d)), dest, home: ctx.home },
      'run the same command again (the destination was not changed)',
    );
  } finally {
    await tidy([join(folder.state, 'incoming')], onEvent);
    const closing = db.closeAfter(failed);
    await unlock().catch((e: unknown) =>
      onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot release the lock of ${quote(dest)}: ${(e as Error).message}` }),
    );
    // A journal that could not be synced fails the command, which must not report success.
    // eslint-disable-next-line no-unsafe-finally, @typescript-eslint/only-throw-error -- a journal that could not be synced fails the command
    if (closing !== null) throw closing;
  }
}

/**
 * Step 1: opens the drives given, each checked (signature against the
 * trust store, tag files) before anything else on it is read; for a set
 * short of drives, the drives of the set mounted next to them count too.
 */
async function authenticate(drives: string[], trusted: TrustedSigner[], shipment: string | undefined): Promise<SetMembers> {
  const given = await openMembers(drives, trusted, shipment);
  if (given.set && !setStatus(given.set, given.members.keys()).recoverable) {
    const more = [...(await setDrives(given.first, [], trusted))].filter(([i]) => !given.members.has(i)).map(([, dir]) => dir);
    if (more.length > 0) return openMembers([...drives, ...more], trusted, given.first.id);
  }
  return given;
}

/**
 * Step 1, continued: copies the manifest into DEST's state folder, checked
 * against its signed digest as it is made, and reads its header. Every
 * pass reads that one local copy: a drive that answered two reads of the
 * manifest differently cannot make the passes disagree.
 */
async function takeManifest(
  first: OpenedShipment,
  members: SetMembers,
  folder: DestFolder,
  identities: age.Identity[],
  maxExpansion: ExpansionLimit,
): Promise<{ s: OpenedShipment; h: ShipmentRecord; incoming: string }> {
  const incoming = join(folder.state, 'incoming', `${first.id}.age`);
  await copyDriveFile(join(first.dir, MANIFEST_PATH), incoming, first.payload.get(MANIFEST_PATH)!, MANIFEST_PATH, payloadBound(first, MANIFEST_PATH));
  const s: OpenedShipment = { ...first, manifestFile: incoming, maxExpansion };
  members.first = s;
  let header: ShipmentRecord | null = null;
  for await (const r of readManifest(s, identities)) {
    if (r.t === 'shipment') header = r;
    break;
  }
  return { s, h: header!, incoming };
}

/** Step 2: the shipment follows DEST's chain, is not older than one applied elsewhere, and has not expired. */
async function checkFollows(run: Run): Promise<void> {
  const { s, h, state } = run;
  await checkChain(run.dest, s, h, state);
  if (!state) checkNotOlder(run.ctx.catalog, s, h, run.opts.allowOlder === true);
  checkNotExpired(s, run.opts.allowExpired === true);
  const packed = describeCreated(s.info.created);
  if (packed.warning) run.onEvent({ type: 'warning', code: 'CREATED_IN_FUTURE', message: `shipment ${s.id}: ${packed.warning}` });
}

/**
 * Step 5: records the ingest in the catalog (before DEST changes: a
 * catalog that cannot be written stops it here), then commits the staged
 * tree through the journal, and records custody. Returns the list of what
 * was not applied, or null.
 */
async function commitStaged(run: Run, planned: Planned, staged: Staged, incoming: string, given: SetMembers): Promise<string | null> {
  const { ctx, folder, db, s, h, state, current, dest, onEvent, policy } = run;
  const { plan } = planned;
  const { stager, writer, progress } = staged;
  const keep = run.opts.keepUndo ?? state?.keepUndo ?? UNDO_KEEP;
  const retention = retentionOf(state, keep);
  if (run.opts.keepAll !== undefined) retention.keepAll = run.opts.keepAll;
  if (run.opts.keepDays !== undefined) retention.keepDays = run.opts.keepDays;
  const applied: AppliedShipment = {
    shipment: s.id,
    seq: s.info.seq,
    parent: h.parent,
    label: s.info.label,
    appliedAt: new Date().toISOString(),
    files: s.info.files,
    bytes: s.info.bytes,
    bytesFromDrive: stager.bytesFromDrive,
  };
  const next: DestState = {
    format: 'brickpost-dest/v1',
    publisher: s.info.publisherKey,
    datasetId: s.info.datasetId,
    dataset: s.info.dataset,
    ...retentionFields(retention),
    policy,
    applied: [...(state?.applied ?? []), applied],
  };
  const j: JournalRow = { shipment: s.id, kind: 'apply', phase: 'retire', state: JSON.stringify(next), policy };
  let notAppliedList: string | null;
  try {
    // The encrypted manifest stays with the destination: it says what each file holds.
    await makeFolders(folder.manifests, 0o700);
    await rename(incoming, folder.manifest(s.id));
    progress.phase = 'commit';
    progress.emit();
    notAppliedList = plan.notAppliedList.length > 0 ? await writeNotApplied(folder.state, s.id, plan.notAppliedList) : null;
    // The catalog is written before DEST commits: one that cannot be (locked, read-only) stops the ingest here, DEST untouched.
    recordBeforeCommit(ctx, { ...recordOf(s, h), dest, files: s.info.files, bytes: writer.bytes });
    await writeMarker(folder, { kind: 'ingest', shipment: s.id, seq: s.info.seq, from: current ? { shipment: current.shipment, seq: current.seq } : null });
  } catch (e) {
    // No commit: the chunks stored for its undo data name nothing.
    await discardPrestored(folder, staged.pre);
    throw e;
  }
  db.setJournal(j);
  await runApply(
    folder,
    db,
    j,
    () => planned.dirs.records(),
    keep,
    staged.applier,
    (message) => onEvent({ type: 'warning', code: 'LEFT_OVER', message }),
    staged.pre,
  );
  await removeMarker(folder);
  await pausepoint('ingest-committed');
  noteSeen(ctx, s.info);
  await afterCommit(ctx, s.id, dest, onEvent, () => recordIngested(ctx, [...given.members.values()], dest, s.info.files, s.info.bytes, onEvent));
  await tidy([staged.rebuilt, join(folder.state, 'gather', s.id)], onEvent);
  progress.emit();
  return notAppliedList;
}
