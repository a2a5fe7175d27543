import { closeSync, linkSync, openSync, readSync, constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, rm, statfs } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { age, BrickpostError, MANIFEST_PATH, quote, type DeltaRef, type FileRecord, type HeldRef, type ShipmentRecord } from '@brickpost/manifest';
import type { EventSink, IngestOptions, IngestSummary } from '../api.js';
import { chunkId, chunkKey } from '../chunk/index.js';
import type { Context } from '../context.js';
import { applyDelta, decodeDelta } from '../delta/index.js';
import { findShipment } from '../drive/layout.js';
import { openShipment, type OpenedShipment } from '../drive/open.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpoint } from '../io/failpoint.js';
import { Progress } from '../io/progress.js';
import { CAN_SYNC_FS, syncFilesystem } from '../io/sync.js';
import { trustedVerifiers } from '../keys/index.js';
import { readManifest, readManifestFile } from '../verify/manifest-stream.js';
import { walkShipment } from '../verify/walk-shipment.js';
import { runApply, runRollback, UNDO_KEEP } from './commit.js';
import { DestDb, type JournalRow } from './dest-db.js';
import { loadOldTree, missingError, oldFilesFromManifest, planApply, type Missing, type OldFile } from './plan.js';
import { writeRequest } from './request.js';
import { scanOldTree } from './seed.js';
import { StagingWriter } from './stage.js';
import { DestFolder, STATE_DIR, type AppliedShipment, type DestState } from './state.js';

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
 *    unchanged files are not touched, moved files are hard links;
 * 5. commit, journaled (commit.ts): a crash leaves DEST at the old tree, or
 *    resumable to the new one by running ingest again.
 * @throws BrickpostError authenticity, integrity, unsafe, chain (CHAIN_REPLAY, CHAIN_GAP, CHAIN_FORK, BASIS_MISSING, DATASET_MISMATCH), environment, LOCKED, USAGE
 */
export async function ingest(ctx: Context, opts: IngestOptions, onEvent: EventSink, signal?: AbortSignal): Promise<IngestSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const identities = age.parseIdentityFile(me.ageIdentity);
  const found = await findShipment(opts.drive, opts.shipment);
  const s = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog));
  if (opts.keepUndo !== undefined && (!Number.isSafeInteger(opts.keepUndo) || opts.keepUndo < 0 || opts.keepUndo > 1000)) {
    throw new BrickpostError('USAGE', `--keep-undo ${String(opts.keepUndo)} must be a whole number from 0 to 1000`);
  }
  const dest = resolve(opts.dest);
  await prepareDest(dest);
  const folder = new DestFolder(dest);
  await folder.ensure();
  const unlock = await folder.lock();
  const db = new DestDb(folder.state);
  try {
    await resumePending(folder, db, identities, onEvent);
    // Staged files of an ingest that died before its commit are of no use.
    await rm(join(folder.state, 'staging'), { recursive: true, force: true });
    const state = await folder.readState();
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
      ...extra,
    });
    const current = state?.applied[state.applied.length - 1];
    if (current?.shipment === s.id) return summary({ alreadyApplied: true });
    await checkChain(dest, s, h, state);

    // Plan against the tree DEST holds.
    const key = chunkKey(Buffer.from(h.secret, 'base64'));
    const oldTree = (): AsyncIterable<OldFile> =>
      current ? oldFilesFromManifest(dest, readManifestFile(folder.manifest(current.shipment), identities)) : scanOldTree(dest, key, signal);
    await loadOldTree(db, dest, oldTree());
    const plan = await planApply(db, dest, s.id, readManifest(s, identities));
    if (plan.missing.length > 0) {
      throw await refuse(ctx, folder, s, h, state, plan.missing, opts.requestOut, oldTree);
    }
    await checkSpace(dest, plan.bytesToStage);

    const staging = folder.staging(s.id);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const writer = new StagingWriter(staging, !CAN_SYNC_FS);
    const progress = new Progress(onEvent, 'ingest');
    progress.bytesTotal = plan.bytesToStage;
    progress.filesTotal = plan.filesStaged;
    progress.emit();
    const stager = new Stager(db, dest, writer, key);
    try {
      await walkShipment(s, me.ageIdentity, stager, progress, signal);
      if (CAN_SYNC_FS) await syncFilesystem(staging);
    } catch (e) {
      writer.abort();
      stager.close();
      await rm(staging, { recursive: true, force: true }).catch(() => undefined);
      if (e instanceof BrickpostError && e.code === 'BASIS_MISSING' && e.path) {
        throw await refuse(ctx, folder, s, h, state, [{ path: e.path, reason: e.message }], opts.requestOut, oldTree);
      }
      throw e;
    }
    stager.close();

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
      applied: [...(state?.applied ?? []), applied],
    };
    // The encrypted manifest stays with the destination: it says what each file holds.
    await mkdir(folder.manifests, { recursive: true, mode: 0o700 });
    await copyFile(join(s.dir, MANIFEST_PATH), folder.manifest(s.id));
    progress.phase = 'commit';
    progress.emit();
    const j: JournalRow = { shipment: s.id, kind: 'apply', phase: 'retire', state: JSON.stringify(next) };
    db.setJournal(j);
    await runApply(folder, db, j, () => readManifestFile(folder.manifest(s.id), identities), keep);
    recordIngest(ctx, s, dest, s.info.files, writer.bytes, h.secret);
    progress.emit();
    return summary({
      files: s.info.files,
      dirs: s.info.entries - s.info.files,
      bytesWritten: writer.bytes,
      filesUnchanged: plan.filesKept,
      filesWritten: writer.files - stager.linked,
      filesLinked: stager.linked,
      retired: plan.retired,
      bytesFromDrive: stager.bytesFromDrive,
      bytesReused: stager.bytesReused,
      chunksFromDelta: stager.deltas,
    });
  } finally {
    db.close();
    await unlock();
  }
}

/**
 * Finishes an apply or rollback a crash interrupted (DEST's journal says
 * which, and its phase). Needs no drive: everything is in DEST's state folder.
 */
export async function resumePending(folder: DestFolder, db: DestDb, identities: age.Identity[], onEvent: EventSink): Promise<void> {
  const j = db.pending();
  if (!j) return;
  const state = JSON.parse(j.state) as DestState;
  const keep = state.keepUndo ?? UNDO_KEEP;
  if (j.kind === 'apply') {
    onEvent({ type: 'warning', code: 'RESUMED', message: `finishing the interrupted commit of shipment ${j.shipment}` });
    await runApply(folder, db, j, () => readManifestFile(folder.manifest(j.shipment), identities), keep);
  } else {
    onEvent({ type: 'warning', code: 'RESUMED', message: `finishing the interrupted rollback of shipment ${j.shipment}` });
    const to = state.applied[state.applied.length - 1]!;
    await runRollback(folder, db, j, () => readManifestFile(folder.manifest(to.shipment), identities), keep);
  }
}

/**
 * Builds staged files: chunks from the drive as they come, held chunks from
 * DEST's files (found through the `held` index), delta chunks applied to the
 * file's basis in DEST. Every chunk not read from the drive is checked
 * against its keyed id before it is written; a mismatch means DEST's file
 * changed without its size or mtime changing, and refuses the shipment
 * (BASIS_MISSING naming the file).
 */
class Stager {
  linked = 0;
  deltas = 0;
  bytesFromDrive = 0;
  bytesReused = 0;
  private file: FileRecord | null = null;
  /** Install op of each file wanted, until the walk reaches it (wants runs ahead of the writes). */
  private readonly pending = new Map<string, number>();
  private readonly fds = new Map<string, number>();
  private readonly getNew;
  private readonly getHeld;
  private readonly findMove;

  constructor(
    db: DestDb,
    private readonly dest: string,
    private readonly writer: StagingWriter,
    private readonly key: Buffer,
  ) {
    this.getNew = db.db.prepare('SELECT action, n, digest FROM new WHERE path = ?');
    this.getHeld = db.db.prepare('SELECT path, offset, len FROM held WHERE id = ?');
    // A file being retired whose content is the new file's: link it instead of copying.
    this.findMove = db.db.prepare(
      `SELECT o.path FROM old o LEFT JOIN new n ON n.path = o.path
       WHERE o.digest = ? AND o.ok = 1 AND (n.path IS NULL OR n.action = 'stage' OR n.type = 'dir') LIMIT 1`,
    );
  }

  wants(r: FileRecord): boolean {
    const row = this.getNew.get(r.p) as { action: string; n: number | null; digest: Buffer | null } | undefined;
    if (!row || row.action !== 'stage') return false;
    if (r.size > 0 && row.digest) {
      const from = this.findMove.pluck().get(row.digest) as string | undefined;
      if (from !== undefined) {
        try {
          linkSync(join(this.dest, from), this.writer.pathOf(row.n!));
          this.writer.finishLinked(row.n!, r);
          this.linked++;
          return false;
        } catch {
          // No hard links here (or a race): copy the data instead.
        }
      }
    }
    this.pending.set(r.p, row.n!);
    return true;
  }

  fileStart(r: FileRecord): void {
    const n = this.pending.get(r.p)!;
    this.pending.delete(r.p);
    this.file = r;
    this.writer.start(n, r);
  }

  chunk(data: Buffer): void {
    this.bytesFromDrive += data.length;
    this.writer.write(data);
  }

  held(ref: HeldRef): void {
    const row = this.getHeld.get(Buffer.from(ref[0], 'hex')) as { path: string; offset: number; len: number } | undefined;
    if (!row || row.len !== ref[1]) throw this.basisMissing(this.file!.p, `a chunk it reuses is no longer in the destination`);
    const data = this.read(row.path, row.offset, row.len);
    if (!chunkId(this.key, data).equals(Buffer.from(ref[0], 'hex'))) {
      throw this.basisMissing(row.path, `${quote(row.path)} no longer holds the data ${quote(this.file!.p)} reuses (changed locally without its size or mtime changing)`);
    }
    this.bytesReused += data.length;
    this.writer.write(data);
  }

  async delta(ref: DeltaRef, delta: Buffer): Promise<void> {
    const f = this.file!;
    const [basis, size, blockSize] = f.b!;
    const parts: Buffer[] = [];
    let got = 0;
    await applyDelta(
      async (offset, length) => this.read(basis, offset, length),
      size,
      blockSize,
      decodeDelta(delta),
      async (buf) => {
        got += buf.length;
        if (got > ref[4]) throw new BrickpostError('CHUNK_MISMATCH', `a delta of ${quote(f.p)} rebuilds more than the chunk's ${ref[4]} bytes`);
        parts.push(Buffer.from(buf));
      },
    );
    const data = Buffer.concat(parts);
    if (data.length !== ref[4] || !chunkId(this.key, data).equals(Buffer.from(ref[0], 'hex'))) {
      throw this.basisMissing(basis, `${quote(basis)}, the basis of ${quote(f.p)}'s delta, does not hold what the shipment expects (changed locally without its size or mtime changing)`);
    }
    this.deltas++;
    this.bytesFromDrive += delta.length;
    this.writer.write(data);
  }

  fileEnd(r: FileRecord): void {
    this.writer.end(r);
    this.file = null;
    failpoint('stage');
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private basisMissing(path: string, why: string): BrickpostError {
    return new BrickpostError('BASIS_MISSING', why, { path });
  }

  /** Reads DEST's file `rel` at [offset, offset + length), refusing anything but a regular file. */
  private read(rel: string, offset: number, length: number): Buffer {
    let fd = this.fds.get(rel);
    if (fd === undefined) {
      if (this.fds.size >= 16) {
        const [k, old] = this.fds.entries().next().value as [string, number];
        closeSync(old);
        this.fds.delete(k);
      }
      try {
        fd = openSync(join(this.dest, rel), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      } catch (e) {
        throw this.basisMissing(rel, `cannot read ${quote(rel)} in the destination: ${(e as Error).message}`);
      }
      this.fds.set(rel, fd);
    }
    const buf = Buffer.allocUnsafe(length);
    let at = 0;
    while (at < length) {
      const n = readSync(fd, buf, at, length - at, offset + at);
      if (n === 0) throw this.basisMissing(rel, `${quote(rel)} in the destination is shorter than the shipment expects`);
      at += n;
    }
    return buf;
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

function seqs(h: ShipmentRecord): string {
  const list = h.bases.map(([, seq]) => seq).sort((a, b) => a - b);
  return list.length === 1 ? `seq ${list[0]}` : `seq ${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

/** Refuses a shipment that does not follow what DEST holds (FORMAT.md §10.4). */
async function checkChain(dest: string, s: OpenedShipment, h: ShipmentRecord, state: DestState | null): Promise<void> {
  const name = quote(s.info.dataset);
  if (!state) {
    if (h.against !== null) return;
    if (h.bases.length > 0) {
      throw new BrickpostError('CHAIN_GAP', `shipment ${quote(s.id)} (seq ${h.seq} of dataset ${name}) only carries changes on top of ${seqs(h)}, and ${quote(dest)} holds no shipment of this dataset`, {
        hint: 'ingest the earlier shipments first, or ask the publisher for a self-contained one (brickpost pack --full), or seed: brickpost signature, then pack --against',
      });
    }
    const others = (await readdir(dest)).filter((n) => n !== STATE_DIR);
    if (others.length > 0) {
      throw new BrickpostError('USAGE', `destination ${quote(dest)} is not empty and was not written by brickpost`, {
        hint: "ingest into a new or empty folder, or seed it: 'brickpost signature' there, and the publisher packs --against that file",
      });
    }
    return;
  }
  if (state.datasetId !== s.info.datasetId || state.publisher !== s.info.publisherKey) {
    throw new BrickpostError('DATASET_MISMATCH', `destination holds dataset ${quote(state.dataset)} (${state.datasetId}), the drive carries ${name} (${s.info.datasetId})`, {
      hint: 'ingest into another folder',
    });
  }
  const cur = state.applied[state.applied.length - 1]!;
  const applied = new Map(state.applied.map((a) => [a.shipment, a]));
  if (applied.has(s.id)) {
    throw new BrickpostError('CHAIN_REPLAY', `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) was applied before; the destination is now at seq ${cur.seq}, so the next shipment must be seq ${cur.seq + 1}`, {
      hint: 'this drive carries an older shipment; nothing was changed',
    });
  }
  if (h.seq <= cur.seq) {
    const sibling = h.parent !== null ? state.applied.find((a) => a.parent === h.parent) : undefined;
    if (sibling) {
      throw new BrickpostError('CHAIN_FORK', `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) and the applied shipment ${quote(sibling.shipment)} (seq ${sibling.seq}) both follow shipment ${quote(h.parent!)}: the chain forked; the destination is at seq ${cur.seq}`, {
        hint: 'the publisher packed twice from the same point (a restored or copied catalog?); ask for a shipment built on seq ' + cur.seq,
      });
    }
    throw new BrickpostError('CHAIN_REPLAY', `shipment ${quote(s.id)} is seq ${h.seq} of ${name}, but the destination is already at seq ${cur.seq}; expected seq ${cur.seq + 1}`, {
      hint: 'this drive carries an older shipment; nothing was changed',
    });
  }
  if (h.against !== null || h.bases.length === 0) return;
  if (h.bases.some(([id]) => id === cur.shipment)) return;
  const forked = h.bases.find(([id, seq]) => seq <= cur.seq && !applied.has(id));
  if (forked && h.bases.every(([id, seq]) => seq <= cur.seq && !applied.has(id))) {
    throw new BrickpostError('CHAIN_FORK', `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) builds on shipment ${quote(forked[0])} (seq ${forked[1]}), which this destination never applied: it is at seq ${cur.seq} (${quote(cur.shipment)}) on another branch`, {
      hint: 'ask the publisher for a shipment built on what the destination holds (brickpost receipt, or brickpost signature and pack --against)',
    });
  }
  throw new BrickpostError('CHAIN_GAP', `the destination is at seq ${cur.seq} of ${name}; shipment ${quote(s.id)} (seq ${h.seq}) applies on top of ${seqs(h)}: expected seq ${cur.seq + 1} first`, {
    hint: `ingest the shipments after seq ${cur.seq} first, in order`,
  });
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
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const cur = state?.applied[state.applied.length - 1];
    await writeRequest(ctx, file, h, cur ? { shipment: cur.shipment, seq: cur.seq } : null, missing, oldTree());
  } catch (e) {
    void e;
    return missingError(missing, null);
  }
  return missingError(missing, file);
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

function recordIngest(ctx: Context, s: OpenedShipment, dest: string, files: number, bytes: number, secret: string): void {
  const db = ctx.catalog.db;
  const now = new Date().toISOString();
  db.prepare('INSERT OR IGNORE INTO datasets (id, name, publisher, secret, created_at) VALUES (?, ?, ?, ?, ?)').run(
    s.info.datasetId,
    s.info.dataset,
    s.info.publisherKey,
    Buffer.from(secret, 'base64'),
    now,
  );
  db.prepare(
    `INSERT OR IGNORE INTO shipments (id, dataset_id, seq, parent, label, created_at, role, state, files, bytes)
     SELECT ?, ?, ?, ?, ?, ?, 'received', 'applied', ?, ? WHERE EXISTS (SELECT 1 FROM datasets WHERE id = ?)`,
  ).run(s.id, s.info.datasetId, s.info.seq, s.info.parent, s.info.label, s.info.created, files, bytes, s.info.datasetId);
  db.prepare(
    `INSERT INTO ingests (shipment_id, dataset_id, publisher, seq, dest, state, started_at, finished_at, files, bytes)
     VALUES (?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?)
     ON CONFLICT (shipment_id, dest) DO UPDATE SET state = 'applied', finished_at = excluded.finished_at`,
  ).run(s.id, s.info.datasetId, s.info.publisherKey, s.info.seq, dest, now, now, files, bytes);
}

