/**
 * The recovery rows of one window as RecoveryWriter and encodeWindow add
 * blocks into them: on the native core, blocks are handed over in batches
 * and coded (and their CRC-32s computed) on a thread of the core's own,
 * off the JavaScript thread; otherwise the WebAssembly accumulators of
 * parity/accumulators.ts do it here, block by block. Both give the same
 * bytes.
 */
import type { NativeBinding, RecoveryRows as NativeRows } from '@brickpost/native';
import { crc32 } from 'node:zlib';
import { BrickpostError } from '@brickpost/manifest';
import { fromNative, native } from '../io/native.js';
import { Accumulators } from '../parity/index.js';

/** Recovery rows: blocks added into slots with coefficients, and each block's CRC-32. */
export interface RowCoder {
  /**
   * Adds `data` (copied before this resolves) into slots[j] with coefs[j];
   * its CRC-32 goes to `crc` before the next take() resolves (blocks
   * added one after another may get theirs in another order).
   */
  add(data: Uint8Array, slots: ArrayLike<number>, coefs: ArrayLike<number>, crc: (value: number) => void): Promise<void>;
  /** The rows `slots` once every block added before is in (copies, or views valid until the next add or clear). */
  take(slots: number[]): Promise<Uint8Array[]>;
  /** Sets every row to zero, after the blocks added before. */
  clear(): Promise<void>;
}

/** `count` rows of `size` bytes: the native core's where it is built, else WebAssembly accumulators. */
export function rowCoder(count: number, size: number): RowCoder {
  const core = native();
  return core ? new BatchedRows(core, count, size) : new LocalRows(count, size);
}

/** The WebAssembly accumulators, here, block by block. */
export class LocalRows implements RowCoder {
  private acc: Accumulators | undefined;

  constructor(
    private readonly count: number,
    private readonly size: number,
  ) {}

  /** Made with the first block, as they may be large. */
  private rows(): Accumulators {
    return (this.acc ??= new Accumulators(this.count, this.size));
  }

  add(data: Uint8Array, slots: ArrayLike<number>, coefs: ArrayLike<number>, crc: (value: number) => void): Promise<void> {
    this.rows().mulAdd(slots, data, coefs);
    crc(crc32(data));
    return Promise.resolve();
  }

  take(slots: number[]): Promise<Uint8Array[]> {
    return Promise.resolve(slots.map((s) => this.rows().view(s)));
  }

  clear(): Promise<void> {
    this.acc?.clear();
    return Promise.resolve();
  }
}

/** Blocks per batch handed to the native core, and batches in flight at most. */
const BATCH_BLOCKS = 32;
const IN_FLIGHT = 2;

/** A batch being filled: its blocks back to back, their lengths, slots, coefficients and CRC callbacks. */
interface Batch {
  data: Buffer;
  fill: number;
  lengths: number[];
  slots: number[];
  coefs: number[];
  crcs: Array<(value: number) => void>;
}

/** The native core's rows, fed in batches of BATCH_BLOCKS blocks. */
class BatchedRows implements RowCoder {
  private readonly rows: NativeRows;
  private batch: Batch | null = null;
  private readonly flying: Array<Promise<void>> = [];
  /** Batch buffers whose batch is done, for reuse. */
  private readonly spare: Buffer[] = [];
  private failure: unknown;

  constructor(
    core: NativeBinding,
    private readonly count: number,
    private readonly size: number,
  ) {
    try {
      this.rows = new core.RecoveryRows(count, size);
    } catch (e) {
      throw fromNative(e);
    }
  }

  async add(data: Uint8Array, slots: ArrayLike<number>, coefs: ArrayLike<number>, crc: (value: number) => void): Promise<void> {
    if (slots.length !== coefs.length || slots.length > this.count || data.length > this.size) {
      throw new BrickpostError('USAGE', `recovery rows got ${slots.length} slots, ${coefs.length} coefficients and ${data.length} bytes`);
    }
    const b = (this.batch ??= { data: this.spare.pop() ?? Buffer.allocUnsafe(BATCH_BLOCKS * this.size), fill: 0, lengths: [], slots: [], coefs: [], crcs: [] });
    // A batch has one count of slots per block: a block with another count starts the next batch.
    const r = b.lengths.length === 0 ? slots.length : b.slots.length / b.lengths.length;
    if (slots.length !== r) {
      await this.send();
      return this.add(data, slots, coefs, crc);
    }
    b.data.set(data, b.fill);
    b.fill += data.length;
    b.lengths.push(data.length);
    for (let j = 0; j < slots.length; j++) {
      b.slots.push(slots[j]!);
      b.coefs.push(coefs[j]!);
    }
    b.crcs.push(crc);
    if (b.lengths.length === BATCH_BLOCKS) await this.send();
  }

  /** Hands the batch being filled to the core, first waiting for the oldest in flight if IN_FLIGHT are. */
  private async send(): Promise<void> {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    if (this.flying.length >= IN_FLIGHT) await this.flying.shift();
    this.check();
    const done = this.rows.add(b.data.subarray(0, b.fill), Uint32Array.from(b.lengths), Uint32Array.from(b.slots), Uint8Array.from(b.coefs)).then(
      (crcs) => {
        b.crcs.forEach((f, i) => f(crcs.readUInt32LE(4 * i)));
        this.spare.push(b.data);
      },
      (e: unknown) => {
        this.failure ??= fromNative(e);
      },
    );
    this.flying.push(done);
  }

  private check(): void {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the native failure as it came
    if (this.failure !== undefined) throw this.failure;
  }

  private async settle(): Promise<void> {
    await this.send();
    await Promise.all(this.flying.splice(0));
    this.check();
  }

  async take(slots: number[]): Promise<Uint8Array[]> {
    await this.settle();
    const all = await this.rows.take(Uint32Array.from(slots), false).catch((e: unknown) => Promise.reject(fromNative(e)));
    return slots.map((_, i) => all.subarray(i * this.size, (i + 1) * this.size));
  }

  async clear(): Promise<void> {
    await this.settle();
    await this.rows.take(new Uint32Array(0), true).catch((e: unknown) => Promise.reject(fromNative(e)));
  }
}
