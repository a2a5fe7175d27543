import {
  age,
  BrickpostError,
  packPath,
  quote,
  refLength,
  type ChunkRef,
  type DeltaRef,
  type DirRecord,
  type FileRecord,
  type HardRecord,
  type HeldRef,
  type LinkRecord,
  type ManifestRecord,
  type ShipmentRecord,
  type SpecialRecord,
} from '@brickpost/manifest';
import { chunkKey, releaseFrame } from '../chunk/index.js';
import type { OpenedShipment } from '../drive/open.js';
import type { Progress } from '../io/progress.js';
import { native } from '../io/native.js';
import { readManifest } from './manifest-stream.js';
import { NativePackReaders, type ChunkBytes, type PackSource } from './native-readers.js';
import type { ReaderRef } from './reader-messages.js';
import { PackReaders } from './readers.js';
import { blameRef } from './blame.js';
import { CheckedFrames } from './checked-frames.js';

/** What a walk over a shipment's content calls, in manifest order. */
export interface ShipmentVisitor {
  header?(r: ShipmentRecord): Promise<void> | void;
  dir?(r: DirRecord): Promise<void> | void;
  fileStart?(r: FileRecord): Promise<void> | void;
  /** The verified bytes of the file's next chunk (a packed ref), held natively or in a Buffer. */
  chunk?(data: ChunkBytes): Promise<void> | void;
  /** The file's next chunk is a held ref: not on the drive, the destination's base tree holds it. */
  held?(ref: HeldRef): Promise<void> | void;
  /**
   * The file's next chunk is a delta ref: `delta` is its frame decoded to
   * deltaLength bytes of bpdelta1, not yet applied (so its id is unchecked).
   * Valid until the call settles: the walk reuses the buffer for the next.
   */
  delta?(ref: DeltaRef, delta: Buffer): Promise<void> | void;
  /** The file's next `length` bytes are a hole (v2): zeros that are not stored. */
  hole?(length: number): Promise<void> | void;
  fileEnd?(r: FileRecord): Promise<void> | void;
  /** A symbolic link, a hard link or a special file (v2), in manifest order. */
  entry?(r: LinkRecord | HardRecord | SpecialRecord): Promise<void> | void;
  /**
   * Whether to read this file's chunks; when false, none of its refs is read
   * and fileStart and fileEnd are not called for it (its packs are still
   * read through and checked).
   */
  wants?(r: FileRecord): boolean;
}

/**
 * What a walk waits for before it acts on each record (ingest's PlanGate):
 * `index` counts the manifest's records from its header (0). Undefined
 * when the walk may go on at once.
 */
export interface RecordGate {
  reached(index: number): Promise<void> | undefined;
  /** The manifest's records, handed over by the other pass; `own` reads the manifest (for what it does not hand over), `idle` runs before a wait. */
  recordsFor(own: () => AsyncIterable<ManifestRecord>, idle: () => Promise<void>): AsyncIterable<ManifestRecord>;
}

/** Chunks of one pack requested from a reader thread at once. */
interface Batch {
  pack: number;
  refs: ReaderRef[];
  /** The path of the file each ref belongs to, for messages. */
  files: string[];
  bytes: number;
  result: Promise<Array<ChunkBytes | null>> | null;
  /** What result resolved to, once it did. */
  data?: Array<ChunkBytes | null>;
}

type Item =
  | { kind: 'dir'; r: DirRecord }
  | { kind: 'file'; r: FileRecord }
  | { kind: 'chunk'; batch: Batch; i: number; delta?: DeltaRef }
  | { kind: 'held'; ref: HeldRef }
  | { kind: 'hole'; length: number }
  | { kind: 'entry'; r: LinkRecord | HardRecord | SpecialRecord }
  | { kind: 'end'; r: FileRecord };

const BATCH_BYTES = 2 << 20;
const BATCH_REFS = 256;
/** Queue length, and chunk bytes queued (unless the caller gives less), past which the walk waits for the visitor to catch up. */
const MAX_QUEUE = 512;
/**
 * Queue length when the visitor takes no bytes (deep verify): an item holds
 * only its record, so the walk can run further ahead. At 512, a run of small
 * files filled the queue before one batch of refs did, and the pool waited
 * on the manifest between batches (2 GiB deep verify 3.9 s, 3.7 s at 4096).
 * Ingest keeps 512: its items hold decoded chunks and their files' work, and
 * at 4096 it peaked 35 MB higher for a few percent.
 */
const MAX_QUEUE_CHECKING = 4096;
export const MAX_QUEUED_BYTES = 16 << 20;

/**
 * Reads a whole shipment: the manifest here, and every chunk of every file
 * on pack reader threads (PackReaders), decrypted, decompressed within the
 * length the manifest states, and checked against its keyed id. Each pack is
 * read front to back and checked against its signed SHA-256 and the pack
 * index; a chunk stored in an earlier pack is read again from there. The
 * visitor sees the records and chunk bytes in manifest order. Held refs are
 * counted (`held`) and handed to the visitor as they are; delta frames are
 * decoded within their deltaLength and handed over unapplied. A visitor
 * that takes no chunk bytes (deep verify) has each frame decoded once
 * however many refs name it (CheckedFrames); `decoded` counts the frames
 * decoded, `chunks` every ref. A refusal of a chunk names its file, its
 * pack and its offset (blameRef).
 * @throws BrickpostError on the first integrity, authenticity or safety problem.
 */
export async function walkShipment(
  s: OpenedShipment,
  identityText: string,
  visit: ShipmentVisitor,
  progress: Progress,
  signal?: AbortSignal,
  /** Packs known damaged (ingest --skip-damaged): read only where wanted, never checked whole. */
  damaged: ReadonlySet<number> = new Set(),
  /** Decoded chunk bytes the walk may hold ahead of the visitor: less where something else runs beside it and needs memory. */
  aheadBytes: number = MAX_QUEUED_BYTES,
  /** Where another pass over the manifest must be ahead of the walk (an ingest that plans while it stages). */
  gate?: RecordGate,
  /**
   * The records to walk instead of the manifest's, when a pass before kept
   * those the visitor needs (an ingest's plan, RecordStash): the header,
   * the files it wants, the packs and the end, in manifest order.
   */
  stashed?: readonly ManifestRecord[] | null,
): Promise<{ files: number; dirs: number; bytes: number; chunks: number; held: number; deltas: number; decoded: number }> {
  const identities = age.parseIdentityFile(identityText);
  let readers: PackSource | null = null;
  let nextPack = 0;
  const plainOf = new Map<number, Promise<number>>();
  const queue: Item[] = [];
  const totals = { files: 0, dirs: 0, bytes: 0, chunks: 0, held: 0, deltas: 0, decoded: 0 };
  // Only checks, no bytes wanted: a frame checked once is checked for every ref that names it.
  const checked = visit.chunk === undefined && visit.delta === undefined ? new CheckedFrames() : null;
  const maxQueue = checked ? MAX_QUEUE_CHECKING : MAX_QUEUE;
  let file: FileRecord | null = null;
  /** The buffer deltas held natively are read into (one at a time: the visitor is done with a delta when its call settles). */
  let deltaBuf = Buffer.alloc(0);
  const deltaBytes = (data: ChunkBytes): Buffer => {
    if (Buffer.isBuffer(data)) return data;
    if (deltaBuf.length < data.length) deltaBuf = Buffer.allocUnsafe(Math.max(data.length, 2 * deltaBuf.length));
    return deltaBuf.subarray(0, data.moveInto(deltaBuf));
  };
  /** The current file is one the visitor does not want: its refs are not read. */
  let skipping = false;
  let open: Batch | null = null;
  let queuedBytes = 0;

  const send = (b: Batch): void => {
    if (b.result) return;
    b.result = readers!.read(b.pack, b.refs).catch(async (e: unknown) => Promise.reject(await blameRef(e, s, b.pack, b.refs, b.files)));
    b.result.catch(() => undefined);
    if (open === b) open = null;
  };

  /** Packs before `p` will not be read in order again: have them read to their end. */
  const finishBefore = (p: number): void => {
    for (; nextPack < p; nextPack++) {
      if (damaged.has(nextPack)) continue;
      const done = readers!.finish(nextPack, s.payload.get(packPath(nextPack))!);
      done.catch(() => undefined);
      plainOf.set(nextPack, done);
    }
  };

  const addRef = (ref: ChunkRef, path: string): void => {
    if (ref.length === 1) {
      queue.push({ kind: 'hole', length: ref[0] });
      return;
    }
    totals.chunks++;
    if (ref.length === 2) {
      totals.held++;
      queue.push({ kind: 'held', ref });
      return;
    }
    const [id, p, off, clen, len] = ref;
    const delta = ref.length === 6 ? ref : undefined;
    if (p >= s.info.packs) throw new BrickpostError('MALFORMED', `chunk refers to pack ${p}, the shipment has ${s.info.packs}`);
    if (p >= nextPack) {
      finishBefore(p);
      nextPack = p;
    }
    if (delta) totals.deltas++;
    if (checked?.seen(p, off, clen, delta ? delta[5] : len, delta ? null : id)) {
      progress.add(len);
      return;
    }
    totals.decoded++;
    if (open && (open.pack !== p || open.bytes >= BATCH_BYTES || open.refs.length >= BATCH_REFS)) send(open);
    open ??= { pack: p, refs: [], files: [], bytes: 0, result: null };
    open.files.push(path);
    if (delta) {
      queue.push({ kind: 'chunk', batch: open, i: open.refs.length, delta });
      open.refs.push([off, clen, delta[5], id, 'delta']);
      open.bytes += delta[5];
      queuedBytes += delta[5];
    } else {
      queue.push({ kind: 'chunk', batch: open, i: open.refs.length });
      open.refs.push([off, clen, len, id]);
      open.bytes += len;
      queuedBytes += len;
    }
  };

  // A visitor's call is awaited only when it returned a promise, and a batch's chunks once: an await costs a promise and a turn of
  // the event loop even on a plain value, for each chunk, file and folder (a quarter of what an ingest of small files allocated).
  const drain = async (limit: number, bytes = Infinity): Promise<void> => {
    while (queue.length > limit || (queue.length > 0 && queuedBytes > bytes)) {
      const it = queue[0]!;
      let step: Promise<void> | void = undefined;
      if (it.kind === 'chunk') {
        const b = it.batch;
        send(b);
        const data = (b.data ?? (b.data = await b.result!))[it.i] ?? null;
        queue.shift();
        queuedBytes -= it.batch.refs[it.i]![2];
        if (it.delta) {
          progress.add(it.delta[4]);
          if (visit.delta && data !== null) step = visit.delta(it.delta, deltaBytes(data));
          else if (data !== null) releaseFrame(data);
        } else {
          progress.add(it.batch.refs[it.i]![2]);
          if (visit.chunk && data !== null) step = visit.chunk(data);
          else if (data !== null) releaseFrame(data);
        }
        if (step) await step;
        continue;
      }
      queue.shift();
      if (it.kind === 'held') {
        progress.add(it.ref[1]);
        step = visit.held?.(it.ref);
      } else if (it.kind === 'hole') {
        progress.add(it.length);
        step = visit.hole?.(it.length);
      } else if (it.kind === 'entry') step = visit.entry?.(it.r);
      else if (it.kind === 'dir') step = visit.dir?.(it.r);
      else if (it.kind === 'file') step = visit.fileStart?.(it.r);
      else step = visit.fileEnd?.(it.r);
      if (step) await step;
      if (it.kind === 'end') progress.add(0, 1);
    }
  };

  /**
   * Whether the queue is over its bounds, checked after each ref, not only
   * after each record: a record names up to 1024 chunks, whose batches
   * would otherwise all be read and decoded at once (64 MB and more of a
   * large file's chunks held at ingest). Then `bound` waits for the
   * visitor until it is half as full (only then: an async call allocates).
   */
  const over = (): boolean => queue.length > maxQueue || queuedBytes > aheadBytes;
  const bound = async (): Promise<void> => {
    if (open) send(open);
    await drain(maxQueue / 2, aheadBytes / 2);
  };

  /** The bytes the refs of the current wanted file cover so far: at its end, its size (the manifest reader checked so; a walk of records kept from it checks again). */
  let fileBytes = 0;
  const endFile = (): void => {
    if (file && fileBytes !== file.size) throw new Error(`the walk met refs of ${quote(file.p)} covering ${fileBytes} bytes, not its size ${file.size}`);
    if (file) queue.push({ kind: 'end', r: file });
    file = null;
  };

  let index = -1;
  /** What the walk holds ahead goes to the visitor first, so the threads behind it have work while the plan catches up. */
  const idle = async (): Promise<void> => {
    if (open) send(open);
    await drain(0);
  };
  try {
    const records = gate ? gate.recordsFor(() => readManifest(s, identities), idle) : (stashed ?? readManifest(s, identities));
    for await (const r of records) {
      if (signal?.aborted) throw new BrickpostError('CANCELLED', 'cancelled');
      const wait = gate?.reached(++index);
      if (wait) {
        wait.catch(() => undefined);
        await idle();
        await wait;
      }
      switch (r.t) {
        case 'shipment':
          if (!readers) {
            const init = {
              bag: s.dir,
              ...(s.packDirs ? { packDirs: s.packDirs } : {}),
              random: [...damaged],
              shipment: s.id,
              identityText,
              key: chunkKey(Buffer.from(r.secret, 'base64')),
            };
            const core = native();
            readers = core ? new NativePackReaders(core, init, visit.chunk !== undefined || visit.delta !== undefined) : new PackReaders(init);
          }
          await visit.header?.(r);
          break;
        case 'dir':
          endFile();
          totals.dirs++;
          queue.push({ kind: 'dir', r });
          break;
        case 'file':
          endFile();
          totals.files++;
          totals.bytes += r.size;
          if (visit.wants && !visit.wants(r)) {
            skipping = true;
            break;
          }
          skipping = false;
          file = r;
          fileBytes = 0;
          queue.push({ kind: 'file', r });
          for (const ref of r.c) {
            fileBytes += refLength(ref);
            addRef(ref, r.p);
            if (over()) await bound();
          }
          break;
        case 'more':
          if (!skipping && file)
            for (const ref of r.c) {
              fileBytes += refLength(ref);
              addRef(ref, file.p);
              if (over()) await bound();
            }
          break;
        case 'link':
        case 'hard':
        case 'special':
          endFile();
          queue.push({ kind: 'entry', r });
          break;
        case 'pack': {
          endFile();
          if (open) send(open);
          await drain(0);
          finishBefore(r.i + 1);
          nextPack = Math.max(nextPack, r.i + 1);
          if (damaged.has(r.i)) break;
          const plain = await plainOf.get(r.i)!;
          if (plain !== r.plain)
            throw new BrickpostError('MALFORMED', `pack ${quote(packPath(r.i))} holds ${plain} plaintext bytes, the manifest says ${r.plain}`);
          break;
        }
        case 'end':
          endFile();
          if (open) send(open);
          await drain(0);
          break;
      }
      if (over()) await bound();
    }
    await drain(0);
    return totals;
  } finally {
    await readers?.close();
  }
}
