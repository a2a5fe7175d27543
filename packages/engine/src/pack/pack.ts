import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { age, BrickpostError, CHUNKS_PER_RECORD, FORMAT_VERSION, MANIFEST_PATH, quote, type ChunkRef, type ShipmentInfo } from '@brickpost/manifest';
import type { EventSink, PackOptions, PackSummary } from '../api.js';
import { chunkKey, createChunkPipeline, Cutter, WHOLE_FILE_MAX } from '../chunk/index.js';
import type { Context } from '../context.js';
import { bagDir, DRIVE_DIR, newShipmentId, PART_SUFFIX } from '../drive/layout.js';
import { sealBag, syncDir } from '../drive/seal.js';
import { toEnvironmentError } from '../io/errors.js';
import { Progress } from '../io/progress.js';
import { measure, walk, type SourceEntry } from '../scan/index.js';
import { ManifestOut } from './manifest-out.js';
import { PackWriter, type PackInfo } from './pack-writer.js';
import { openDataset, ShipmentRows } from './catalog-rows.js';

/** Target plaintext size of one pack (FAT32 allows 4 GiB - 1; stay far below). */
export const PACK_TARGET = 256 << 20;

interface Encoded {
  id: Buffer;
  frame: Buffer;
  length: number;
}

type Item =
  | { kind: 'dir'; entry: SourceEntry }
  | { kind: 'chunk'; file: FileState; job: Promise<Encoded> }
  | { kind: 'whole'; file: FileState; job: Promise<{ chunks: Encoded[]; changed?: string }> }
  | { kind: 'end'; file: FileState };

interface FileState {
  entry: SourceEntry;
  refs: ChunkRef[];
  emitted: boolean;
}

/**
 * Packs a source folder into one new shipment on a drive (FORMAT.md): scan,
 * chunk, deduplicate, compress and encrypt into packs in dataset order, write
 * the manifest alongside, then seal the bag and sign it. The shipment is
 * written under a `.part` name and renamed only once sealed, so a drive never
 * shows a half-written shipment as complete.
 * @throws BrickpostError USAGE, NOT_FOUND, NO_SPACE, PERMISSION, IO, UNSAFE_ENTRY, CANCELLED
 */
export async function pack(ctx: Context, opts: PackOptions & { packTarget?: number }, onEvent: EventSink, signal?: AbortSignal): Promise<PackSummary> {
  const started = performance.now();
  const me = ctx.identity();
  if (opts.drives.length !== 1) throw new BrickpostError('USAGE', `packing onto ${opts.drives.length} drives at once is not supported yet`, { hint: 'give one --to' });
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

  const datasetName = opts.dataset ?? basename(source);
  const dataset = openDataset(ctx, datasetName, me.keyId);
  const shipmentId = newShipmentId(randomBytes(4));
  const rows = new ShipmentRows(ctx, dataset, shipmentId, opts.label ?? '', recipientStrings);
  const key = chunkKey(dataset.secret);
  const finalDir = bagDir(drive, shipmentId);
  const dir = finalDir + PART_SUFFIX;
  let manifest: ManifestOut;
  try {
    await mkdir(join(dir, 'data'), { recursive: true });
    manifest = await ManifestOut.create(dir, recipients);
  } catch (e) {
    rows.failed();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw toEnvironmentError(e, 'cannot create the shipment folder');
  }
  const packs: PackInfo[] = [];
  let current: PackWriter | null = null;
  const target = opts.packTarget ?? PACK_TARGET;
  let chunksDeduplicated = 0;
  let bytesIn = 0;


  const flushRefs = async (f: FileState, last: boolean): Promise<void> => {
    if (!last && f.refs.length < CHUNKS_PER_RECORD) return;
    if (!f.emitted) {
      const e = f.entry;
      await manifest.add({ t: 'file', p: e.path, size: e.size, mode: e.mode, mtime: e.mtimeNs.toString(), c: f.refs });
      f.emitted = true;
    } else if (f.refs.length > 0) {
      await manifest.add({ t: 'more', c: f.refs });
    }
    f.refs = [];
  };

  const store = async (enc: Encoded): Promise<ChunkRef> => {
    const hit = rows.findChunk(enc.id);
    if (hit) {
      chunksDeduplicated++;
      return [enc.id.toString('hex'), hit.pack, hit.offset, hit.frameLen, hit.len];
    }
    if (current && current.size + enc.frame.length > target && current.size > 0) {
      packs.push(await current.close());
      rows.addPack(packs[packs.length - 1]!);
      current = null;
    }
    current ??= await PackWriter.create(dir, packs.length, recipients, shipmentId);
    const offset = await current.add(enc.frame);
    rows.addChunk(enc.id, current.index, offset, enc.frame.length, enc.length);
    return [enc.id.toString('hex'), current.index, offset, enc.frame.length, enc.length];
  };

  const storeChunk = async (f: FileState, enc: Encoded): Promise<void> => {
    f.refs.push(await store(enc));
    bytesIn += enc.length;
    progress.add(enc.length);
    await flushRefs(f, false);
  };

  const queue: Item[] = [];
  // Work in flight is bounded by count (many small files) and by bytes (large files).
  const maxQueue = 40;
  const maxQueuedBytes = 32 << 20;
  let queuedBytes = 0;
  const drain = async (limit: number): Promise<void> => {
    while (queue.length > limit || (limit > 0 && queuedBytes > maxQueuedBytes)) {
      const item = queue.shift()!;
      if (item.kind === 'whole') queuedBytes -= item.file.entry.size;
      if (item.kind === 'dir') {
        const e = item.entry;
        await manifest.add({ t: 'dir', p: e.path, mode: e.mode, mtime: e.mtimeNs.toString() });
        progress.add(0, 0);
      } else if (item.kind === 'chunk') {
        const enc = await item.job;
        queuedBytes -= enc.length;
        await storeChunk(item.file, enc);
      } else if (item.kind === 'whole') {
        const r = await item.job;
        if (r.changed) warn('CHANGED', `${quote(item.file.entry.path)} ${r.changed}`, item.file.entry.path);
        for (const enc of r.chunks) await storeChunk(item.file, enc);
        await flushRefs(item.file, true);
        progress.add(0, 1);
      } else {
        await flushRefs(item.file, true);
        progress.add(0, 1);
      }
    }
  };

  const pipeline = createChunkPipeline({ key, level: opts.level ?? 3 });
  const cutter = new Cutter();
  try {
    await manifest.add({
      t: 'shipment',
      format: 'brickpost-manifest/v1',
      shipment: shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      bases: [],
      against: null,
      label: opts.label ?? '',
      created: rows.created,
      publisher: me.keyId,
      secret: dataset.secret.toString('base64'),
      chunker: 'fastcdc-v1',
    });
    for await (const entry of walk(source, (s) => warn('SKIPPED', `skipped ${quote(s.path)}: ${s.reason}`, s.path))) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'pack cancelled');
      if (measured) throw measured;
      if (entry.type === 'dir') {
        queue.push({ kind: 'dir', entry });
      } else {
        const file: FileState = { entry, refs: [], emitted: false };
        if (entry.size <= WHOLE_FILE_MAX) {
          queue.push({ kind: 'whole', file, job: pipeline.encodeFile(entry.abs, entry.size) });
          queuedBytes += entry.size;
          await drain(maxQueue);
          continue;
        }
        for await (const raw of cutter.chunks(entry.abs, entry.size, (how) => warn('CHANGED', `${quote(entry.path)} ${how}`, entry.path))) {
          queuedBytes += raw.length;
          queue.push({ kind: 'chunk', file, job: pipeline.encode(raw) });
          await drain(maxQueue);
        }
        queue.push({ kind: 'end', file });
      }
      await drain(maxQueue);
    }
    await drain(0);
    await measuring;
    if (measured) throw measured;
    if (current) {
      packs.push(await (current as PackWriter).close());
      rows.addPack(packs[packs.length - 1]!);
      current = null;
    }
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
    rows.sealed(t.files, t.bytes, bytesOnDrive);
    const seconds = (performance.now() - started) / 1000;
    progress.emit();
    return {
      shipmentId,
      dataset: datasetName,
      datasetId: dataset.id,
      seq: rows.seq,
      parent: rows.parent,
      files: t.files,
      dirs: t.dirs,
      bytesIn,
      bytesOnDrive,
      chunks: t.chunks,
      chunksDeduplicated,
      packs: packs.length,
      recipients: recipientStrings,
      path: finalDir,
      seconds,
      warnings,
    };
  } catch (e) {
    await (current as PackWriter | null)?.abort();
    await manifest.abort();
    rows.failed();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw toEnvironmentError(e, 'pack failed');
  } finally {
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
