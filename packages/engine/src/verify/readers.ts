import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest';
import { asBuffer, deserializeError, WORKER_LIMITS } from '../chunk/messages.js';
import type { PackSource } from './native-readers.js';
import { RefError, type ReaderInit, type ReaderRef, type ReaderReply, type ReaderRequest } from './reader-messages.js';

type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

/**
 * Pack reader threads: pack p is read by thread p mod N (one per core beyond
 * the one the caller writes files on), so consecutive packs
 * are read, decrypted and decoded in parallel while the caller consumes them
 * in order. Each call returns its own promise; calls on one pack are served
 * in the order they were made.
 */
export class PackReaders implements PackSource {
  private readonly workers: Worker[] = [];
  private readonly waiters = new Map<number, { resolve: (r: ReaderReply & { ok: true }) => void; reject: (e: Error) => void }>();
  private seq = 0;
  private failure: BrickpostError | null = null;

  constructor(init: ReaderInit, count = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    for (let i = 0; i < count; i++) {
      const w = new Worker(new URL('./reader-worker.js', import.meta.url), { workerData: init, resourceLimits: WORKER_LIMITS });
      w.on('message', (r: ReaderReply) => {
        const waiter = this.waiters.get(r.seq);
        this.waiters.delete(r.seq);
        if (!waiter) return;
        if (r.ok) waiter.resolve(r);
        else waiter.reject(r.error.ref !== undefined ? new RefError(r.error.ref, deserializeError(r.error)) : deserializeError(r.error));
      });
      w.on('error', (e) => this.fail(new BrickpostError('IO', `pack reader thread crashed: ${e.message}`, { cause: e })));
      this.workers.push(w);
    }
  }

  private fail(e: BrickpostError): void {
    this.failure ??= e;
    for (const w of this.waiters.values()) w.reject(e);
    this.waiters.clear();
  }

  private call(worker: number, req: WithoutSeq<ReaderRequest>): Promise<ReaderReply & { ok: true }> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      this.waiters.set(seq, { resolve, reject });
      this.workers[worker]!.postMessage({ ...req, seq });
    });
  }

  /** The verified bytes of the given chunks of pack `pack`. */
  async read(pack: number, refs: ReaderRef[]): Promise<Buffer[]> {
    const r = await this.call(pack % this.workers.length, { op: 'read', pack, refs });
    return r.chunks.map(asBuffer);
  }

  /** Reads pack `pack` to its end and checks its SHA-256; returns its plaintext size. */
  async finish(pack: number, sha256: string): Promise<number> {
    const r = await this.call(pack % this.workers.length, { op: 'finish', pack, sha256 });
    return r.plain!;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.workers.map((_, i) => this.call(i, { op: 'close' })));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
