import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink } from '../api/index.js';
import { bagDir, PART_SUFFIX } from '../drive/layout.js';
import { toEnvironmentError } from '../io/errors.js';
import { failpointError } from '../io/failpoint.js';
import { makeFolders } from '../io/folders.js';
import { Progress } from '../io/progress.js';
import { SeqWriter, type WriteTap } from '../io/seq-writer.js';
import { RecoveryWriter } from '../recovery/index.js';

/** A payload file finished on a drive, for its payload manifest. */
export interface DriveFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * One drive a shipment is written to: its `.part` bag folder, the bytes
 * written so far against its capacity (`--drive-size` or free space), its
 * progress events, and its recovery data, which sees every byte of every
 * payload file written through `create`.
 */
export class DriveTarget {
  readonly part: string;
  readonly final: string;
  written = 0;
  private readonly progress: Progress;

  private constructor(
    readonly root: string,
    /** 0-based share number: the drive is `share + 1` of the set. */
    readonly share: number,
    shipment: string,
    /** Bytes this drive may take (the smaller of free space and --drive-size). */
    readonly capacity: number,
    readonly recovery: RecoveryWriter | null,
    onEvent: EventSink,
    /** Bytes gathered per write: a set has many files open at once, each holding a batch and one in flight. */
    private readonly batch: number,
    /** Bytes a file of a set's drive may have waiting behind its write in flight (see open). */
    private readonly queue: number,
  ) {
    this.final = bagDir(root, shipment);
    this.part = this.final + PART_SUFFIX;
    this.progress = new Progress(onEvent, 'write', 500, root);
  }

  /**
   * Opens a drive's `.part` bag folder (created if missing) and its recovery writer.
   * @throws BrickpostError NO_SPACE, PERMISSION, IO
   */
  static async open(o: {
    root: string;
    share: number;
    drives: number;
    shipment: string;
    capacity: number;
    recovery: number;
    onEvent: EventSink;
  }): Promise<DriveTarget> {
    const part = bagDir(o.root, o.shipment) + PART_SUFFIX;
    await makeFolders(join(part, 'data')).catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot create the shipment folder on ${quote(o.root)}`, { on: 'drive' });
    });
    const rw = o.recovery > 0 ? await RecoveryWriter.create(part, { percent: o.recovery }) : null;
    const batch = Math.max(1 << 20, Math.floor((4 << 20) / o.drives));
    // One writer feeds every drive of a set: a drive busy with its last write must not stop it from feeding the others.
    const queue = o.drives > 1 ? Math.max(2 * batch, Math.floor((64 << 20) / o.drives)) : 0;
    return new DriveTarget(o.root, o.share, o.shipment, o.capacity, rw, o.onEvent, batch, queue);
  }

  /** Expected bytes for this drive, for its ETA. */
  set expected(bytes: number) {
    this.progress.bytesTotal = bytes;
  }

  /**
   * Creates payload file `rel` in the bag; every byte written to it is
   * counted against the drive's capacity and fed to the recovery data and
   * to `tap`. `hash: false` when the caller hashes the file itself.
   * @throws BrickpostError NO_SPACE (naming the drive), PERMISSION, IO
   */
  async create(rel: string, tap?: WriteTap, opts: { hash?: boolean } = {}): Promise<SeqWriter> {
    const file = join(this.part, rel);
    await makeFolders(dirname(file)).catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot create the folder of ${quote(rel)}`, { on: 'drive' });
    });
    return SeqWriter.create(file, {
      ...opts,
      on: 'drive',
      batch: this.batch,
      queue: this.queue,
      tap: {
        data: async (buf, offset) => {
          this.count(buf.length);
          await this.recovery?.add(rel, offset, buf);
          await tap?.data(buf, offset);
        },
        end: async (size) => {
          await this.recovery?.endFile(rel);
          await tap?.end?.(size);
        },
      },
    });
  }

  /**
   * Reads back a complete payload file already on the drive (a pack that
   * `--resume` keeps) and feeds it to the recovery data and `tap` as if it
   * were written now, a piece at a time: yields after each piece so the
   * caller can interleave the drives of a set.
   */
  async *replay(rel: string, tap?: WriteTap): AsyncGenerator<number> {
    let offset = 0;
    for await (const c of createReadStream(join(this.part, rel), { highWaterMark: 1 << 20 })) {
      const buf = c as Buffer;
      this.count(buf.length);
      await this.recovery?.add(rel, offset, buf);
      await tap?.data(buf, offset);
      offset += buf.length;
      yield buf.length;
    }
    await this.recovery?.endFile(rel);
  }

  private count(n: number): void {
    failpointError('drive-write', () => new BrickpostError('NO_SPACE', `drive ${quote(this.root)} is full (simulated)`));
    this.written += n;
    if (this.written > this.capacity) {
      throw new BrickpostError('NO_SPACE', `drive ${this.share + 1} (${quote(this.root)}) is full: ${this.written} bytes written, it holds ${this.capacity}`, {
        path: this.root,
        hint: 'free space on it or give a larger drive, then run the same pack again with --resume',
      });
    }
    this.progress.add(n);
  }

  /** Writes the final progress event of this drive. */
  done(): void {
    this.progress.emit();
  }

  /** Removes the `.part` folder (after a failure that is not resumable). */
  async remove(): Promise<void> {
    await this.recovery?.abort();
    await rm(this.part, { recursive: true, force: true }).catch(() => undefined);
  }
}
