import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BrickpostError, isBrickpostError, MANIFEST_FORMAT, quote } from '@brickpost/manifest';
import type { EventSink, PackEntryCounts, PackOptions, PackSummary } from '../api/index.js';
import { chunkKey, chunkPipeline } from '../chunk/index.js';
import type { Context } from '../context.js';
import { recordSealed } from '../custody/index.js';
import { newShipmentId } from '../drive/layout.js';
import { toEnvironmentError } from '../io/errors.js';
import { takeLock } from '../io/lock.js';
import { Progress } from '../io/progress.js';
import { recordDriveRate } from '../plan/drive-rates.js';
import { measureAside } from '../scan/index.js';
import { ShipmentRows } from './catalog-rows.js';
import { bytesPerDrive, CapacityError, checkCapacity } from './drives.js';
import { EntryPacker } from './entries.js';
import { checkInputs, type Inputs } from './inputs.js';
import type { PackInfo } from './pack-writer.js';
import { keepPacks } from './resume.js';
import { sealShipment } from './seal-shipment.js';
import { ShipmentWriter } from './set-writer.js';
import { ChunkStore } from './store.js';
import { KEEP_UNSETTLED, sourceChanging, type Unsettled } from './settle.js';
import type { S3Source } from '../s3/source.js';
import { isS3Url } from '../s3/url.js';
import { placeInChain, type Placed } from './place.js';
import { writeEntries } from './write-entries.js';

/**
 * Target plaintext size of one pack (FAT32 allows 4 GiB - 1; stay far
 * below). Tests set BRICKPOST_PACK_TARGET to get many packs from little data.
 */
export const PACK_TARGET = Number(process.env.BRICKPOST_PACK_TARGET) || 256 << 20;

/**
 * Packs a source folder into one new shipment on a drive or a drive set
 * (FORMAT.md). Steps (packLocked):
 *
 * 1. checkInputs: the options, the source, the drives, the recipients;
 * 2. placeInChain: the shipment's place in its dataset's chain (bases, or
 *    --against), a shipment left sealing finished, an interrupted one
 *    continued (--resume) or dropped;
 * 3. openShipment: recorded in the catalog, then its folders opened on
 *    the drives;
 * 4. writeEntries: the source scanned, chunked, deduplicated, compressed
 *    and encrypted into packs in dataset order, the manifest written
 *    alongside;
 * 5. sealShipment: the manifest ended, the bag sealed and signed on every
 *    drive.
 *
 * A set spreads the packs over its data drives, written at the same
 * time, and computes the parity drives as it goes; every drive gets its
 * recovery data. The shipment is written under a `.part` name and renamed
 * only once sealed, so a drive never shows a half-written shipment as
 * complete.
 *
 * A dataset shipped before is packed incrementally (FORMAT.md §10.4): its
 * bases are the states its recipients may hold, chunks every base tree holds
 * become held refs, unchanged files (stat cache) are not even read, and
 * changed chunks of a file with a basis travel as deltas when smaller.
 * `full` makes it self-contained; `rehash` reads every file; `against`
 * builds it against a subscriber's signature or request file instead.
 * @throws BrickpostError USAGE, NOT_FOUND, NO_SPACE, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED, DATASET_MISMATCH, LOCKED (another pack in this home)
 */
export async function pack(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  // One pack at a time per home: a second one would wait on the catalog and then fail half-way.
  const unlock = await takeLock(join(ctx.home, 'pack.lock'), { what: `home ${quote(ctx.home)} is packing in`, command: 'pack' });
  try {
    return await packLocked(ctx, opts, onEvent, signal);
  } finally {
    await unlock().catch((e: unknown) =>
      onEvent({ type: 'warning', code: 'LEFT_OVER', message: `cannot remove the pack lock of ${quote(ctx.home)}: ${(e as Error).message}` }),
    );
  }
}

/** A source in object storage (`s3://…`) is listed and fetched through one client, closed after the pack. */
async function packLocked(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  // Loaded only for a bucket source: the S3 client is most of a command's start-up time otherwise.
  const s3 = isS3Url(opts.source) ? new (await import('../s3/source.js')).S3Source(opts.source, opts.s3) : null;
  try {
    return await packFrom(ctx, opts, s3, onEvent, signal);
  } finally {
    await s3?.close();
  }
}

async function packFrom(
  ctx: Context,
  opts: PackOptions & { packTarget?: number },
  s3: S3Source | null,
  onEvent: EventSink,
  signal?: AbortSignal,
): Promise<PackSummary> {
  const started = performance.now();
  const me = ctx.identity();
  const input = await checkInputs(opts, me, s3);
  let warnings = 0;
  const warn = (code: string, message: string, path?: string): void => {
    warnings++;
    onEvent({ type: 'warning', code, message, ...(path ? { path } : {}) });
  };
  const chain = await placeInChain(ctx, opts, me, input, warn);
  const { dataset, against, plan } = chain;
  const progress = new Progress(onEvent, 'pack');
  progress.emit();
  const { shipmentId, label, kept, rows, out } = await openShipment(ctx, opts, input, chain, onEvent);
  const { source, drives, exclude, datasetName, recipientStrings } = input;
  // The totals (for the ETA and the space check) are measured while packing starts, on a thread of their own.
  let measured: Error | null = null;
  const aside = s3 ? null : measureAside(source, { exclude, excludeCaches: opts.excludeCaches === true });
  const measuring = (aside ? aside.totals : s3!.measure({ exclude }))
    .then(
      (t) => {
        progress.bytesTotal = t.bytes;
        progress.filesTotal = t.files;
        checkCapacity(drives, t.bytes);
        const each = bytesPerDrive(t.bytes, drives.roots.length, drives.parity, 0);
        for (const d of out.targets) d.expected = each;
      },
      (e: unknown) => void (measured = e as Error),
    )
    .catch((e: unknown) => void (measured = e as Error));

  const key = chunkKey(dataset.secret);
  const store = new ChunkStore(out.openPack, out.k, rows, chain.held, opts.packTarget ?? PACK_TARGET, kept);
  const pipeline = chunkPipeline({ key, level: opts.level ?? 3 });
  const manifest = out.manifest;
  const counts: PackEntryCounts = {
    files: 0,
    dirs: 0,
    links: 0,
    hardLinks: 0,
    specials: 0,
    sparseFiles: 0,
    holeBytes: 0,
    withXattrs: 0,
    withAcls: 0,
    excluded: 0,
    notShipped: {},
    changing: 0,
  };
  const notShipped = (path: string, reason: string): void => {
    counts.notShipped[reason] = (counts.notShipped[reason] ?? 0) + 1;
    warn('NOT_SHIPPED', `not shipped: ${quote(path)}: ${reason}`, path);
  };
  /** Set once the catalog holds the shipment as 'sealing': from there on it is finished, not dropped. */
  let sealing = false;
  const changing: Unsettled[] = [];
  const unsettled = (u: Unsettled): void => {
    if (changing.length < KEEP_UNSETTLED) changing.push(u);
    counts.changing++;
  };
  const allowChanging = opts.allowChanging === true;
  const entries = new EntryPacker({
    catalog: ctx.catalog,
    manifest,
    store,
    rows,
    lookup: chain.lookup,
    pipeline,
    progress,
    warn,
    sha: against?.ids === 'sha256',
    notShipped,
    unsettled,
    allowChanging,
    ...(s3 ? { fetch: s3 } : {}),
  });
  const bases = plan.bases;
  try {
    await manifest.add({
      t: 'shipment',
      format: MANIFEST_FORMAT,
      shipment: shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      bases: bases.map((b) => [b.shipmentId, b.seq]),
      against: against?.sha256 ?? null,
      label,
      created: rows.created,
      publisher: me.keyId,
      secret: dataset.secret.toString('base64'),
      chunker: 'fastcdc-v1',
    });
    const portability = await writeEntries(opts, source, s3, exclude, entries, counts, notShipped, warn, () => measured, measuring, signal);
    if (counts.changing > 0 && !allowChanging) throw sourceChanging(changing, counts.changing, source);
    const packs = await store.finish();
    progress.phase = 'seal';
    progress.emit();
    const sealed = await sealShipment(
      ctx,
      opts,
      me,
      { shipmentId, datasetName, datasetId: dataset.id, label, rows, out },
      manifest,
      packs,
      counts,
      portability,
      store,
      () => (sealing = true),
    );
    await recordSealed(ctx, shipmentId, sealed.paths, onEvent);
    const seconds = (performance.now() - started) / 1000;
    // The planner's measured drive speed; a resumed pack did not write its kept packs in this time.
    if (kept.length === 0) recordDriveRate(ctx.catalog, { shipment: shipmentId, bytes: sealed.bytesOnDrive, drives: drives.roots.length, seconds });
    progress.emit();
    const c = store.counts;
    const t = sealed.totals;
    return {
      shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      files: t.files,
      dirs: t.dirs,
      bytesIn: entries.bytesIn,
      bytesOnDrive: sealed.bytesOnDrive,
      chunks: t.chunks,
      chunksDeduplicated: c.chunksDeduplicated,
      packs: packs.length,
      recipients: recipientStrings,
      path: sealed.paths[0]!,
      paths: sealed.paths,
      parity: drives.parity,
      recovery: drives.recovery,
      packsKept: kept.length,
      seconds,
      warnings,
      full: bases.length === 0 && against === null,
      bases: bases.map((b) => ({ shipmentId: b.shipmentId, seq: b.seq })),
      against: against?.sha256 ?? null,
      filesRead: entries.filesRead,
      bytesRead: entries.bytesRead,
      filesUnchanged: entries.filesUnchanged,
      chunksHeld: c.chunksHeld,
      bytesHeld: c.bytesHeld,
      chunksDelta: c.chunksDelta,
      bytesDelta: c.bytesDelta,
      deltaFrameBytes: c.deltaFrameBytes,
      notes: plan.notes,
      entries: counts,
    };
  } catch (e) {
    const err = isBrickpostError(e) ? e : toEnvironmentError(e, 'pack failed');
    if (sealing) {
      // Written and signed everywhere: finished by the next pack (sealing.ts), never redone.
      throw new BrickpostError(
        err.code,
        `${err.message}; shipment ${shipmentId} is sealed on every drive, but not yet in place on all of them or recorded so`,
        {
          cause: err,
          ...(err.path ? { path: err.path } : {}),
          hint: `${err.hint ?? 'fix the drive'}; the next pack of dataset ${quote(datasetName)} to the same drives puts it in place first`,
        },
      );
    }
    await store.abort();
    // A drive that filled up or failed: keep what is written for --resume.
    const resumable = err.category === 'environment' && !(err instanceof CapacityError) && err.code !== 'SOURCE_INCOMPLETE' && err.code !== 'SOURCE_CHANGING';
    await out.abort(resumable);
    if (!resumable) {
      rows.failed();
      throw err;
    }
    rows.interrupted();
    throw new BrickpostError(err.code, `${err.message}; the shipment is kept unfinished (${store.packCount} finished packs)`, {
      cause: err,
      ...(err.path ? { path: err.path } : {}),
      hint: err.hint?.includes('--resume')
        ? err.hint
        : `${err.hint ?? 'fix the drive'}; then run the same pack command with --resume to continue without rewriting the finished packs`,
    });
  } finally {
    against?.held.close();
    await aside?.stop();
    await pipeline.close();
  }
}

/** The shipment step 3 opened. */
interface Opened {
  shipmentId: string;
  label: string;
  /** Packs of an interrupted run that are kept. */
  kept: PackInfo[];
  rows: ShipmentRows;
  out: ShipmentWriter;
}

/**
 * Step 3: records the shipment in the catalog, then opens its `.part`
 * folders on the drives (replaying the packs a resumed run keeps). The
 * catalog knows the shipment before any folder of it exists on a drive,
 * so a pack killed at any point leaves nothing on the drives that a later
 * pack (or pack --resume) does not know of.
 * @throws BrickpostError environment (the interrupted shipment cannot be read, the folders cannot be made)
 */
async function openShipment(ctx: Context, opts: PackOptions, input: Inputs, chain: Placed, onEvent: EventSink): Promise<Opened> {
  const { drives } = input;
  const { dataset, against, plan, resuming } = chain;
  const shipmentId = resuming?.id ?? newShipmentId(randomBytes(4));
  const layout = { drives: drives.roots.length, parity: drives.parity, recovery: drives.recovery };
  let kept: PackInfo[] = [];
  try {
    if (resuming) kept = await keepPacks(ctx.catalog, shipmentId, drives.roots, layout);
  } catch (e) {
    against?.held.close();
    throw toEnvironmentError(e, 'cannot read the interrupted shipment');
  }
  const label = resuming?.label ?? opts.label ?? '';
  const rows = new ShipmentRows(
    ctx,
    dataset,
    shipmentId,
    label,
    input.recipientStrings,
    plan,
    against?.sha256 ?? null,
    layout,
    resuming ? { created: resuming.created, kept } : undefined,
  );
  let out: ShipmentWriter;
  try {
    out = await ShipmentWriter.open({
      drives: drives.roots,
      parity: drives.parity,
      recovery: drives.recovery,
      capacities: drives.capacities,
      shipment: shipmentId,
      recipients: input.recipients,
      onEvent,
    });
    await out.replay(kept);
  } catch (e) {
    against?.held.close();
    if (resuming) rows.interrupted();
    else rows.failed();
    throw toEnvironmentError(e, 'cannot create the shipment folder');
  }
  return { shipmentId, label, kept, rows, out };
}
