import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { toEnvironmentError } from '../io/errors.js';
import { syncDir, writeAtomic } from '../io/sync.js';
import type { DestFolder } from './state.js';

/**
 * The in-progress marker, DEST/.brickpost/IN-PROGRESS: present from just
 * before an ingest or rollback changes the first entry of DEST until the
 * state file records its end. While it is there DEST may hold some
 * entries of the tree it had and some of the tree it is going to (for a
 * rollback over several shipments, of any tree between), each entry whole,
 * never a partly written file. A reader of DEST checks for it;
 * `brickpost status DEST` explains it, and `brickpost resume DEST` (or any
 * brickpost command on DEST) finishes what was interrupted.
 *
 * The file is JSON with a `message` for people reading it by hand.
 */
export const MARKER_NAME = 'IN-PROGRESS';

export interface Marker {
  message: string;
  /** What is under way: an ingest to `shipment`, or a rollback down to it. */
  kind: 'ingest' | 'rollback';
  shipment: string;
  seq: number;
  /** Where DEST was when it started (null: an empty destination). */
  from: { shipment: string; seq: number } | null;
  started: string;
  pid: number;
}

export function markerFile(folder: DestFolder): string {
  return join(folder.state, MARKER_NAME);
}

/**
 * Writes the marker (durably: file and folder synced) before DEST changes.
 * @throws BrickpostError NO_SPACE, PERMISSION, IO
 */
export async function writeMarker(folder: DestFolder, m: Omit<Marker, 'message' | 'started' | 'pid'>): Promise<void> {
  const verb = m.kind === 'ingest' ? `applying shipment ${m.shipment} (#${m.seq}) to` : `rolling back to shipment ${m.shipment} (#${m.seq})`;
  const marker: Marker = {
    message:
      `brickpost is ${verb} ${folder.dest}${m.from ? `, from #${m.from.seq}` : ''}. ` +
      'Until this file is gone, the folder may hold some files of the old tree and some of the new one. ' +
      `If no brickpost is running, 'brickpost resume ${folder.dest}' finishes the job.`,
    ...m,
    started: new Date().toISOString(),
    pid: process.pid,
  };
  await writeAtomic(markerFile(folder), JSON.stringify(marker, null, 1) + '\n', 0o644);
}

/** The marker, or null when no ingest or rollback is under way. @throws BrickpostError PERMISSION, IO */
export async function readMarker(folder: DestFolder): Promise<Marker | null> {
  let text: string;
  try {
    text = await readFile(markerFile(folder), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw toEnvironmentError(e, 'cannot read the in-progress marker');
  }
  try {
    const m = JSON.parse(text) as Marker;
    if ((m.kind === 'ingest' || m.kind === 'rollback') && typeof m.shipment === 'string' && typeof m.seq === 'number') return m;
  } catch {
    // A marker cut short by a crash while it was written never guarded a change: see writeMarker's order.
  }
  return null;
}

/** Removes the marker once the state file records the end (durably). @throws BrickpostError PERMISSION, IO */
export async function removeMarker(folder: DestFolder): Promise<void> {
  try {
    await rm(markerFile(folder), { force: true });
    await syncDir(folder.state);
  } catch (e) {
    throw toEnvironmentError(e, 'cannot remove the in-progress marker');
  }
}
