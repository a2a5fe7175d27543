import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { DestInProgress, DestStatus } from '../api/index.js';
import { readPendingStep } from './dest-db.js';
import { inProgressLines } from './in-progress.js';
import { readMarker } from './marker.js';
import { DestFolder, realDest } from './state.js';

/**
 * What a destination is doing, for `brickpost status DEST`, `history` and
 * the desktop: the shipment it holds, the brickpost process working on it
 * (from its lock), and an ingest or rollback under way or interrupted (from
 * the in-progress marker, else the journal), with the command that
 * finishes it. Reads only: no lock taken, no key or catalog needed, and
 * nothing is changed, so it answers while another brickpost works on DEST.
 * @throws BrickpostError NOT_FOUND (not a folder), UNSAFE_ENTRY, PERMISSION, IO
 */
export async function destStatus(destPath: string): Promise<DestStatus> {
  const dest = await realDest(destPath);
  if (!lstatSync(dest, { throwIfNoEntry: false })?.isDirectory())
    throw new BrickpostError('NOT_FOUND', `destination ${quote(destPath)} is not a folder`, { path: dest });
  const folder = new DestFolder(dest);
  await folder.check();
  const state = await folder.readState();
  const current = state?.applied[state.applied.length - 1] ?? null;
  const holder = existsSync(folder.lockFile) ? folder.holder() : null;
  const inProgress = await underWay(folder, holder !== null);
  const status: DestStatus = {
    dest,
    brickpost: state !== null,
    dataset: state?.dataset ?? null,
    datasetId: state?.datasetId ?? null,
    publisherKeyId: state?.publisher ?? null,
    current: current ? { shipmentId: current.shipment, seq: current.seq, label: current.label, appliedAt: current.appliedAt } : null,
    shipments: state?.applied.length ?? 0,
    lock: holder,
    inProgress,
    next: inProgress && !inProgress.running ? `brickpost resume ${dest}` : null,
  };
  return status;
}

/** The ingest or rollback under way (running: a brickpost holds DEST's lock) or interrupted. */
export async function underWay(folder: DestFolder, running: boolean): Promise<DestInProgress | null> {
  const marker = await readMarker(folder);
  const step = pendingStep(folder);
  const withLines = (p: Omit<DestInProgress, 'lines'>): DestInProgress => ({ ...p, lines: inProgressLines(p, folder.dest) });
  if (marker) {
    return withLines({
      kind: marker.kind,
      shipmentId: marker.shipment,
      seq: marker.seq,
      from: marker.from ? { shipmentId: marker.from.shipment, seq: marker.from.seq } : null,
      started: marker.started,
      phase: step?.phase ?? null,
      running,
    });
  }
  if (!step) return null;
  // A journal step without a marker: written by a brickpost from before the marker.
  return withLines({
    kind: step.kind === 'apply' ? 'ingest' : 'rollback',
    shipmentId: step.shipment,
    seq: null,
    from: null,
    started: null,
    phase: step.phase,
    running,
  });
}

/** The journal's step in progress, read without writing (null when none, or when the journal cannot be read). */
function pendingStep(folder: DestFolder): { shipment: string; kind: string; phase: string } | null {
  const file = join(folder.state, 'journal.sqlite');
  return existsSync(file) ? readPendingStep(file) : null;
}
