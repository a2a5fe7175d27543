import { lstat } from 'node:fs/promises';
import { BrickpostError, quote, type age } from '@brickpost/manifest';
import type { EventSink, ResumeSummary } from '../api/index.js';
import { readManifestFile } from '../verify/manifest-stream.js';
import { AttrApplier } from './attrs.js';
import { runApply, runRollback, UNDO_KEEP } from './commit.js';
import { DestDb } from './dest-db.js';
import { readMarker, removeMarker } from './marker.js';
import { DestFolder, realDest, type DestState } from './state.js';
import { undoTo } from './undo.js';

/**
 * Settling a destination: before any brickpost command reads or changes
 * DEST it finishes what an interrupted ingest or rollback left (the
 * journal's step in progress, then, for a rollback over several
 * shipments, the steps still to go down to the shipment it was asked
 * for), so no command ever sees or reports a tree that is a mix of two.
 * Nothing of this needs a drive: everything is in DEST's state folder,
 * but the kept manifests are read, so the key that ingested DEST is needed.
 */

/**
 * Finishes an interrupted ingest or rollback of DEST, if any. The caller
 * holds DEST's lock. Returns what was finished (null: nothing was).
 * @throws BrickpostError UNFINISHED (the key at hand cannot read DEST's manifests), PERMISSION, IO
 */
export async function settle(folder: DestFolder, db: DestDb, identities: age.Identity[], onEvent: EventSink): Promise<string | null> {
  let done: string | null;
  try {
    await checkKey(folder, db, identities);
    done = await resumePending(folder, db, identities, onEvent);
    const marker = await readMarker(folder);
    if (!marker) return done;
    const state = await folder.readState();
    const target = state?.applied.find((a) => a.shipment === marker.shipment);
    const current = state?.applied[state.applied.length - 1];
    if (marker.kind === 'rollback' && state && target && current && current.shipment !== target.shipment) {
      onEvent({
        type: 'warning',
        code: 'RESUMED',
        message: `finishing the interrupted rollback of ${quote(folder.dest)} to shipment ${marker.shipment} (#${marker.seq})`,
      });
      await undoTo(folder, db, state, target, identities, onEvent);
      done = `the rollback to #${marker.seq}`;
    }
    // An ingest's marker outlives its commit only by a crash just after it (or just before its first change).
    await removeMarker(folder);
    return done;
  } catch (e) {
    if (e instanceof BrickpostError && e.category === 'authenticity') {
      throw new BrickpostError(
        'UNFINISHED',
        `${quote(folder.dest)} holds an interrupted ${(await readMarker(folder).catch(() => null))?.kind ?? 'ingest or rollback'} that this key cannot finish: ${e.message}`,
        {
          cause: e,
          path: folder.dest,
          hint: `run 'brickpost resume ${folder.dest}' with the home that ingested it (--home)`,
        },
      );
    }
    throw e;
  }
}

/**
 * Refuses before anything changes when the key at hand cannot read the
 * manifest that finishing needs (the commit's phases read it only at their end).
 * @throws BrickpostError authenticity (NO_MATCHING_KEY…)
 */
async function checkKey(folder: DestFolder, db: DestDb, identities: age.Identity[]): Promise<void> {
  const j = db.pending();
  const current = (j ? (JSON.parse(j.state) as DestState) : await folder.readState())?.applied.at(-1)?.shipment;
  const id = j?.kind === 'apply' ? j.shipment : (await readMarker(folder)) || j ? current : undefined;
  if (id === undefined) return;
  for await (const r of readManifestFile(folder.manifest(id), identities)) {
    r;
    break;
  }
}

/**
 * Finishes the journal's apply or rollback step a crash interrupted (its
 * phase says where). Returns what it finished, or null.
 * @throws BrickpostError PERMISSION, IO; authenticity when the manifest cannot be read with `identities`
 */
export async function resumePending(folder: DestFolder, db: DestDb, identities: age.Identity[], onEvent: EventSink): Promise<string | null> {
  const j = db.pending();
  if (!j) return null;
  const state = JSON.parse(j.state) as DestState;
  const keep = state.keepUndo ?? UNDO_KEEP;
  const applier = new AttrApplier(j.policy, (message, path) => onEvent({ type: 'warning', code: 'NOT_APPLIED', message, path }));
  if (j.kind === 'apply') {
    onEvent({ type: 'warning', code: 'RESUMED', message: `finishing the interrupted commit of shipment ${j.shipment}` });
    await runApply(
      folder,
      db,
      j,
      () => readManifestFile(folder.manifest(j.shipment), identities),
      keep,
      applier,
      (message) => onEvent({ type: 'warning', code: 'LEFT_OVER', message }),
    );
    return `the commit of shipment ${j.shipment}`;
  }
  onEvent({ type: 'warning', code: 'RESUMED', message: `finishing the interrupted rollback of shipment ${j.shipment}` });
  const to = state.applied[state.applied.length - 1]!;
  await runRollback(
    folder,
    db,
    j,
    () => readManifestFile(folder.manifest(to.shipment), identities),
    keep,
    applier,
    (message) => onEvent({ type: 'warning', code: 'LEFT_OVER', message }),
  );
  return `the rollback of shipment ${j.shipment}`;
}

/** A destination opened by a command, locked and settled. */
export interface SettledDest {
  dest: string;
  folder: DestFolder;
  state: DestState;
  /** What settling finished (null: nothing was interrupted). */
  finished: string | null;
  unlock: () => Promise<void>;
}

/**
 * Opens the destination named on the command line for `command`: locks it,
 * finishes an interrupted ingest or rollback (settle), then reads its state.
 * The caller releases the lock with `unlock`.
 * @throws BrickpostError NOT_FOUND (not a brickpost destination), LOCKED, UNFINISHED, UNSAFE_ENTRY, PERMISSION, IO
 */
export async function openSettled(
  destPath: string,
  command: string,
  identities: age.Identity[],
  onEvent: EventSink,
  hint = "give the folder you passed to 'brickpost ingest'",
): Promise<SettledDest> {
  const dest = await realDest(destPath);
  if (!(await lstat(dest).catch(() => null))?.isDirectory())
    throw new BrickpostError('NOT_FOUND', `destination ${quote(destPath)} is not a folder`, { path: dest });
  const folder = new DestFolder(dest);
  await folder.check();
  if (!(await lstat(folder.state).catch(() => null))) {
    throw new BrickpostError('NOT_FOUND', `${quote(destPath)} holds no brickpost state (nothing was ingested into it)`, { hint, path: dest });
  }
  const unlock = await folder.lock(command);
  try {
    const db = new DestDb(folder.state);
    let finished: string | null;
    try {
      finished = await settle(folder, db, identities, onEvent);
    } finally {
      db.close();
    }
    const state = await folder.readState();
    if (!state || state.applied.length === 0) {
      throw new BrickpostError('NOT_FOUND', `${quote(destPath)} holds no brickpost state (nothing was ingested into it)`, { hint, path: dest });
    }
    return { dest, folder, state, finished, unlock };
  } catch (e) {
    await unlock();
    throw e;
  }
}

/**
 * `brickpost resume DEST`: finishes an ingest or rollback of DEST that was
 * interrupted (a crash, a kill, a full disk since freed), with no drive.
 * @throws BrickpostError NOT_FOUND, LOCKED (it is still running), UNFINISHED, PERMISSION, IO
 */
export async function resume(identities: age.Identity[], destPath: string, onEvent: EventSink): Promise<ResumeSummary> {
  const started = performance.now();
  const { dest, state, finished, unlock } = await openSettled(destPath, 'resume', identities, onEvent);
  await unlock();
  const last = state.applied[state.applied.length - 1];
  return { dest, finished, current: last ? { shipmentId: last.shipment, seq: last.seq } : null, seconds: (performance.now() - started) / 1000 };
}
