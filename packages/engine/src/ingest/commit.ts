import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { toEnvironmentError } from '../io/errors.js';
import { STATE_DIR, type DestFolder, type Journal } from './state.js';
import { syncDir } from '../drive/seal.js';

/** How many replaced trees are kept in undo/ for rollback. */
export const UNDO_KEEP = 3;

/**
 * Swaps a staged tree into the destination, journaled so that a crash at
 * any point leaves DEST either at the old tree (journal not yet written) or
 * resumable to the new one (journal present: `resumeCommit` finishes it).
 * Phase retire moves DEST's current top-level entries into undo/ID/; phase
 * install moves the staged top-level entries into DEST. Each step is a
 * rename inside one file system, and each is idempotent on resume.
 * @throws BrickpostError PERMISSION, IO
 */
export async function commitStaged(folder: DestFolder, journal: Omit<Journal, 'phase' | 'old' | 'new'>): Promise<void> {
  const staged = folder.staging(journal.shipment);
  const old = (await readdir(folder.dest)).filter((n) => n !== STATE_DIR).sort();
  const fresh = (await readdir(staged)).sort();
  const j: Journal = { ...journal, phase: 'retire', old, new: fresh };
  await folder.writeJournal(j);
  await resumeCommit(folder, j);
}

/** Finishes a commit from its journal (after a crash, or right away). */
export async function resumeCommit(folder: DestFolder, j: Journal): Promise<void> {
  const staged = folder.staging(j.shipment);
  const undo = folder.undo(j.shipment);
  try {
    if (j.phase === 'retire') {
      await mkdir(undo, { recursive: true, mode: 0o700 });
      for (const name of j.old) await moveIfPresent(join(folder.dest, name), join(undo, name));
      await syncDir(folder.dest);
      j = { ...j, phase: 'install' };
      await folder.writeJournal(j);
    }
    for (const name of j.new) await moveIfPresent(join(staged, name), join(folder.dest, name));
    await syncDir(folder.dest);
    await folder.writeState(j.state);
    await folder.clearJournal();
    await rm(staged, { recursive: true, force: true });
    await pruneUndo(folder, j);
  } catch (e) {
    throw toEnvironmentError(e, 'commit failed (run ingest again to finish it)');
  }
}

async function moveIfPresent(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    // Already moved by an interrupted run.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

async function pruneUndo(folder: DestFolder, j: Journal): Promise<void> {
  const keep = new Set(j.state.applied.slice(-UNDO_KEEP).map((a) => a.shipment));
  const root = join(folder.state, 'undo');
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!keep.has(name)) await rm(join(root, name), { recursive: true, force: true });
  }
}
