import { copyFile, lstat, mkdir, readdir, rm, statfs } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BrickpostError, MANIFEST_PATH, quote } from '@brickpost/manifest';
import type { EventSink, IngestOptions, IngestSummary } from '../api.js';
import type { Context } from '../context.js';
import { findShipment } from '../drive/layout.js';
import { openShipment, type OpenedShipment } from '../drive/open.js';
import { toEnvironmentError } from '../io/errors.js';
import { Progress } from '../io/progress.js';
import { CAN_SYNC_FS, syncFilesystem } from '../io/sync.js';
import { trustedVerifiers } from '../keys/index.js';
import { readManifest } from '../verify/manifest-stream.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { commitStaged, resumeCommit } from './commit.js';
import { StagingWriter, restrictDir } from './stage.js';
import { DestFolder, STATE_DIR, type DestState } from './state.js';

/**
 * Ingests a shipment into a destination folder. Nothing on the drive is used
 * before the publisher's signature (against the trust store) and the tag
 * files check out; every chunk is checked against its keyed id and every
 * pack against its signed SHA-256 while the tree is written into a staging
 * folder inside DEST; only a complete, verified tree is committed, by
 * journaled renames (see commit.ts). Ingesting an applied shipment again
 * does nothing and says so; an interrupted commit is finished.
 * @throws BrickpostError authenticity, integrity, unsafe, chain (CHAIN_REPLAY, DATASET_MISMATCH), environment (NO_SPACE…), LOCKED, USAGE
 */
export async function ingest(ctx: Context, opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const found = await findShipment(opts.drive, opts.shipment);
  const s = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog));
  const dest = resolve(opts.dest);
  await prepareDest(dest);
  const folder = new DestFolder(dest);
  await folder.ensure();
  const unlock = await folder.lock();
  try {
    const journal = await folder.readJournal();
    if (journal) {
      onEvent({ type: 'warning', code: 'RESUMED', message: `finishing the interrupted commit of shipment ${journal.shipment}` });
      await resumeCommit(folder, journal);
    }
    const state = await folder.readState();
    const summary = (files: number, dirs: number, bytes: number, already: boolean): IngestSummary => ({
      shipmentId: s.id,
      dataset: s.info.dataset,
      seq: s.info.seq,
      dest,
      files,
      dirs,
      bytesWritten: bytes,
      alreadyApplied: already,
      seconds: (performance.now() - started) / 1000,
      warnings: 0,
    });
    if (state?.applied.some((a) => a.shipment === s.id)) return summary(0, 0, 0, true);
    await checkApplies(dest, s, state);
    await checkSpace(dest, s.info.bytes);

    const staging = folder.staging(s.id);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const writer = new StagingWriter(staging, !CAN_SYNC_FS);
    const progress = new Progress(onEvent, 'ingest');
    progress.bytesTotal = s.info.bytes;
    progress.filesTotal = s.info.files;
    progress.emit();
    try {
      await walkShipment(s, me.ageIdentity, writer, progress, signal);
      progress.phase = 'commit';
      progress.emit();
      for await (const r of readManifest(s, me.ageIdentities)) if (r.t === 'dir') await writer.finishDir(r);
      if (CAN_SYNC_FS) await syncFilesystem(staging);
    } catch (e) {
      await writer.abort();
      await rm(staging, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
    const next: DestState = {
      format: 'brickpost-dest/v1',
      publisher: s.info.publisherKey,
      datasetId: s.info.datasetId,
      dataset: s.info.dataset,
      applied: [
        ...(state?.applied ?? []),
        { shipment: s.id, seq: s.info.seq, label: s.info.label, appliedAt: new Date().toISOString(), files: writer.files, bytes: writer.bytes },
      ],
    };
    // The encrypted manifest stays with the destination: it says what each file holds.
    await mkdir(folder.manifests, { recursive: true, mode: 0o700 });
    await copyFile(join(s.dir, MANIFEST_PATH), folder.manifest(s.id));
    await commitStaged(folder, { shipment: s.id, state: next });
    // Rare: only then is the manifest read a third time.
    if (writer.restricted > 0) for await (const r of readManifest(s, me.ageIdentities)) if (r.t === 'dir') await restrictDir(dest, r);
    recordIngest(ctx, s, dest, writer.files, writer.bytes, writer.secret);
    progress.emit();
    return summary(writer.files, writer.dirs, writer.bytes, false);
  } finally {
    await unlock();
  }
}

async function prepareDest(dest: string): Promise<void> {
  const st = await lstat(dest).catch(() => null);
  if (!st) {
    await mkdir(dest, { recursive: false, mode: 0o755 }).catch((e) => {
      throw toEnvironmentError(e, 'cannot create the destination');
    });
  } else if (st.isSymbolicLink()) {
    throw new BrickpostError('UNSAFE_ENTRY', `destination ${quote(dest)} is a symlink`, { hint: 'give the real folder it points to' });
  } else if (!st.isDirectory()) {
    throw new BrickpostError('USAGE', `destination ${quote(dest)} is not a folder`);
  }
}

/** Refuses a shipment that does not follow what DEST holds. */
async function checkApplies(dest: string, s: OpenedShipment, state: DestState | null): Promise<void> {
  if (!state) {
    const others = (await readdir(dest)).filter((n) => n !== STATE_DIR);
    if (others.length > 0) {
      throw new BrickpostError('USAGE', `destination ${quote(dest)} is not empty and was not written by brickpost`, {
        hint: 'ingest into a new or empty folder',
      });
    }
    return;
  }
  if (state.datasetId !== s.info.datasetId || state.publisher !== s.info.publisherKey) {
    throw new BrickpostError('DATASET_MISMATCH', `destination holds dataset ${quote(state.dataset)} (${state.datasetId}), the drive carries ${quote(s.info.dataset)} (${s.info.datasetId})`, {
      hint: 'ingest into another folder',
    });
  }
  const last = state.applied[state.applied.length - 1]!;
  if (s.info.seq <= last.seq) {
    throw new BrickpostError('CHAIN_REPLAY', `shipment ${quote(s.id)} is number ${s.info.seq} of dataset ${quote(s.info.dataset)}, but number ${last.seq} is already applied`, {
      hint: 'this drive carries an older shipment; nothing was changed',
    });
  }
}

async function checkSpace(dest: string, bytes: number): Promise<void> {
  const fs = await statfs(dest).catch(() => null);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  if (free < bytes) {
    throw new BrickpostError('NO_SPACE', `destination ${quote(dest)} has ${free} bytes free, the shipment needs ${bytes} (short by ${bytes - free})`, {
      hint: 'free some space or choose another destination',
    });
  }
}

function recordIngest(ctx: Context, s: OpenedShipment, dest: string, files: number, bytes: number, secret: string | null): void {
  const db = ctx.catalog.db;
  const now = new Date().toISOString();
  if (secret) {
    db.prepare('INSERT OR IGNORE INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(
      s.info.datasetId,
      s.info.dataset,
      s.info.publisherKey,
      Buffer.from(secret, 'base64'),
      now,
    );
  }
  db.prepare(
    `INSERT OR IGNORE INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, files, bytes)
     SELECT ?, ?, ?, ?, ?, ?, 'received', 'applied', ?, ? WHERE EXISTS (SELECT 1 FROM datasets WHERE id = ?)`,
  ).run(s.id, s.info.datasetId, s.info.seq, s.info.parent, s.info.label, s.info.created, files, bytes, s.info.datasetId);
  ctx.catalog.db
    .prepare(
      `INSERT INTO ingests (shipment_id, dataset_id, publisher, seq, dest, state, started_at, finished_at, files, bytes)
       VALUES (?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?)
       ON CONFLICT (shipment_id, dest) DO UPDATE SET state = 'applied', finished_at = excluded.finished_at`,
    )
    .run(s.id, s.info.datasetId, s.info.publisherKey, s.info.seq, dest, new Date().toISOString(), new Date().toISOString(), files, bytes);
}
