import { availableParallelism } from 'node:os';
import type { NativeBytes } from '@brickpost/native';
import { Worker } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest/errors';
import { Cutter } from './cutter.js';
import { asBuffer, deserializeError, endWorker, forPost, WORKER_LIMITS, type Job, type Reply, type WorkerInit } from './messages.js';

/** One chunk after the pipeline: its id, its frame and how the frame stores it. */
export interface EncodedChunk {
  /** HMAC-SHA256(key, raw bytes). */
  id: Buffer;
  /** Exactly one Zstandard frame; decodes to the raw bytes. */
  frame: Buffer;
  stored: 'zstd' | 'raw';
  /** Length of the raw bytes. */
  length: number;
  /** SHA-256 of the raw bytes, when asked for (`sha`). */
  sha?: Buffer;
}

/**
 * A chunk's frame as the pipeline hands it on: a Buffer, or bytes the
 * native core holds until the pack sealer takes them (release() frees
 * them sooner, when a frame is not stored).
 */
export type Frame = Buffer | NativeBytes;

/** Frees a frame that will not be stored (a no-op for a Buffer). */
export function releaseFrame(f: Frame): void {
  if (!Buffer.isBuffer(f)) f.release();
}

/** A chunk of a file read by the pipeline: encoded, and its bytes when asked for (`raw`). */
export interface FileChunk extends Omit<EncodedChunk, 'frame'> {
  frame: Frame;
  raw?: Buffer;
  /** Its id was among EncodeFileOptions.known: its frame is empty and its bytes are not given. */
  known?: boolean;
}

/** Options of ChunkPipeline.encode. */
export interface EncodeOptions {
  /** Copy the raw bytes to the worker instead of moving them: the caller keeps its Buffer (for a delta later). */
  keep?: boolean;
  /** Also compute the SHA-256 of the bytes. */
  sha?: boolean;
}

/** Options of ChunkPipeline.encodeFile. */
export interface EncodeFileOptions {
  /** Also compute the SHA-256 of each chunk's bytes. */
  sha?: boolean;
  /** Block size of the bpsig1 signature to compute over the file; 0 or absent for none. */
  signature?: number;
  /** Also return each chunk's bytes. */
  raw?: boolean;
  /**
   * Ids (32 bytes each, one after another) of chunks whose frames the
   * caller will not store: such a chunk may come without them (`known`),
   * which spares its compression. A pipeline may ignore it.
   */
  known?: Buffer;
}

/**
 * A basis signature for delta jobs: `id` names it (equal ids, equal
 * signatures), `bytes` loads the bpsig1 bytes, called only when a worker
 * does not hold it yet.
 */
export interface DeltaBasis {
  id: number;
  bytes: () => Buffer;
}

/** Options of createChunkPipeline. */
export interface ChunkPipelineOptions {
  /** Chunk-id key (chunkKey of the dataset secret). */
  key: Buffer;
  /** zstd level for encode. */
  level: number;
  /** Worker threads; default os.availableParallelism(). */
  workers?: number;
  /**
   * Move each raw chunk's memory to the worker instead of copying it. The
   * caller's Buffer is then empty after encode(); only Buffers that own their
   * whole ArrayBuffer (as chunkFile yields) are moved, others are copied.
   * Default true.
   */
  transfer?: boolean;
}

/**
 * Hashing, compression and decoding of chunks on worker threads. The one
 * interface the rest of the engine uses for per-chunk CPU work.
 */
export interface ChunkPipeline {
  /**
   * Ids and encodes one chunk (chunkId + encodeChunk). Rejects with USAGE after
   * close or for a Buffer that an earlier encode() already moved.
   */
  encode(raw: Buffer, opts?: EncodeOptions): Promise<EncodedChunk>;
  /**
   * Encodes every chunk of `chunks` with at most `window` in flight
   * (default 2 per worker + 2) and yields the results in input order.
   */
  encodeAll(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, window?: number): AsyncGenerator<EncodedChunk>;
  /**
   * Reads, chunks and encodes a whole small file on a worker (at most
   * WHOLE_FILE_MAX bytes), so the caller's thread does no file I/O for it.
   * The file is cut to `size` (padded with zeros if it shrank); `changed`
   * says when it did not have that size.
   */
  encodeFile(path: string, size: number, opts?: EncodeFileOptions): Promise<{ chunks: FileChunk[]; changed?: string; signature?: Buffer }>;
  /**
   * Reads, cuts and encodes a file larger than WHOLE_FILE_MAX, in file
   * order: yields each chunk's length as soon as it is cut, with a promise
   * of its encoding (its bytes in `raw` when `opts.raw`). The file is cut to
   * `size` bytes as encodeFile does; `changed` hears how it differed, and
   * `signature` gets its bpsig1 signature when `opts.signature` asks.
   * @throws BrickpostError NOT_FOUND, PERMISSION, IO
   */
  encodeLarge(
    path: string,
    size: number,
    opts: EncodeFileOptions,
    changed: (how: string) => void,
    signature: (sig: Buffer) => void,
  ): AsyncGenerator<{ length: number; job: Promise<FileChunk> }>;
  /**
   * Codes chunk `raw` as a delta against `basis` (deltaFrame): on the worker
   * that holds that signature, the bytes moved to it, or in the native
   * core, which reads them in place. Null when the delta's frame would not
   * be shorter than `limit`.
   */
  delta(raw: Buffer, basis: DeltaBasis, limit: number): Promise<{ frame: Buffer; deltaLength: number } | null>;
  /** decodeChunk on a worker; rejects with its errors. */
  decode(frame: Buffer, expectedLength: number, id: Buffer): Promise<Buffer>;
  /** Jobs submitted and not yet answered. */
  readonly pending: number;
  /** Waits for submitted jobs, then stops the workers. */
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  busy: number;
  /** The basis signature last sent to this worker, which it still holds. */
  sigId: number | null;
}

interface Queued {
  job: Job;
  transfer: ArrayBuffer[];
  /** A delta job: the slot it must run on, and how to load its signature if that slot lacks it. */
  slot?: number;
  basis?: DeltaBasis;
}

interface Waiter {
  resolve: (r: Reply & { ok: true }) => void;
  reject: (e: Error) => void;
}

/** Jobs handed to one worker ahead of time, so it never idles between messages. */
const PER_WORKER = 3;

/**
 * Starts a pool of worker threads (worker.js beside this file, N-API zstd
 * loaded in each). Each call returns its own promise, and a worker answers
 * every job it takes, so a caller that awaits its submissions in order gets
 * them in order; jobs beyond 2 per worker wait in a FIFO queue. Delta jobs
 * of one basis signature all go to one worker (id mod N), which keeps the
 * parsed signature, so it crosses threads once per file. Workers are
 * unref'd while idle, so a forgotten close() does not keep the process alive.
 *
 * Throws USAGE for a bad worker count. Job promises reject with the worker's
 * BrickpostError, or IO if a worker dies.
 */
export function createChunkPipeline(opts: ChunkPipelineOptions): ChunkPipeline {
  const count = opts.workers ?? availableParallelism();
  if (!Number.isInteger(count) || count < 1 || count > 256) {
    throw new BrickpostError('USAGE', `chunk pipeline worker count ${count} is not in 1..256`);
  }
  const transfer = opts.transfer ?? true;
  const init: WorkerInit = { key: opts.key, level: opts.level };
  const waiters = new Map<number, Waiter>();
  const queue: Queued[] = [];
  let seq = 0;
  let failure: BrickpostError | null = null;
  let closing: Promise<void> | null = null;
  let drained: (() => void) | null = null;
  let cutter: Cutter | null = null;

  const slots: Slot[] = [];
  for (let i = 0; i < count; i++) {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: init, resourceLimits: WORKER_LIMITS });
    const slot: Slot = { worker, busy: 0, sigId: null };
    worker.unref();
    worker.on('message', (reply: Reply) => settle(slot, reply));
    worker.on('error', (e) => fail(new BrickpostError('IO', `chunk worker crashed: ${e.message}`, { cause: e })));
    worker.on('exit', (code) => {
      if (!closing) fail(new BrickpostError('IO', `chunk worker exited with code ${code}`));
    });
    slots.push(slot);
  }

  function settle(slot: Slot, reply: Reply): void {
    slot.busy--;
    if (slot.busy === 0) slot.worker.unref();
    const w = waiters.get(reply.seq);
    waiters.delete(reply.seq);
    if (w) {
      if (reply.ok) w.resolve(reply);
      else w.reject(deserializeError(reply.error));
    }
    pump();
    if (waiters.size === 0 && drained) drained();
  }

  function fail(e: BrickpostError): void {
    failure ??= e;
    queue.length = 0;
    for (const w of waiters.values()) w.reject(failure);
    waiters.clear();
    if (drained) drained();
  }

  function pump(): void {
    for (let i = 0; i < queue.length;) {
      const next = queue[i]!;
      let best: Slot | null = null;
      if (next.slot !== undefined) {
        const s = slots[next.slot]!;
        if (s.busy < PER_WORKER) best = s;
      } else {
        for (const s of slots) if (s.busy < PER_WORKER && (!best || s.busy < best.busy)) best = s;
        if (!best) return;
      }
      // A delta job waits for its own worker; jobs behind it may go elsewhere.
      if (!best) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      if (next.job.op === 'delta' && best.sigId !== next.job.sigId) {
        next.job.sig = next.basis!.bytes();
        best.sigId = next.job.sigId;
      }
      if (best.busy === 0) best.worker.ref();
      best.busy++;
      best.worker.postMessage(next.job, next.transfer);
    }
  }

  function submit(job: Job, moved: ArrayBuffer[], route: { slot: number; basis: DeltaBasis } | null = null): Promise<Reply & { ok: true }> {
    if (failure) return Promise.reject(failure);
    if (closing) return Promise.reject(new BrickpostError('USAGE', 'chunk pipeline is closed'));
    return new Promise((resolve, reject) => {
      waiters.set(job.seq, { resolve, reject });
      queue.push(route ? { job, transfer: moved, ...route } : { job, transfer: moved });
      pump();
    });
  }

  function post(view: Uint8Array, move: boolean, moved: ArrayBuffer[]): Uint8Array {
    try {
      return forPost(view, move, moved);
    } catch (e) {
      // Copying a view of a detached ArrayBuffer throws: the caller passed a Buffer an earlier call moved.
      throw new BrickpostError('USAGE', 'chunk buffer was already moved to a worker by an earlier call', { cause: e });
    }
  }

  const pipeline: ChunkPipeline = {
    async encode(raw, opts = {}) {
      const moved: ArrayBuffer[] = [];
      const posted = post(raw, transfer && !opts.keep, moved);
      const r = await submit({ seq: seq++, op: 'encode', raw: posted, ...(opts.sha ? { sha: true } : {}) }, moved);
      if (r.op !== 'encode') throw new BrickpostError('IO', 'chunk worker answered an encode with a decode');
      const c: EncodedChunk = { id: asBuffer(r.id), frame: asBuffer(r.frame), stored: r.stored, length: r.length };
      if (r.sha) c.sha = asBuffer(r.sha);
      return c;
    },
    async *encodeAll(chunks, window = PER_WORKER * count + 2) {
      const inFlight: Promise<EncodedChunk>[] = [];
      try {
        for await (const raw of chunks) {
          const p = pipeline.encode(raw);
          p.catch(() => undefined);
          inFlight.push(p);
          if (inFlight.length >= window) yield await inFlight.shift()!;
        }
        while (inFlight.length > 0) yield await inFlight.shift()!;
      } finally {
        await Promise.allSettled(inFlight);
      }
    },
    async encodeFile(path, size, opts = {}) {
      const r = await submit({ seq: seq++, op: 'file', path, size, ...opts }, []);
      if (r.op !== 'file') throw new BrickpostError('IO', 'chunk worker answered a file job with something else');
      const chunks = r.chunks.map((c) => {
        const f: FileChunk = { id: asBuffer(c.id), frame: asBuffer(c.frame), stored: c.stored, length: c.length };
        if (c.sha) f.sha = asBuffer(c.sha);
        if (c.raw) f.raw = asBuffer(c.raw);
        return f;
      });
      return { chunks, ...(r.changed ? { changed: r.changed } : {}), ...(r.signature ? { signature: asBuffer(r.signature) } : {}) };
    },
    async *encodeLarge(path, size, opts, changed, signature) {
      cutter ??= new Cutter();
      for await (const raw of cutter.chunks(path, size, changed, opts.signature ?? 0, signature)) {
        const job: Promise<FileChunk> = pipeline.encode(raw, { keep: opts.raw === true, sha: opts.sha === true }).then((c) => (opts.raw ? { ...c, raw } : c));
        job.catch(() => undefined);
        yield { length: raw.length, job };
      }
    },
    async delta(raw, basis, limit) {
      const moved: ArrayBuffer[] = [];
      const job: Job = { seq: seq++, op: 'delta', raw: post(raw, transfer, moved), sigId: basis.id, limit };
      const r = await submit(job, moved, { slot: Math.abs(basis.id) % slots.length, basis });
      if (r.op !== 'delta') throw new BrickpostError('IO', 'chunk worker answered a delta job with something else');
      return r.frame ? { frame: asBuffer(r.frame), deltaLength: r.deltaLength } : null;
    },
    async decode(frame, expectedLength, id) {
      const moved: ArrayBuffer[] = [];
      const job: Job = { seq: seq++, op: 'decode', frame: forPost(frame, false, moved), expectedLength, id: forPost(id, false, moved) };
      const r = await submit(job, moved);
      if (r.op !== 'decode') throw new BrickpostError('IO', 'chunk worker answered a decode with an encode');
      return asBuffer(r.raw);
    },
    get pending() {
      return waiters.size;
    },
    close() {
      closing ??= (async () => {
        if (waiters.size > 0) await new Promise<void>((r) => (drained = r));
        await Promise.all(slots.map((s) => endWorker(s.worker)));
        await cutter?.close();
      })();
      return closing;
    },
  };
  return pipeline;
}
