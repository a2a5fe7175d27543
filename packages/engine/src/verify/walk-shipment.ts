import { age, BrickpostError, packPath, quote, type ChunkRef, type DirRecord, type FileRecord, type ShipmentRecord } from '@brickpost/manifest';
import { chunkKey, createChunkPipeline, type ChunkPipeline } from '../chunk/index.js';
import type { OpenedShipment } from '../drive/open.js';
import type { Progress } from '../io/progress.js';
import { readManifest } from './manifest-stream.js';
import { PackCursor } from './pack-cursor.js';

/** What a walk over a shipment's content calls, in manifest order. */
export interface ShipmentVisitor {
  header?(r: ShipmentRecord): Promise<void> | void;
  dir?(r: DirRecord): Promise<void> | void;
  fileStart?(r: FileRecord): Promise<void> | void;
  /** The verified bytes of the file's next chunk. */
  chunk?(data: Buffer): Promise<void> | void;
  fileEnd?(r: FileRecord): Promise<void> | void;
}

type Item =
  | { kind: 'dir'; r: DirRecord }
  | { kind: 'file'; r: FileRecord }
  | { kind: 'chunk'; job: Promise<Buffer> }
  | { kind: 'end'; r: FileRecord };

const RANDOM_HANDLES = 8;

/**
 * Reads a whole shipment: the manifest, and every chunk of every file from
 * the packs, decrypted, decompressed within the length the manifest states,
 * and checked against its keyed id. Packs are read front to back (each one
 * hash-checked against the signed payload manifest once read to its end);
 * a chunk stored earlier is re-read from its pack. Decoding runs on the
 * chunk pipeline's workers while the next frames are read. Every pack is
 * read to its end and checked against the pack index.
 * @throws BrickpostError on the first integrity, authenticity or safety problem.
 */
export async function walkShipment(
  s: OpenedShipment,
  identities: age.Identity[],
  visit: ShipmentVisitor,
  progress: Progress,
  signal?: AbortSignal,
): Promise<{ files: number; dirs: number; bytes: number; chunks: number }> {
  let pipeline: ChunkPipeline | null = null;
  let current: PackCursor | null = null;
  let nextPack = 0;
  const finishedPlain = new Map<number, number>();
  const random = new Map<number, PackCursor>();
  const queue: Item[] = [];
  const totals = { files: 0, dirs: 0, bytes: 0, chunks: 0 };
  let file: FileRecord | null = null;

  const finishCurrent = async (): Promise<void> => {
    const c = current!;
    current = null;
    finishedPlain.set(c.index, await c.finish(null, s.payload.get(packPath(c.index))!));
  };

  /** Makes pack p the sequential cursor, reading every pack before it to its end. */
  const advanceTo = async (p: number): Promise<PackCursor> => {
    while (!(current && current.index === p)) {
      if (current) await finishCurrent();
      else current = await PackCursor.open(s.dir, nextPack++, s.id, identities);
    }
    return current;
  };

  const readFrame = async (ref: ChunkRef): Promise<Buffer> => {
    const [, p, off, clen] = ref;
    if (p >= s.info.packs) throw new BrickpostError('MALFORMED', `chunk refers to pack ${p}, the shipment has ${s.info.packs}`);
    if (p >= nextPack || (current && current.index === p)) return (await advanceTo(p)).read(off, clen);
    let r = random.get(p);
    if (!r) {
      if (random.size >= RANDOM_HANDLES) {
        const [k, old] = random.entries().next().value as [number, PackCursor];
        random.delete(k);
        await old.close();
      }
      r = await PackCursor.open(s.dir, p, s.id, identities);
      random.set(p, r);
    }
    return r.readRandom(off, clen);
  };

  /** Checks a pack's size from the pack index, reading it to its end first if needed. */
  const checkPack = async (i: number, plain: number): Promise<void> => {
    if (!finishedPlain.has(i)) {
      if (i >= nextPack || (current && current.index === i)) {
        await advanceTo(i);
        await finishCurrent();
      }
    }
    const got = finishedPlain.get(i);
    if (got !== plain) throw new BrickpostError('MALFORMED', `pack ${quote(packPath(i))} holds ${got} plaintext bytes, the manifest says ${plain}`);
  };

  const drain = async (limit: number): Promise<void> => {
    while (queue.length > limit) {
      const it = queue.shift()!;
      if (it.kind === 'dir') await visit.dir?.(it.r);
      else if (it.kind === 'file') await visit.fileStart?.(it.r);
      else if (it.kind === 'chunk') {
        const data = await it.job;
        progress.add(data.length);
        await visit.chunk?.(data);
      } else {
        await visit.fileEnd?.(it.r);
        progress.add(0, 1);
      }
    }
  };

  try {
    for await (const r of readManifest(s, identities)) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'cancelled');
      switch (r.t) {
        case 'shipment':
          pipeline ??= createChunkPipeline({ key: chunkKey(Buffer.from(r.secret, 'base64')), level: 3 });
          await visit.header?.(r);
          break;
        case 'dir':
          if (file) queue.push({ kind: 'end', r: file }), (file = null);
          totals.dirs++;
          queue.push({ kind: 'dir', r });
          break;
        case 'file':
        case 'more':
          if (r.t === 'file') {
            if (file) queue.push({ kind: 'end', r: file });
            file = r;
            totals.files++;
            totals.bytes += r.size;
            queue.push({ kind: 'file', r });
          }
          for (const ref of r.c) {
            const frameBytes = await readFrame(ref);
            totals.chunks++;
            queue.push({ kind: 'chunk', job: pipeline!.decode(frameBytes, ref[4], Buffer.from(ref[0], 'hex')) });
            await drain(16);
          }
          break;
        case 'pack':
          if (file) queue.push({ kind: 'end', r: file }), (file = null);
          await drain(0);
          await checkPack(r.i, r.plain);
          break;
        case 'end':
          if (file) queue.push({ kind: 'end', r: file }), (file = null);
          await drain(0);
          break;
      }
      await drain(16);
    }
    await drain(0);
    return totals;
  } finally {
    await (current as PackCursor | null)?.close();
    for (const r of random.values()) await r.close();
    await pipeline?.close();
  }
}
