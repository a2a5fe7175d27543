// Steps 3 and 4 of an ingest (ingest.ts): plan the shipment against DEST's tree, then stage what changes.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { age, BrickpostError, type ManifestRecord, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, IngestOptions } from '../api/index.js';
import { chunkKey } from '../chunk/index.js';
import type { Context } from '../context.js';
import type { OpenedShipment } from '../drive/open.js';
import { rebuildMissing } from '../drive/rebuild.js';
import { lostShares, mergedShipment, type SetMembers } from '../drive/set.js';
import { makeFolders } from '../io/folders.js';
import { Progress } from '../io/progress.js';
import { SpaceBudget } from '../io/space.js';
import { CAN_SYNC_FS, syncFilesystem } from '../io/sync.js';
import type { Identity } from '../keys/index.js';
import { damagedFiles, findDamage } from '../verify/damage.js';
import { readManifest, readManifestFile } from '../verify/manifest-stream.js';
import { MAX_QUEUED_BYTES, walkShipment } from '../verify/walk-shipment.js';
import { loadOldTree, oldFilesFromManifest, planApply, type OldFile, type Plan, type PlanOptions } from './apply-plan.js';
import { AttrApplier } from './attrs.js';
import { collisionError, probeDest, type DestCaps } from './dest-caps.js';
import type { DestDb } from './dest-db.js';
import { writeSkipped } from './lists.js';
import { PlanGate } from './plan-gate.js';
import { PlannedDirs } from './planned-dirs.js';
import { RecordStash } from './record-stash.js';
import type { ApplyPolicy } from './policy.js';
import { discardPrestored, prestoreFor, prestoreUndo } from './prestore.js';
import { refuse } from './request.js';
import { scanOldTree } from './seed.js';
import { Stager } from './staged-files.js';
import { StagingWriter } from './staging-writer.js';
import { STATE_DIR, type AppliedShipment, type DestFolder, type DestState } from './state.js';
import type { Prestored } from './undo-compact.js';
import { removeTree } from '../io/remove-tree.js';

/** What the steps of one ingest share. */
export interface Run {
  ctx: Context;
  opts: IngestOptions;
  onEvent: EventSink;
  signal: AbortSignal | undefined;
  me: Identity;
  identities: age.Identity[];
  policy: ApplyPolicy;
  dest: string;
  folder: DestFolder;
  db: DestDb;
  members: SetMembers;
  /** The shipment, reading its manifest from the local copy. */
  s: OpenedShipment;
  h: ShipmentRecord;
  state: DestState | null;
  /** The shipment DEST holds, if any. */
  current: AppliedShipment | undefined;
}

/** What step 3 prepares before it plans. */
export interface Prepared {
  key: Buffer;
  caps: DestCaps;
  /** The data drives of a set that are missing, to rebuild. */
  lost: ReturnType<typeof lostShares>;
  /** DEST's current tree, for a request file. */
  oldTree: () => AsyncIterable<OldFile>;
  /** The shipment's folders, for the commit's last phase. */
  dirs: PlannedDirs;
  /** Free space on DEST, taken as the plan streams. */
  room: SpaceBudget;
}

/** What step 3 decided. */
export interface Planned extends Prepared {
  plan: Plan;
}

/**
 * Steps 3 and 4. Where DEST holds nothing yet and the shipment needs
 * nothing from it (a first ingest into an empty folder, the bulk of a
 * first delivery), the staging walk runs behind the plan rather than
 * after it (PlanGate): the plan's work on the JavaScript thread overlaps
 * the writing of the files on the stage writer's, which is what bounds a
 * tree of many small files. Everything a refusal needs is still decided
 * before DEST changes: the commit starts only once both ended.
 */
export async function planAndStage(run: Run): Promise<{ planned: Planned; staged: Staged }> {
  const prepared = await preparePlan(run);
  if (!(await overlaps(run, prepared))) {
    const stash = new RecordStash();
    const planned = { ...prepared, plan: await makePlan(run, prepared, { stash }) };
    await refuseUnplannable(run, planned);
    const totals = { bytes: planned.plan.bytesToStage, files: planned.plan.filesStaged };
    return { planned, staged: await stageFiles(run, planned, totals, undefined, stash.records()) };
  }
  const gate = new PlanGate();
  const planning = makePlan(run, prepared, { gate }).then(
    (plan) => (gate.ended(), plan),
    (e: unknown) => {
      gate.ended(e);
      throw e;
    },
  );
  planning.catch(() => undefined);
  // Everything is staged here: the shipment's totals are what the walk writes.
  let staged: Staged;
  try {
    staged = await stageFiles(run, prepared, { bytes: run.s.info.bytes, files: run.s.info.files }, gate);
  } catch (e) {
    // Also where staging failed before its walk: the plan must have stopped before the journal is closed.
    await gate.halt(e);
    throw e;
  }
  let planned: Planned;
  try {
    planned = { ...prepared, plan: await planning };
    await refuseUnplannable(run, planned);
  } catch (e) {
    await discardStaged(run, staged);
    throw e;
  }
  staged.progress.bytesTotal = planned.plan.bytesToStage;
  staged.progress.filesTotal = planned.plan.filesStaged;
  return { planned, staged };
}

/**
 * Whether the staging walk can run behind the plan: DEST is an empty
 * folder (nothing to keep, retire or copy from), the shipment is
 * self-contained, no drive of a set is rebuilt and no damage is looked
 * for first, and DEST tells names apart exactly as the manifest does.
 */
async function overlaps(run: Run, p: Prepared): Promise<boolean> {
  const { h } = run;
  if (run.current || h.bases.length > 0 || h.against !== null || p.lost.length > 0 || run.opts.skipDamaged) return false;
  if (p.caps.caseInsensitive || p.caps.normalizationInsensitive) return false;
  const names = await readdir(run.dest);
  return names.every((n) => n === STATE_DIR);
}

/** Step 3, first part: DEST's current tree loaded, its capabilities probed, free space taken. */
async function preparePlan(run: Run): Promise<Prepared> {
  const { dest, folder, db, h, current } = run;
  const key = chunkKey(Buffer.from(h.secret, 'base64'));
  // DEST's copy of the manifest it applied last went whole through the strict parser then: it is read as written now (the record checks still run).
  const oldTree = (): AsyncIterable<OldFile> =>
    current
      ? oldFilesFromManifest(dest, readManifestFile(folder.manifest(current.shipment), run.identities, { checked: true }))
      : scanOldTree(dest, key, run.signal);
  await loadOldTree(db, oldTree());
  const caps = await probeDest(dest, folder.state, run.opts.windowsNames === true);
  const lost = lostShares(run.members);
  // Free space is taken while the plan streams: a shipment needing more than DEST holds stops at once.
  const room = await SpaceBudget.of(
    dest,
    lost.reduce((a, x) => a + x.bytes, 0),
    { where: 'destination', what: 'the shipment' },
  );
  return { key, caps, lost, oldTree, dirs: new PlannedDirs(db), room };
}

/** Step 3: plans the shipment against the tree DEST holds. */
async function makePlan(run: Run, p: Prepared, pass: Pick<PlanOptions, 'gate' | 'stash'>): Promise<Plan> {
  const { caps, room, dirs } = p;
  const plan = await planApply(run.db, run.dest, run.s.id, readManifest(run.s, run.identities), {
    caps,
    policy: run.policy,
    room,
    dirs,
    ...pass,
  });
  // The plan read the manifest's copy whole through the strict parser: later passes read it again faster.
  run.s.manifestChecked = true;
  return plan;
}

/** Refuses the shipment when names would collide on DEST, or when DEST lacks data it builds on (with a request file for the publisher). */
async function refuseUnplannable(run: Run, planned: Planned): Promise<void> {
  const { plan } = planned;
  if (plan.collisionCount > 0) throw collisionError(run.dest, planned.caps, plan.collisions, plan.collisionCount);
  if (plan.missing.length > 0) {
    throw await refuse(run.ctx, run.folder, run.s, run.h, run.state, plan.missing, run.opts.requestOut, planned.oldTree);
  }
}

/** What step 4 built. */
export interface Staged {
  /** Where missing drives of a set were rebuilt. */
  rebuilt: string;
  skipped: Set<string>;
  skippedList: string | null;
  stager: Stager;
  writer: StagingWriter;
  applier: AttrApplier;
  progress: Progress;
  /** Chunks of the large files the commit retires, stored meanwhile for the undo store. */
  pre: Prestored;
}

/**
 * Step 4: rebuilds the missing drives of a set, then builds every new or
 * changed file in the staging folder. With --skip-damaged, files with
 * chunks in damaged parts of packs are left out (and listed). Meanwhile,
 * the large files the commit will retire go into the undo store on the
 * chunk pipeline's threads (prestore.ts), to be recorded after the commit.
 */
export async function stageFiles(
  run: Run,
  planned: Prepared,
  totals: { bytes: number; files: number },
  gate?: PlanGate,
  /** The records of the files the plan staged, when it kept them (RecordStash): the walk goes through those, not the manifest. */
  stashed?: readonly ManifestRecord[] | null,
): Promise<Staged> {
  const { folder, s, onEvent, signal, me, opts, policy } = run;
  const { lost } = planned;
  const rebuilt = join(folder.state, 'rebuild', s.id);
  if (lost.length > 0) {
    const rp = new Progress(onEvent, 'rebuild');
    rp.bytesTotal = lost.reduce((a, x) => a + x.bytes, 0);
    await rebuildMissing(run.members, rebuilt, rp, signal);
    rp.emit();
  }
  const merged = mergedShipment(run.members, lost.length > 0 ? rebuilt : null);
  // Behind the plan, the walk takes the records the plan read; past a file too large to hold them for (PlanGate), it reads the
  // manifest itself, without the strict parser: it acts on a record only once the plan's strict pass accepted it.
  const whole = gate ? { ...merged, manifestChecked: true } : merged;
  const damage = opts.skipDamaged ? await findDamage(whole, me.ageIdentity, signal) : new Map<number, Array<[number, number]>>();
  const skipped = damage.size > 0 ? await damagedFiles(whole, me.ageIdentity, damage) : new Set<string>();

  const staging = folder.staging(s.id);
  await removeTree(staging);
  await makeFolders(staging, 0o700);
  const applier = new AttrApplier(policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
  const writer = new StagingWriter(staging, !CAN_SYNC_FS, policy, applier);
  const progress = new Progress(onEvent, 'ingest');
  progress.bytesTotal = totals.bytes;
  progress.filesTotal = totals.files;
  progress.emit();
  const ahead = prestoreFor(folder, run.db, s.id);
  const stager = new Stager(run.db, s.id, run.dest, writer, planned.key, ahead.pre);
  stager.skip = skipped;
  // Behind the plan, its ops are read as it writes them, and its transaction holds the walk's lookups.
  if (gate) stager.planning = () => gate.planning;
  let failed = false;
  const prestoring = prestoreUndo(folder, run.db, ahead, planned.key, () => failed || signal?.aborted === true);
  let pre: Prestored;
  try {
    // The walk looks each file up in the journal: one transaction for all, not a lock and an unlock of the journal each.
    if (!gate) run.db.begin();
    // The undo store reads and compresses the files retired beside the walk: the walk holds a quarter as much ahead meanwhile,
    // so the two stay within the memory bound (the 2 GiB bench's second ingest peaked at 209 MB with the full amount, 187 MB so).
    const aheadBytes = ahead.wanted.length > 0 ? MAX_QUEUED_BYTES / 4 : MAX_QUEUED_BYTES;
    await walkShipment(whole, me.ageIdentity, stager, progress, signal, new Set(damage.keys()), aheadBytes, gate, stashed);
    stager.checkAllMet();
    await writer.flush();
    if (!gate) run.db.commit();
    pre = await prestoring;
    if (CAN_SYNC_FS) await syncFilesystem(staging);
  } catch (err) {
    failed = true;
    // Behind the plan: the plan stops (rolling its transaction back) before anything is cleared, and a failure of its own is the one to report.
    const e = gate ? await gate.halt(err) : err;
    if (!gate) run.db.rollback();
    await discardPrestored(folder, await prestoring);
    writer.abort();
    stager.close();
    await removeTree(staging).catch(() => undefined);
    if (e instanceof BrickpostError && e.code === 'BASIS_MISSING' && e.path) {
      throw await refuse(run.ctx, folder, s, run.h, run.state, [{ path: e.path, reason: e.message }], opts.requestOut, planned.oldTree);
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
  return { rebuilt, skipped, skippedList, stager, writer, applier, progress, pre };
}

/** Clears what step 4 built, for a shipment refused after it (planAndStage). */
async function discardStaged(run: Run, staged: Staged): Promise<void> {
  await discardPrestored(run.folder, staged.pre);
  await removeTree(run.folder.staging(run.s.id)).catch(() => undefined);
}
