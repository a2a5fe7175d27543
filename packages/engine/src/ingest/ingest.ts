import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { makeFolders } from '../io/folders.js';
import { jobFailure, tidy } from './failures.js';
import { dirname, join, resolve } from 'node:path';
import { age, BrickpostError, MANIFEST_PATH, quote, toField, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, IngestOptions, IngestSummary } from '../api.js';
import { chunkKey } from '../chunk/index.js';
import type { Context } from '../context.js';
import { recordIngested } from '../custody/index.js';
import type { OpenedShipment } from '../drive/open.js';
import { payloadBound } from '../drive/payload-bound.js';
import { SpaceBudget } from '../io/space.js';
import { copyDriveFile } from '../io/read-limited.js';
import { withDriveHint } from '../drive/read-hint.js';
import { rebuildMissing } from '../drive/rebuild.js';
import { lostShares, mergedShipment, openMembers, setDrives, setStatus } from '../drive/set.js';
import { toEnvironmentError } from '../io/errors.js';
import { Progress } from '../io/progress.js';
import { CAN_SYNC_FS, syncFilesystem } from '../io/sync.js';
import { trustedVerifiers } from '../keys/index.js';
import { readManifest, readManifestFile } from '../verify/manifest-stream.js';
import { damagedFiles, findDamage } from '../verify/damage.js';
import { describeCreated } from '../verify/created.js';
import { expansionLimit } from '../verify/expansion.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { checkChain, checkNotOlder } from './chain.js';
import { chooseShipment } from './choose.js';
import { checkNotExpired } from './expiry.js';
import { runApply, UNDO_KEEP } from './commit.js';
import { removeMarker, writeMarker } from './marker.js';
import { settle } from './settle.js';
import { DestDb, type JournalRow } from './dest-db.js';
import { reconcileIngests } from '../catalog/ingests.js';
import { pausepoint } from '../io/failpoint.js';
import { withGathered } from './gather.js';
import { afterCommit, recordBeforeCommit, recordOf } from './record.js';
import { loadOldTree, missingError, oldFilesFromManifest, planApply, type Missing, type OldFile } from './apply-plan.js';
import { AttrApplier } from './attrs.js';
import { collisionError, probeDest } from './dest-caps.js';
import { policyOf } from './policy.js';
import { writeRequest } from './request.js';
import { scanOldTree } from './seed.js';
import { StagingWriter } from './staging-writer.js';
import { Stager } from './staged-files.js';
import { DestFolder, realDest, type AppliedShipment, type DestState } from './state.js';

/**
 * Applies a shipment to a destination folder, so that DEST becomes the
 * shipment's tree: a self-contained shipment into an empty folder, or a
 * shipment relative to what DEST holds (FORMAT.md §10.4). Steps:
 *
 * 1. the publisher's signature (against the trust store) and the tag files
 *    are checked before anything else on the drive is read;
 * 2. the shipment must follow DEST's chain (replay, gap and fork refused);
 * 3. plan: DEST's current tree (its stored manifest, each file checked with
 *    lstat) against the shipment's; what DEST lacks refuses the shipment
 *    before anything changes, with a request file for the publisher;
 * 4. stage: every new or changed file is built in DEST/.brickpost/staging
 *    from the drive (each chunk checked against its keyed id, each pack
 *    against its signed SHA-256), from chunks of DEST's files and from
 *    deltas against them (each rebuilt chunk checked against its id);
 *    unchanged files are not touched, moved files are copies of the old one;
 * 5. commit, journaled (commit.ts): a crash leaves DEST at the old tree, or
 *    resumable to the new one by running ingest again.
 * @throws BrickpostError authenticity, integrity, unsafe, chain (CHAIN_REPLAY, CHAIN_GAP, CHAIN_FORK, BASIS_MISSING, DATASET_MISMATCH), environment, LOCKED, USAGE
 */
export async function ingest(ctx: Context, opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const identities = age.parseIdentityFile(me.ageIdentity);
  const trusted = trustedVerifiers(ctx.catalog);
  const drives = [opts.drive, ...(opts.drives ?? [])];
  const choice = opts.shipment === undefined ? await chooseShipment(opts.drive, opts.dest) : null;
  let given = await openMembers(drives, trusted, opts.shipment ?? choice?.chosen.id);
  if (given.set && !setStatus(given.set, given.members.keys()).recoverable) {
    // Drives of the set mounted next to the ones given count too.
    const more = [...(await setDrives(given.first, [], trusted))].filter(([i]) => !given.members.has(i)).map(([, dir]) => dir);
    if (more.length > 0) given = await openMembers([...drives, ...more], trusted, given.first.id);
  }
  let s = given.first;
  if (opts.keepUndo !== undefined && (!Number.isSafeInteger(opts.keepUndo) || opts.keepUndo < 0 || opts.keepUndo > 1000)) {
    throw new BrickpostError('USAGE', `--keep-undo ${String(opts.keepUndo)} must be a whole number from 0 to 1000`);
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
    await rm(join(folder.state, 'staging'), { recursive: true, force: true });
    const state = await folder.readState();
    if (state) reconcileIngests(ctx.catalog, dest, state.applied);
    // Every pass reads one local copy, checked against the signed digest as it is made: a drive
    // that answered two reads of the manifest differently cannot make the passes disagree.
    const incoming = join(folder.state, 'incoming', `${s.id}.age`);
    await copyDriveFile(join(s.dir, MANIFEST_PATH), incoming, s.payload.get(MANIFEST_PATH)!, MANIFEST_PATH, payloadBound(s, MANIFEST_PATH));
    s = { ...s, manifestFile: incoming, maxExpansion };
    members.first = s;
    let header: ShipmentRecord | null = null;
    for await (const r of readManifest(s, identities)) {
      if (r.t === 'shipment') header = r;
      break;
    }
    const h = header!;
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
    const current = state?.applied[state.applied.length - 1];
    if (current?.shipment === s.id) return summary({ alreadyApplied: true });
    await checkChain(dest, s, h, state);
    if (!state) checkNotOlder(ctx.catalog.db, s, h, opts.allowOlder === true);
    checkNotExpired(s, opts.allowExpired === true);
    const packed = describeCreated(s.info.created);
    if (packed.warning) onEvent({ type: 'warning', code: 'CREATED_IN_FUTURE', message: `shipment ${s.id}: ${packed.warning}` });

    // Plan against the tree DEST holds.
    const key = chunkKey(Buffer.from(h.secret, 'base64'));
    const oldTree = (): AsyncIterable<OldFile> =>
      current ? oldFilesFromManifest(dest, readManifestFile(folder.manifest(current.shipment), identities)) : scanOldTree(dest, key, signal);
    await loadOldTree(db, oldTree());
    caps = await probeDest(dest, folder.state, opts.windowsNames === true);
    const lost = lostShares(members);
    // Free space is taken while the plan streams: a shipment needing more than DEST holds stops at once.
    const room = await SpaceBudget.of(dest, lost.reduce((a, x) => a + x.bytes, 0), { where: 'destination', what: 'the shipment' });
    const plan = await planApply(db, dest, s.id, readManifest(s, identities), { caps, policy, room });
    if (plan.collisionCount > 0) throw collisionError(dest, caps, plan.collisions, plan.collisionCount);
    if (plan.missing.length > 0) {
      throw await refuse(ctx, folder, s, h, state, plan.missing, opts.requestOut, oldTree);
    }
    const rebuilt = join(folder.state, 'rebuild', s.id);
    if (lost.length > 0) {
      const rp = new Progress(onEvent, 'rebuild');
      rp.bytesTotal = lost.reduce((a, x) => a + x.bytes, 0);
      await rebuildMissing(members, rebuilt, rp, signal);
      rp.emit();
    }
    const whole = mergedShipment(members, lost.length > 0 ? rebuilt : null);
    // With --skip-damaged, files with chunks in damaged parts of packs are left out (and listed).
    const damage = opts.skipDamaged ? await findDamage(whole, me.ageIdentity, signal) : new Map<number, Array<[number, number]>>();
    const skipped = damage.size > 0 ? await damagedFiles(whole, me.ageIdentity, damage) : new Set<string>();

    const staging = folder.staging(s.id);
    await rm(staging, { recursive: true, force: true });
    await makeFolders(staging, 0o700);
    const applier = new AttrApplier(policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
    const writer = new StagingWriter(staging, !CAN_SYNC_FS, policy, applier);
    const progress = new Progress(onEvent, 'ingest');
    progress.bytesTotal = plan.bytesToStage;
    progress.filesTotal = plan.filesStaged;
    progress.emit();
    const stager = new Stager(db, dest, writer, key);
    stager.skip = skipped;
    try {
      await walkShipment(whole, me.ageIdentity, stager, progress, signal, new Set(damage.keys()));
      if (CAN_SYNC_FS) await syncFilesystem(staging);
    } catch (e) {
      writer.abort();
      stager.close();
      await rm(staging, { recursive: true, force: true }).catch(() => undefined);
      if (e instanceof BrickpostError && e.code === 'BASIS_MISSING' && e.path) {
        throw await refuse(ctx, folder, s, h, state, [{ path: e.path, reason: e.message }], opts.requestOut, oldTree);
      }
      // A refusal of what the publisher signed (MALFORMED with its own hint) is not drive damage: its hint stays.
      if (e instanceof BrickpostError && e.category === 'integrity' && !opts.skipDamaged && !(e.code === 'MALFORMED' && e.hint)) {
        throw new BrickpostError(e.code, e.message, {
          cause: e,
          ...(e.path ? { path: e.path } : {}),
          hint: "nothing was changed; 'brickpost verify' says which files are damaged and whether 'brickpost repair' can fix them; --skip-damaged ingests the other files",
        });
      }
      throw e;
    }
    stager.close();
    const skippedList = skipped.size > 0 ? await writeSkipped(folder.state, s.id, skipped, onEvent) : null;

    const keep = opts.keepUndo ?? state?.keepUndo ?? UNDO_KEEP;
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
      keepUndo: keep,
      policy,
      applied: [...(state?.applied ?? []), applied],
    };
    // The encrypted manifest stays with the destination: it says what each file holds.
    await makeFolders(folder.manifests, 0o700);
    await rename(incoming, folder.manifest(s.id));
    progress.phase = 'commit';
    progress.emit();
    const notAppliedList = plan.notAppliedList.length > 0 ? await writeNotApplied(folder.state, s.id, plan.notAppliedList) : null;
    const j: JournalRow = { shipment: s.id, kind: 'apply', phase: 'retire', state: JSON.stringify(next), policy };
    // The catalog is written before DEST commits: one that cannot be (locked, read-only) stops the ingest here, DEST untouched.
    recordBeforeCommit(ctx, { ...recordOf(s, h), dest, files: s.info.files, bytes: writer.bytes });
    await writeMarker(folder, { kind: 'ingest', shipment: s.id, seq: s.info.seq, from: current ? { shipment: current.shipment, seq: current.seq } : null });
    db.setJournal(j);
    await runApply(folder, db, j, () => readManifestFile(folder.manifest(s.id), identities), keep, applier);
    await removeMarker(folder);
    await pausepoint('ingest-committed');
    await afterCommit(ctx, s.id, dest, onEvent, () => recordIngested(ctx, [...given.members.values()], dest, s.info.files, s.info.bytes, onEvent));
    await tidy([rebuilt, join(folder.state, 'gather', s.id)], onEvent);
    progress.emit();
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
      skipped: skipped.size,
      skippedList,
      links: plan.links,
      hardLinks: plan.hardLinks,
      specials: plan.specials,
      notApplied: merge(plan.notApplied, applier.notApplied),
      notAppliedList,
    });
  } catch (e) {
    failed = true;
    throw jobFailure(withDriveHint(e, [...given.members.values()]), 'ingest failed', { drives: drives.map((d) => resolve(d)), dest, home: ctx.home }, 'run the same command again (the destination was not changed)');
  } finally {
    await tidy([join(folder.state, 'incoming')], onEvent);
    const closing = db.closeAfter(failed);
    await unlock().catch((e: unknown) => onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot release the lock of ${quote(dest)}: ${(e as Error).message}` }));
    // A journal that could not be synced fails the command, which must not report success.
    // eslint-disable-next-line no-unsafe-finally, @typescript-eslint/only-throw-error -- a journal that could not be synced fails the command
    if (closing !== null) throw closing;
  }
}

/**
 * DEST as a real folder, created when absent; a symbolic link the user made
 * to a folder is resolved here, once (realDest), and a dangling one refused.
 */
async function prepareDest(destPath: string): Promise<string> {
  const dest = await realDest(destPath);
  const st = await lstat(dest).catch(() => null);
  if (!st) {
    await mkdir(dest, { recursive: false, mode: 0o755 }).catch((e: unknown) => {
      throw toEnvironmentError(e, 'cannot create the destination');
    });
  } else if (st.isSymbolicLink()) {
    throw new BrickpostError('UNSAFE_ENTRY', `destination ${quote(dest)} is a symbolic link to nothing`, { hint: 'give an existing folder, or a path where one can be created' });
  } else if (!st.isDirectory()) {
    throw new BrickpostError('USAGE', `destination ${quote(dest)} is not a folder`);
  }
  return dest;
}

/** Writes a request file naming what DEST holds and lacks, and returns the error refusing the shipment. */
async function refuse(
  ctx: Context,
  folder: DestFolder,
  s: OpenedShipment,
  h: ShipmentRecord,
  state: DestState | null,
  missing: Missing[],
  requestOut: string | undefined,
  oldTree: () => AsyncIterable<OldFile>,
): Promise<BrickpostError> {
  const file = resolve(requestOut ?? join(folder.state, 'requests', `${s.id}.bpsig`));
  try {
    await makeFolders(dirname(file), 0o700);
    const cur = state?.applied[state.applied.length - 1];
    await writeRequest(ctx, file, h, cur ? { shipment: cur.shipment, seq: cur.seq } : null, missing, oldTree());
  } catch (e) {
    e;
    return missingError(missing, null);
  }
  return missingError(missing, file);
}

/** Counts by reason, added up. */
function merge(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Lists what the shipment records that this ingest did not create or apply, one JSON object per line, in DEST/.brickpost/not-applied/ID.txt. */
async function writeNotApplied(state: string, id: string, list: Array<{ path: string; reason: string }>): Promise<string> {
  const file = join(state, 'not-applied', `${id}.txt`);
  await makeFolders(dirname(file), 0o700);
  await writeFile(file, list.map((x) => JSON.stringify({ path: toField(x.path), reason: x.reason })).join('\n') + '\n');
  return file;
}

/** Lists the files --skip-damaged left out, one JSON string per line, in DEST/.brickpost/skipped/ID.txt; warns for each (the first 100). */
async function writeSkipped(state: string, id: string, skipped: Set<string>, onEvent: EventSink): Promise<string> {
  const file = join(state, 'skipped', `${id}.txt`);
  await makeFolders(dirname(file));
  await writeFile(file, [...skipped].map((p) => JSON.stringify(p)).join('\n') + '\n');
  let n = 0;
  for (const p of skipped) {
    if (++n > 100) break;
    onEvent({ type: 'warning', code: 'SKIPPED_DAMAGED', message: `skipped ${quote(p)}: its data on the drive is damaged`, path: p });
  }
  return file;
}
