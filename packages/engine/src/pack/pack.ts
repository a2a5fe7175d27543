import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { age, BrickpostError, FORMAT_VERSION, MANIFEST_PATH, quote, type ShipmentInfo } from '@brickpost/manifest';
import type { EventSink, PackOptions, PackSummary } from '../api.js';
import { chunkKey, createChunkPipeline, Cutter } from '../chunk/index.js';
import type { Context } from '../context.js';
import { bagDir, DRIVE_DIR, newShipmentId, PART_SUFFIX } from '../drive/layout.js';
import { sealBag } from '../drive/seal.js';
import { toEnvironmentError } from '../io/errors.js';
import { syncDir } from '../io/sync.js';
import { Progress } from '../io/progress.js';
import { measure, walk } from '../scan/index.js';
import { loadAgainst } from './against.js';
import { planChain, type ChainPlan } from './chain.js';
import { EntryPacker } from './entries.js';
import { heldInTrees, type HeldSet } from './held.js';
import { ManifestOut } from './manifest-out.js';
import { openDataset, ShipmentRows } from './catalog-rows.js';
import { ChunkStore } from './store.js';
import { TreeLookup } from './tree.js';

/** Target plaintext size of one pack (FAT32 allows 4 GiB - 1; stay far below). */
export const PACK_TARGET = 256 << 20;

/**
 * Packs a source folder into one new shipment on a drive (FORMAT.md): scan,
 * chunk, deduplicate, compress and encrypt into packs in dataset order, write
 * the manifest alongside, then seal the bag and sign it. The shipment is
 * written under a `.part` name and renamed only once sealed, so a drive never
 * shows a half-written shipment as complete.
 *
 * A dataset shipped before is packed incrementally (FORMAT.md §10.4): its
 * bases are the states its recipients may hold, chunks every base tree holds
 * become held refs, unchanged files (stat cache) are not even read, and
 * changed chunks of a file with a basis travel as deltas when smaller.
 * `full` makes it self-contained; `rehash` reads every file; `against`
 * builds it against a subscriber's signature or request file instead.
 * @throws BrickpostError USAGE, NOT_FOUND, NO_SPACE, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED, DATASET_MISMATCH
 */
export async function pack(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  const started = performance.now();
  const me = ctx.identity();
  if (opts.drives.length !== 1) throw new BrickpostError('USAGE', `packing onto ${opts.drives.length} drives at once is not supported yet`, { hint: 'give one --to' });
  if (opts.against !== undefined && opts.full) throw new BrickpostError('USAGE', '--against and --full do not go together', { hint: 'a shipment against a signature file is never self-contained; drop one' });
  const source = resolve(opts.source);
  const srcStat = await stat(source).catch(() => null);
  if (!srcStat?.isDirectory()) throw new BrickpostError('NOT_FOUND', `source ${quote(opts.source)} is not a folder`);
  const drive = resolve(opts.drives[0]!);
  const driveStat = await stat(drive).catch(() => null);
  if (!driveStat?.isDirectory()) throw new BrickpostError('NOT_FOUND', `drive ${quote(opts.drives[0]!)} is not a folder`, { hint: 'mount the drive, or create the folder standing in for it' });
  if (drive === source || drive.startsWith(source + '/')) throw new BrickpostError('USAGE', `drive ${quote(drive)} is inside the source ${quote(source)}`);

  for (const [what, v] of [['label', opts.label], ['dataset', opts.dataset]] as const) {
    if (v !== undefined && (v !== v.trim() || /[\u0000-\u001f\u007f]/.test(v) || v.length > 255)) {
      throw new BrickpostError('USAGE', `${what} ${quote(v)} must have no leading or trailing spaces or control characters, and at most 255 characters`);
    }
  }
  const recipientStrings = [...new Set([...(opts.noSelf ? [] : [me.recipient]), ...opts.recipients])];
  if (recipientStrings.length === 0) throw new BrickpostError('USAGE', 'no recipients', { hint: 'give --recipient age1…, or drop --no-self' });
  const recipients = recipientStrings.map((r) => age.parseRecipient(r));

  let warnings = 0;
  const warn = (code: string, message: string, path?: string): void => {
    warnings++;
    onEvent({ type: 'warning', code, message, ...(path ? { path } : {}) });
  };

  const datasetName = opts.dataset ?? basename(source);
  const dataset = openDataset(ctx, datasetName, me.keyId);
  const db = ctx.catalog.db;
  // Relative to the recipients' trees (bases), or to what a signature file lists (against), or to nothing.
  const against = opts.against !== undefined ? await loadAgainst(ctx, opts.against, dataset.id) : null;
  let plan: ChainPlan;
  try {
    plan = planChain(db, dataset.id, recipientStrings.filter((r) => r !== me.recipient), opts.full === true || against !== null);
  } catch (e) {
    against?.held.close();
    throw e;
  }
  if (against) plan.notes = [`built against ${quote(opts.against!)}: held chunks are those it lists`];
  const baseIds = plan.bases.map((b) => b.shipmentId);
  const held: HeldSet = against?.held ?? heldInTrees(db, baseIds);
  const reference = opts.rehash || baseIds.length === 0 ? null : TreeLookup.referenceTree(db, dataset.id);
  const lookup = new TreeLookup(db, reference, baseIds);

  const progress = new Progress(onEvent, 'pack');
  progress.emit();
  // The totals (for the ETA and the space check) are measured while packing starts.
  let measured: Error | null = null;
  const measuring = measure(source).then(
    async (t) => {
      progress.bytesTotal = t.bytes;
      progress.filesTotal = t.files;
      await checkSpace(drive, t.bytes);
    },
    (e: Error) => void (measured = e),
  ).catch((e: Error) => void (measured = e));

  const shipmentId = newShipmentId(randomBytes(4));
  const rows = new ShipmentRows(ctx, dataset, shipmentId, opts.label ?? '', recipientStrings, plan, against?.sha256 ?? null);
  const key = chunkKey(dataset.secret);
  const finalDir = bagDir(drive, shipmentId);
  const dir = finalDir + PART_SUFFIX;
  let manifest: ManifestOut;
  try {
    await mkdir(join(dir, 'data'), { recursive: true });
    manifest = await ManifestOut.create(dir, recipients);
  } catch (e) {
    rows.failed();
    against?.held.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw toEnvironmentError(e, 'cannot create the shipment folder');
  }
  const store = new ChunkStore(dir, recipients, shipmentId, rows, held, opts.packTarget ?? PACK_TARGET);
  const pipeline = createChunkPipeline({ key, level: opts.level ?? 3 });
  const cutter = new Cutter();
  const entries = new EntryPacker({ db, manifest, store, rows, lookup, pipeline, cutter, progress, warn, sha: against?.ids === 'sha256' });
  const bases = plan.bases;
  try {
    await manifest.add({
      t: 'shipment',
      format: 'brickpost-manifest/v1',
      shipment: shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      bases: bases.map((b) => [b.shipmentId, b.seq]),
      against: against?.sha256 ?? null,
      label: opts.label ?? '',
      created: rows.created,
      publisher: me.keyId,
      secret: dataset.secret.toString('base64'),
      chunker: 'fastcdc-v1',
    });
    for await (const entry of walk(source, (s) => warn('SKIPPED', `skipped ${quote(s.path)}: ${s.reason}`, s.path))) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'pack cancelled');
      if (measured) throw measured;
      await entries.add(entry);
    }
    await entries.finish();
    await measuring;
    if (measured) throw measured;
    const packs = await store.finish();
    progress.phase = 'seal';
    progress.emit();
    for (const p of packs) await manifest.add({ t: 'pack', i: p.index, path: p.path, size: p.size, plain: p.plain, chunks: p.chunks });
    const t = manifest.totals;
    await manifest.add({ t: 'end', dirs: t.dirs, files: t.files, bytes: t.bytes, chunks: t.chunks, packs: t.packs });
    const m = await manifest.close();
    const payload = [{ path: MANIFEST_PATH, digest: m.sha256 }, ...packs.map((p) => ({ path: p.path, digest: p.sha256 }))];
    const bytesOnDrive = m.size + packs.reduce((s, p) => s + p.size, 0);
    const info: ShipmentInfo = {
      format: FORMAT_VERSION,
      shipment: shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      label: opts.label ?? '',
      publisher: ctx.name,
      publisherKey: me.keyId,
      created: rows.created,
      entries: t.dirs + t.files,
      files: t.files,
      bytes: t.bytes,
      packs: packs.length,
      payloadBytes: bytesOnDrive,
      payloadFiles: payload.length,
      bagIndex: 1,
      bagCount: 1,
    };
    await sealBag(dir, info, payload, me.signingKey);
    await syncDir(dir);
    await rename(dir, finalDir);
    await syncDir(join(drive, DRIVE_DIR));
    rows.sealed(t.files, t.bytes, bytesOnDrive, me.recipient);
    const seconds = (performance.now() - started) / 1000;
    progress.emit();
    const c = store.counts;
    return {
      shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      files: t.files,
      dirs: t.dirs,
      bytesIn: entries.bytesIn,
      bytesOnDrive,
      chunks: t.chunks,
      chunksDeduplicated: c.chunksDeduplicated,
      packs: packs.length,
      recipients: recipientStrings,
      path: finalDir,
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
    };
  } catch (e) {
    await store.abort();
    await manifest.abort();
    rows.failed();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw toEnvironmentError(e, 'pack failed');
  } finally {
    against?.held.close();
    await pipeline.close();
    await cutter.close();
  }
}

async function checkSpace(drive: string, bytes: number): Promise<void> {
  const fs = await statfs(drive).catch(() => null);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  // Worst case: nothing compresses or deduplicates; age adds 16 bytes per 64 KiB.
  const need = Math.ceil(bytes * 1.0003) + (4 << 20);
  if (free < need) {
    throw new BrickpostError('NO_SPACE', `drive ${quote(drive)} has ${free} bytes free; the shipment may need up to ${need} (short by ${need - free})`, {
      hint: 'use a larger drive or free some space',
    });
  }
}
