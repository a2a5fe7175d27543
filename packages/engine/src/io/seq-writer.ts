import { open, type FileHandle } from 'node:fs/promises';
import { createHash, type Hash } from 'node:crypto';
import { quote, type BrickpostError } from '@brickpost/manifest';
import { toEnvironmentError, type Place } from './errors.js';

/**
 * Sees every byte of a file as it is written, in order: the drive's byte
 * count and quota, the parity of a drive set and the drive's recovery data
 * are computed from it. `end` runs once the file is complete.
 */
export interface WriteTap {
  data(buf: Buffer, offset: number): Promise<void> | void;
  end?(size: number): Promise<void> | void;
}

/**
 * A file written front to back in large writes, hashed (SHA-256) as it is
 * written. Buffers are batched into writev calls of about `batch` bytes and
 * one write is kept in flight while the caller prepares the next, so CPU
 * work and disk writes overlap; with `queue`, up to that many more bytes
 * may wait behind it, written in order, before write() waits (a drive of a
 * set that is busy does not hold up the writer feeding the others).
 * Created with O_EXCL: never overwrites.
 */
export class SeqWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private inFlight: Promise<void> = Promise.resolve();
  /** With a queue: the writes not yet complete, oldest first, and their bytes. */
  private readonly writes: Array<Promise<void>> = [];
  private queuedBytes = 0;
  private readonly hash: Hash | null;
  size = 0;
  /** Bytes the file system has taken (their writes completed): a caller may reuse those Buffers. */
  written = 0;

  private constructor(
    private readonly fh: FileHandle,
    readonly path: string,
    private readonly batch: number,
    private readonly tap?: WriteTap,
    hash = true,
    /** What the file is on, for the hint of a failure. */
    private readonly on?: Place,
    /** Bytes that may wait behind the write in flight (0: none). */
    private readonly queue = 0,
  ) {
    this.hash = hash ? createHash('sha256') : null;
  }

  /**
   * Creates the file (it must not exist); `on` says what it is on (the
   * drive, the destination), for hints. `hash: false` when the caller
   * hashes the content itself (close then returns '').
   * @throws BrickpostError NO_SPACE, READ_ONLY, PERMISSION, IO
   */
  static async create(path: string, opts: { batch?: number; tap?: WriteTap; hash?: boolean; on?: Place; queue?: number } = {}): Promise<SeqWriter> {
    try {
      return new SeqWriter(await open(path, 'wx', 0o644), path, opts.batch ?? 4 << 20, opts.tap, opts.hash ?? true, opts.on, opts.queue ?? 0);
    } catch (e) {
      throw toEnvironmentError(e, `cannot create ${quote(path)}`, opts.on ? { on: opts.on } : {});
    }
  }

  /** Queues bytes; resolves when the caller may queue more. */
  async write(buf: Buffer): Promise<void> {
    if (buf.length === 0) return;
    await this.tap?.data(buf, this.size);
    this.hash?.update(buf);
    this.size += buf.length;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes >= this.batch) await this.flush();
  }

  private async flush(): Promise<void> {
    const bufs = this.pending;
    this.pending = [];
    const bytes = this.pendingBytes;
    this.pendingBytes = 0;
    if (this.queue === 0) {
      await this.inFlight;
      this.inFlight = this.writeAll(bufs);
      return;
    }
    // Each write starts when the one before it ends, so the file is written in order.
    this.queuedBytes += bytes;
    const next = this.inFlight
      .then(() => this.writeAll(bufs))
      .finally(() => {
        this.queuedBytes -= bytes;
        void this.writes.shift();
      });
    void next.catch(() => undefined);
    this.writes.push(next);
    this.inFlight = next;
    while (this.queuedBytes > this.queue + bytes && this.writes.length > 1) await this.writes[0];
  }

  /** Writes everything queued so far; resolves once it is written. */
  async drain(): Promise<void> {
    await this.flush();
    await this.inFlight;
  }

  private async writeAll(bufs: Buffer[]): Promise<void> {
    try {
      let rest = bufs;
      while (rest.length > 0) {
        const { bytesWritten } = await this.fh.writev(rest);
        this.written += bytesWritten;
        rest = advance(rest, bytesWritten);
      }
    } catch (e) {
      throw this.failed(e);
    }
  }

  private failed(e: unknown): BrickpostError {
    return toEnvironmentError(e, `cannot write ${quote(this.path)}`, { path: this.path, ...(this.on ? { on: this.on } : {}) });
  }

  /**
   * Writes what is left, fsyncs and closes. Returns the SHA-256 of the content ('' when not hashing).
   * A failed fsync fails the file: its bytes may not be on the disk.
   * @throws BrickpostError NO_SPACE, READ_ONLY, IO
   */
  async close(sync = true): Promise<string> {
    await this.flush();
    try {
      await this.inFlight;
      if (sync) await this.fh.sync();
    } catch (e) {
      await this.fh.close().catch(() => undefined);
      throw this.failed(e);
    }
    await this.fh.close();
    await this.tap?.end?.(this.size);
    return this.hash?.digest('hex') ?? '';
  }

  /** Closes without finishing (after an error elsewhere). */
  async abort(): Promise<void> {
    await this.inFlight.catch(() => undefined);
    await this.fh.close().catch(() => undefined);
  }
}

function advance(bufs: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (i < bufs.length && n >= bufs[i]!.length) n -= bufs[i++]!.length;
  if (i === bufs.length) return [];
  return [bufs[i]!.subarray(n), ...bufs.slice(i + 1)];
}
