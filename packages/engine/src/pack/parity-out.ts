import { PARITY_FILE_SIZE, parityPath } from '@brickpost/manifest';
import type { SeqWriter, WriteTap } from '../io/seq-writer.js';
import { encodeParity } from '../parity/rs.js';
import type { DriveFile, DriveTarget } from './drive-target.js';

/** Bytes of each share encoded at a time. */
const UNIT = 1 << 20;

/**
 * The parity shares of a drive set, computed while the data shares are
 * written (FORMAT.md §drive-sets): every byte a data drive's packs add to
 * its share stream comes in through `tap(share)`, and once every data
 * stream has passed an offset the parity of the bytes before it is
 * encoded and written to the parity drives. Frames go to the data share
 * that is behind, so the streams stay within about a frame of each other
 * and memory holds only that lag, not the shares.
 */
export class ParityOut {
  private readonly queues: Buffer[][];
  private readonly received: number[];
  private readonly outs: ParityFiles[];
  private done = 0;
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly k: number,
    parity: DriveTarget[],
  ) {
    this.queues = Array.from({ length: k }, () => []);
    this.received = new Array<number>(k).fill(0);
    this.outs = parity.map((t) => new ParityFiles(t));
  }

  /** The tap of data share `share`'s stream. */
  tap(share: number): WriteTap {
    return { data: (buf) => this.data(share, buf) };
  }

  /** The next bytes of data share `share`'s stream. */
  async data(share: number, buf: Buffer): Promise<void> {
    this.queues[share]!.push(buf);
    this.received[share]! += buf.length;
    while (Math.min(...this.received) - this.done >= UNIT) await this.encode(UNIT);
  }

  private take(share: number, len: number): Buffer {
    const q = this.queues[share]!;
    const out = Buffer.alloc(len);
    let at = 0;
    while (at < len && q.length > 0) {
      const head = q[0]!;
      const n = Math.min(head.length, len - at);
      head.copy(out, at, 0, n);
      at += n;
      if (n === head.length) q.shift();
      else q[0] = head.subarray(n);
    }
    return out; // zero-filled past the end of a short share
  }

  private encode(len: number): Promise<void> {
    const run = async (): Promise<void> => {
      const srcs = this.queues.map((_, i) => this.take(i, len));
      this.done += len;
      // All rows at once: each source is copied into the kernel's memory once.
      const rows = this.outs.map(() => Buffer.allocUnsafe(len));
      encodeParity(this.k, srcs, rows, len);
      for (let j = 0; j < rows.length; j++) await this.outs[j]!.write(rows[j]!);
    };
    this.busy = this.busy.then(run);
    return this.busy;
  }

  /** Encodes the rest (shorter shares padded with zeros) and closes the parity files. */
  async finish(): Promise<DriveFile[][]> {
    await this.busy;
    const end = Math.max(0, ...this.received);
    while (this.done < end) await this.encode(Math.min(UNIT, end - this.done));
    const files: DriveFile[][] = [];
    for (const o of this.outs) files.push(await o.close());
    return files;
  }

  async abort(): Promise<void> {
    await this.busy.catch(() => undefined);
    for (const o of this.outs) await o.abort();
  }
}

/** One parity drive's share stream, cut into files of PARITY_FILE_SIZE bytes. */
class ParityFiles {
  private current: SeqWriter | null = null;
  private readonly files: DriveFile[] = [];

  constructor(private readonly target: DriveTarget) {}

  async write(buf: Buffer): Promise<void> {
    while (buf.length > 0) {
      this.current ??= await this.target.create(parityPath(this.files.length));
      const n = Math.min(buf.length, PARITY_FILE_SIZE - this.current.size);
      await this.current.write(buf.subarray(0, n));
      buf = buf.subarray(n);
      if (this.current.size === PARITY_FILE_SIZE) await this.closeCurrent();
    }
  }

  private async closeCurrent(): Promise<void> {
    const w = this.current!;
    this.current = null;
    const path = parityPath(this.files.length);
    this.files.push({ path, size: w.size, sha256: await w.close() });
  }

  async close(): Promise<DriveFile[]> {
    if (this.current) await this.closeCurrent();
    return this.files;
  }

  async abort(): Promise<void> {
    await this.current?.abort();
  }
}
