import { Worker } from 'node:worker_threads';
import { BrickpostError } from '@brickpost/manifest/errors';
import type { CutReply, CutRequest } from './cut-worker.js';
import { asBuffer, deserializeError, endWorker, WORKER_LIMITS } from './messages.js';

/**
 * A thread that reads and cuts large files, so the thread that orchestrates
 * a pack spends no time on file I/O or FastCDC. One file at a time; the next
 * batch (about 8 MiB of whole chunks) is read while the caller uses the
 * current one.
 */
export class Cutter {
  private readonly worker = new Worker(new URL('./cut-worker.js', import.meta.url), { resourceLimits: WORKER_LIMITS });
  /** Calls awaiting a reply, oldest first: the thread answers in order. */
  private readonly pending: Array<{ resolve: (r: CutReply) => void; reject: (e: Error) => void }> = [];
  /** Set once the thread has ended: calls fail with it. */
  private ended: BrickpostError | null = null;

  constructor() {
    this.worker.on('message', (r: CutReply) => {
      this.pending.shift()?.resolve(r);
      if (this.pending.length === 0) this.worker.unref();
    });
    this.worker.on('error', (e) => {
      const err = new BrickpostError('IO', `cutter thread crashed: ${e.message}`, { cause: e });
      for (const p of this.pending.splice(0)) p.reject(err);
    });
    // A call the thread never answered (it was ended mid-call), or one made after it ended, fails rather than waiting forever.
    this.worker.on('exit', (code) => {
      this.ended = new BrickpostError('IO', `cutter thread ended (code ${code}) before it answered`);
      for (const p of this.pending.splice(0)) p.reject(this.ended);
    });
    this.worker.unref();
  }

  private call(req: CutRequest): Promise<CutReply> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.worker.ref();
      this.worker.postMessage(req);
    });
  }

  private async ok(req: CutRequest): Promise<CutReply & { ok: true }> {
    const r = await this.call(req);
    if (!r.ok) throw deserializeError(r.error);
    return r;
  }

  /**
   * The chunks of `path`, cut to `size` bytes as tar does (a file that grew
   * is cut short, one that shrank is padded with zeros; `changed` is told).
   * With `signatureBlock > 0`, `signature` is told the bpsig1 signature of
   * the bytes yielded, in blocks of that size, after the last chunk.
   * @throws BrickpostError NOT_FOUND, PERMISSION, IO
   */
  async *chunks(path: string, size: number, changed: (how: string) => void, signatureBlock = 0, signature?: (sig: Buffer) => void): AsyncGenerator<Buffer> {
    let r = await this.ok({ op: 'open', path, size, ...(signatureBlock > 0 ? { signature: signatureBlock } : {}) });
    try {
      if (r.signature) signature?.(asBuffer(r.signature));
      let next: Promise<CutReply & { ok: true }> | null = r.done ? null : this.ok({ op: 'next' });
      while (next) {
        r = await next;
        next = r.done ? null : this.ok({ op: 'next' });
        for (const c of r.chunks) yield asBuffer(c);
        if (r.changed) changed(r.changed);
        if (r.signature) signature?.(asBuffer(r.signature));
      }
    } finally {
      await this.ok({ op: 'close' }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await endWorker(this.worker);
  }
}
