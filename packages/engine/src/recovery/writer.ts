/**
 * RecoveryWriter: computes a drive's recovery data while pack writes the
 * protected files, and writes one recovery file per window. Memory: the
 * I × r accumulators of the current window (B bytes each, in the memory
 * of a WebAssembly kernel: parity/accumulators.ts) and one block
 * per open file; when finishing, the last window's blocks are read back
 * and coded with fewer groups if that needs fewer rows (last-window.ts).
 */
import { open, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { bagit, BrickpostError, quote } from '@brickpost/manifest';
import { toEnvironmentError } from '../io/errors.js';
import { syncDir } from '../io/sync.js';
import { cauchy } from '../parity/index.js';
import type { Segment } from './header.js';
import { recodeLastWindow, type WindowCoding } from './last-window.js';
import { MAX_PROTECTED_FILE, RECOVERY_DIR, recoveryParams, rowsFor, windowBlocks, type RecoveryParams } from './params.js';
import { writeWindowFile, type RecoveryFileInfo } from './rec-file.js';
import { rowCoder, type RowCoder } from './rows.js';

/** Options of RecoveryWriter.create. */
export interface RecoveryWriterOptions {
  /** Recovery data as a percentage of the protected bytes: (0, 100], at most two decimals. */
  percent: number;
  /** Bytes per block, a multiple of 512 up to 1 MiB; 65536 by default. */
  blockSize?: number;
  /** Groups interleaved per window, 1 … 256; 32 by default. */
  interleave?: number;
}

/** A protected file being fed: its next offset and its block not yet complete. */
interface Feeding {
  offset: number;
  /** Index of the block in `buf`. */
  block: number;
  buf: Buffer;
  fill: number;
  /** The group its next block goes to, unless full. */
  group: number | undefined;
}

/** Bytes per read in addFile. */
const READ_BYTES = 1 << 20;

/**
 * Computes the recovery data of one bag's protected files as they are
 * written (§recovery-data). Calls may come from several writers at once;
 * they run one at a time, in call order. After an error every later call
 * fails with it.
 */
export class RecoveryWriter {
  private readonly rowsPerGroup: number;
  private readonly perWindow: number;
  /** The I × r rows of the window (see coder()). */
  private rows: RowCoder | undefined;
  /** The slots and coefficients of a block's r rows, reused from block to block. */
  private readonly slots: number[] = [];
  private readonly coefs: number[] = [];
  private readonly crcs: Uint32Array;
  private readonly lengths: Uint32Array;
  private readonly last: Uint8Array;
  private readonly groups: Uint8Array;
  private readonly groupCounts: Uint32Array;
  private nextGroup = 0;
  private members = 0;
  private segments: Segment[] = [];
  private window = 0;
  private readonly feeding = new Map<string, Feeding>();
  private readonly ended = new Set<string>();
  private readonly written: RecoveryFileInfo[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  private closed = false;

  private constructor(
    private readonly bagDir: string,
    /** The parameters derived from the options. */
    readonly params: RecoveryParams,
  ) {
    this.rowsPerGroup = rowsFor(params.groupSize, params.basisPoints);
    this.perWindow = windowBlocks(params);
    this.crcs = new Uint32Array(this.perWindow);
    this.lengths = new Uint32Array(this.perWindow);
    this.last = new Uint8Array(this.perWindow);
    this.groups = new Uint8Array(this.perWindow);
    this.groupCounts = new Uint32Array(params.interleave);
  }

  /**
   * Starts the recovery data of the bag at `bagDir`, removing any
   * data/recovery/ folder an interrupted earlier run left there.
   * @throws BrickpostError USAGE (options out of range, see recoveryParams;
   * bagDir not a folder), PERMISSION, IO
   */
  static async create(bagDir: string, opts: RecoveryWriterOptions): Promise<RecoveryWriter> {
    const params = recoveryParams(opts);
    const st = await stat(bagDir).catch(() => undefined);
    if (!st?.isDirectory()) throw new BrickpostError('USAGE', `bag folder ${quote(bagDir)} is not a folder`);
    await rm(join(bagDir, RECOVERY_DIR), { recursive: true, force: true }).catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot remove an earlier ${RECOVERY_DIR} of ${bagDir}`);
    });
    return new RecoveryWriter(bagDir, params);
  }

  /**
   * Feeds `buf`, the bytes of protected file `relPath` (a bag path under
   * data/) at `offset`, which must follow the bytes fed before. Resolves
   * when the bytes are taken (`buf` may then be reused); writes a recovery
   * file whenever a window fills.
   * @throws BrickpostError USAGE (an offset out of sequence, a file fed
   * after endFile, a path not under data/ or inside data/recovery/),
   * LIMIT_EXCEEDED (a file past 4 GiB), NO_SPACE, PERMISSION, IO, CANCELLED (after abort)
   */
  add(relPath: string, offset: number, buf: Uint8Array): Promise<void> {
    return this.serial(() => this.feed(relPath, offset, buf));
  }

  /**
   * Declares protected file `relPath` complete: its last block joins the
   * window. A file never fed is empty and has no blocks.
   * @throws BrickpostError USAGE (ended twice), NO_SPACE, PERMISSION, IO, CANCELLED
   */
  endFile(relPath: string): Promise<void> {
    return this.serial(() => this.end(relPath));
  }

  /**
   * Feeds a complete file that is already on disk at `absPath` (a pack
   * resuming on a drive), then ends it.
   * @throws BrickpostError as add; NOT_FOUND, PERMISSION, IO reading absPath
   */
  async addFile(relPath: string, absPath: string): Promise<void> {
    const fh = await open(absPath, 'r').catch((e: unknown) => {
      throw toEnvironmentError(e, `cannot open ${absPath}`);
    });
    try {
      const buf = Buffer.allocUnsafe(READ_BYTES);
      for (let pos = 0; ;) {
        const { bytesRead } = await fh.read(buf, 0, READ_BYTES, pos).catch((e: unknown) => {
          throw toEnvironmentError(e, `cannot read ${absPath}`);
        });
        if (bytesRead === 0) break;
        await this.add(relPath, pos, buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
    } finally {
      await fh.close();
    }
    await this.endFile(relPath);
  }

  /**
   * Writes the last window's recovery file, fsyncs the recovery folders and
   * returns every recovery file written, for the payload manifest. Every
   * protected file must be complete on disk: the last window is read back
   * to code it with as few groups as its blocks need (a file that cannot
   * be read back leaves it coded as streamed, with I groups).
   * @throws BrickpostError USAGE (a file not ended), NO_SPACE, PERMISSION, IO, CANCELLED
   */
  finish(): Promise<RecoveryFileInfo[]> {
    return this.serial(async () => {
      const open = this.feeding.keys().next();
      if (!open.done) throw new BrickpostError('USAGE', `recovery data finished while ${quote(open.value)} is not ended`);
      if (this.members > 0) await this.flush(true);
      this.closed = true;
      const folders = new Set(this.written.map((f) => dirname(join(this.bagDir, f.path))));
      if (folders.size > 0) folders.add(join(this.bagDir, RECOVERY_DIR)).add(join(this.bagDir, 'data'));
      try {
        for (const d of folders) await syncDir(d);
      } catch (e) {
        throw toEnvironmentError(e, `cannot sync ${RECOVERY_DIR}`);
      }
      return [...this.written];
    });
  }

  /** Stops: later calls fail with CANCELLED; waits for the call under way and removes data/recovery/. */
  async abort(): Promise<void> {
    this.failure ??= new BrickpostError('CANCELLED', 'recovery data aborted');
    await this.queue;
    await rm(join(this.bagDir, RECOVERY_DIR), { recursive: true, force: true }).catch(() => undefined);
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the failure as it came (unknown)
      if (this.failure !== undefined) throw this.failure;
      if (this.closed) throw new BrickpostError('USAGE', 'recovery data already finished');
      return f();
    });
    this.queue = run.catch((e: unknown) => {
      this.failure ??= e;
    });
    return run;
  }

  private async feed(rel: string, offset: number, buf: Uint8Array): Promise<void> {
    let f = this.feeding.get(rel);
    if (!f) {
      const problem = bagit.bagPathProblem(rel);
      if (problem || !rel.startsWith('data/') || rel.startsWith(`${RECOVERY_DIR}/`) || this.ended.has(rel)) {
        throw new BrickpostError('USAGE', `cannot protect ${quote(rel)}: ${problem ?? (this.ended.has(rel) ? 'already ended' : 'not a payload file')}`);
      }
      this.feeding.set(rel, (f = { offset: 0, block: 0, buf: Buffer.allocUnsafe(this.params.blockSize), fill: 0, group: undefined }));
    }
    if (offset !== f.offset) throw new BrickpostError('USAGE', `recovery data of ${quote(rel)} fed at offset ${offset}, expected ${f.offset}`);
    if (offset + buf.length > MAX_PROTECTED_FILE) throw new BrickpostError('LIMIT_EXCEEDED', `${quote(rel)} is larger than 4 GiB`);
    const B = this.params.blockSize;
    for (let at = 0; at < buf.length;) {
      // A full block is complete once more bytes follow; endFile completes the last one.
      if (f.fill === B) await this.complete(rel, f, false);
      const take = Math.min(B - f.fill, buf.length - at);
      f.buf.set(buf.subarray(at, at + take), f.fill);
      f.fill += take;
      at += take;
    }
    f.offset += buf.length;
  }

  private async end(rel: string): Promise<void> {
    if (this.ended.has(rel)) throw new BrickpostError('USAGE', `recovery data of ${quote(rel)} ended twice`);
    const f = this.feeding.get(rel);
    if (f && f.fill > 0) await this.complete(rel, f, true);
    this.feeding.delete(rel);
    this.ended.add(rel);
  }

  /**
   * Adds f's block at the next window position. Each file's blocks go to
   * the groups in turn (skipping full ones), starting where the window's
   * last block went: a run of consecutive blocks of one file spreads over
   * all groups however the files are interleaved.
   */
  private async complete(rel: string, f: Feeding, last: boolean): Promise<void> {
    const { interleave: I, groupSize: g } = this.params;
    const r = this.rowsPerGroup;
    let q = f.group ?? this.nextGroup;
    while (this.groupCounts[q] === g) q = (q + 1) % I;
    const m = this.groupCounts[q]!++;
    f.group = this.nextGroup = (q + 1) % I;
    const p = this.members++;
    const data = f.buf.subarray(0, f.fill);
    for (let j = 0; j < r; j++) {
      this.slots[j] = q * r + j;
      this.coefs[j] = cauchy(g, j, m);
    }
    await this.coder().add(data, this.slots, this.coefs, (crc) => {
      this.crcs[p] = crc;
    });
    this.lengths[p] = f.fill;
    this.last[p] = last ? 1 : 0;
    this.groups[p] = q;
    const seg = this.segments.at(-1);
    if (seg && seg.path === rel && seg.first + seg.count === f.block) seg.count++;
    else this.segments.push({ path: rel, first: f.block, count: 1 });
    f.block++;
    f.fill = 0;
    if (this.members === this.perWindow) await this.flush();
  }

  /**
   * Writes the current window's recovery file and starts the next window.
   * The drive's last window (`lastWindow`) is coded again from the files on disk when
   * fewer groups give fewer rows; otherwise, and for full windows, the
   * streamed accumulators are the recovery blocks.
   */
  private async flush(lastWindow = false): Promise<void> {
    const n = this.members;
    // Every block's rows and CRC-32 are in once the streamed rows are taken.
    const streamed = await this.streamedCoding(n);
    const win = { segments: this.segments, crcs: this.crcs.slice(0, n), lengths: this.lengths.slice(0, n) };
    const coding = (lastWindow ? await recodeLastWindow(this.bagDir, this.params, win, streamed.blocks.length) : undefined) ?? streamed;
    const info = await writeWindowFile(
      this.bagDir,
      {
        ...win,
        params: coding.params,
        window: this.window,
        last: this.last.slice(0, n),
        groups: coding.groups,
        rows: coding.rows,
        rowCrcs: Uint32Array.from(coding.blocks, (b) => crc32(b)),
      },
      coding.blocks.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
    );
    this.written.push(info);
    await this.coder().clear();
    this.groupCounts.fill(0);
    this.members = 0;
    this.segments = [];
    this.window++;
  }

  /** The window's rows, row j of group q in slot q × r + j. */
  private coder(): RowCoder {
    return (this.rows ??= rowCoder(this.params.interleave * this.rowsPerGroup, this.params.blockSize));
  }

  /** The current window as streamed: I groups, the first r_q rows of each (valid until they are cleared). */
  private async streamedCoding(n: number): Promise<WindowCoding> {
    const rows = Uint8Array.from(this.groupCounts, (c) => rowsFor(c, this.params.basisPoints));
    const slots: number[] = [];
    rows.forEach((count, q) => {
      for (let j = 0; j < count; j++) slots.push(q * this.rowsPerGroup + j);
    });
    const blocks = await this.coder().take(slots);
    return { params: this.params, groups: this.groups.slice(0, n), rows, blocks };
  }
}
