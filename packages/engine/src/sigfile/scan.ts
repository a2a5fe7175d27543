import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BrickpostError, componentProblem } from '@brickpost/manifest';
import { deserializeError, endWorker, WORKER_LIMITS } from '../chunk/messages.js';
import { walk, type SkippedEntry } from '../scan/index.js';
import type { ScanInit, ScanJob, ScanReply } from './scan-worker.js';

/** One file of a scanned folder, with its chunks in order. */
export interface ScannedFile {
  /** Manifest path: relative, `/`-separated. */
  p: string;
  size: number;
  mtimeNs: bigint;
  /** [SHA-256 or keyed chunk id (32 bytes), length] per chunk. */
  chunks: Array<[Buffer, number]>;
  /** Set when the file changed size while it was read (see scanFolder). */
  changed?: string;
}

/** Options of scanFolder. */
export interface ScanFolderOptions {
  /** Chunk-id key (chunkKey of the dataset secret): chunks get their keyed ids. Without it, their SHA-256. */
  key?: Buffer;
  signal?: AbortSignal | undefined;
  /** Bytes read so far, as they are read (for progress). */
  onBytes?: (n: number) => void;
  /** An entry left out: a symlink, special file, unportable name, or a file that vanished. */
  onSkip?: (s: SkippedEntry) => void;
  /** Threads; default: one per core, at most 4. */
  workers?: number;
}

/** Files scanned ahead of the one the caller is at, per thread (queued in the thread, so it never idles). */
const WINDOW_PER_WORKER = 8;

interface Pending {
  job: ScanJob;
  mtimeNs: bigint;
  slot: number;
  resolve: (r: ScanReply & { kind: 'done' }) => void;
  reject: (e: Error) => void;
  skipped: boolean;
}

/**
 * Walks `root` in manifest order (scan/walk.ts: the top-level `.brickpost`
 * state folder is skipped) and yields every regular file with its chunks as
 * a pack would cut them (FastCDC v1, chunk/), each with its SHA-256 or, given
 * `key`, its keyed chunk id: the same ids a manifest of the same bytes has.
 * Files are read and hashed on worker threads, several at once; results come
 * in walk order. Exactly the size seen by the walk is read: a file that grew
 * is cut at that size and one that shrank is read as padded with zeros, as
 * pack does, and `changed` says so. A file that vanished is skipped.
 * Memory: the thread buffers (12 MiB each) and the chunk lists of the files
 * in the window.
 * @throws BrickpostError NOT_FOUND, PERMISSION, IO, UNSAFE_ENTRY (names that collide by case), CANCELLED
 */
export async function* scanFolder(root: string, opts: ScanFolderOptions = {}): AsyncGenerator<ScannedFile> {
  const count = opts.workers ?? Math.min(4, availableParallelism());
  const init: ScanInit = { key: opts.key ? new Uint8Array(opts.key) : null };
  const workers: Worker[] = [];
  const busy: number[] = [];
  const waiting = new Map<number, Pending>();
  let failure: Error | null = null;
  let seq = 0;

  const fail = (e: Error): void => {
    failure ??= e;
    for (const p of waiting.values()) p.reject(failure);
    waiting.clear();
  };
  for (let i = 0; i < count; i++) {
    const w = new Worker(new URL('./scan-worker.js', import.meta.url), { workerData: init, resourceLimits: WORKER_LIMITS });
    w.on('message', (r: ScanReply) => {
      const p = waiting.get(r.seq);
      if (!p) return;
      if (r.kind === 'progress') return opts.onBytes?.(r.bytes);
      waiting.delete(r.seq);
      if (--busy[p.slot]! === 0) w.unref();
      if (r.kind === 'done') p.resolve(r);
      else if (r.vanished) ((p.skipped = true), p.resolve({ seq: r.seq, kind: 'done', ids: new Uint8Array(0), lengths: [] }));
      else p.reject(deserializeError(r.error));
    });
    w.on('error', (e) => fail(new BrickpostError('IO', `scan thread crashed: ${e.message}`, { cause: e })));
    w.unref();
    workers.push(w);
    busy.push(0);
  }

  const submit = (path: string, size: number, mtimeNs: bigint): { pending: Pending; done: Promise<ScanReply & { kind: 'done' }> } => {
    let slot = 0;
    for (let i = 1; i < count; i++) if (busy[i]! < busy[slot]!) slot = i;
    const job: ScanJob = { seq: seq++, path, size };
    let pending!: Pending;
    const done = new Promise<ScanReply & { kind: 'done' }>((resolve, reject) => {
      pending = { job, mtimeNs, slot, resolve, reject, skipped: false };
    });
    done.catch(() => undefined);
    if (failure) pending.reject(failure);
    else {
      waiting.set(job.seq, pending);
      if (busy[slot]!++ === 0) workers[slot]!.ref();
      workers[slot]!.postMessage(job);
    }
    return { pending, done };
  };

  const queue: Array<{ p: string; size: number; pending: Pending; done: Promise<ScanReply & { kind: 'done' }> }> = [];
  const take = async (): Promise<ScannedFile | null> => {
    const q = queue.shift()!;
    const r = await q.done;
    if (q.pending.skipped) {
      opts.onSkip?.({ path: q.p, reason: 'vanished while scanning', kind: 'vanished' });
      return null;
    }
    const ids = Buffer.from(r.ids.buffer, r.ids.byteOffset, r.ids.byteLength);
    const chunks = r.lengths.map((len, i): [Buffer, number] => [ids.subarray(i * 32, i * 32 + 32), len]);
    return { p: q.p, size: q.size, mtimeNs: q.pending.mtimeNs, chunks, ...(r.changed ? { changed: r.changed } : {}) };
  };

  try {
    const window = WINDOW_PER_WORKER * count;
    for await (const e of walk(root, (s) => opts.onSkip?.(s), { attributes: false })) {
      if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', 'scan cancelled');
      // A hard link's data is listed under its first name; links and special files hold none.
      if (e.type === 'link' || e.type === 'special')
        opts.onSkip?.({ path: e.path, reason: e.type === 'link' ? 'symbolic link (holds no data to list)' : 'special file', kind: 'name' });
      if (e.type !== 'file') continue;
      // Signature files name paths by the portable rules (FORMAT.md §signature-file).
      const problem = e.path
        .split('/')
        .map(componentProblem)
        .find((x) => x !== null);
      if (problem) {
        opts.onSkip?.({ path: e.path, reason: `not listed: ${problem}`, kind: 'name' });
        continue;
      }
      queue.push({ p: e.path, size: e.size, ...submit(e.abs, e.size, e.mtimeNs) });
      while (queue.length >= window) {
        const f = await take();
        if (f) yield f;
      }
    }
    while (queue.length > 0) {
      if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', 'scan cancelled');
      const f = await take();
      if (f) yield f;
    }
  } finally {
    fail(new BrickpostError('CANCELLED', 'scan stopped'));
    await Promise.all(workers.map(endWorker));
  }
}
