/**
 * Checking one window: its recovery file's header (either copy), the
 * CRC-32 of every member block in the protected files and of every
 * recovery block. Reads run through each segment in large sequential reads;
 * a read that fails is retried block by block, so a bad sector costs only
 * the blocks it lies in.
 */
import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { BrickpostError, isBrickpostError, quote } from '@brickpost/manifest';
import { Handles, openInBag, probe, readAt, type Entry } from './bag-io.js';
import type { WindowHeader } from './header.js';
import { readWindowHeader, type ReadHeader } from './rec-file.js';
import type { RecoveryReadOptions, RecoveryWindowReport } from './report.js';

/** Bytes per read while checking. */
const READ_BYTES = 4 << 20;

/** What a window check needs from the whole scan. */
export interface CheckContext extends RecoveryReadOptions {
  bagDir: string;
  /** Payload manifest: bag path → SHA-256. */
  manifest: ReadonlyMap<string, string>;
  /** What is at a protected file's path (probed once per scan). */
  entry(rel: string): Promise<Entry>;
  /** Counts bytes read. */
  read(bytes: number): void;
}

/** A usable window: its header, damaged member positions, damaged recovery blocks (file order). */
export interface WindowCheck extends ReadHeader {
  damaged: number[];
  badRows: number[];
}

/**
 * Checks window w, whose recovery file is at bag path `rel`. Returns the
 * check, or the window's problem when its recovery data is lost or refused.
 * @throws BrickpostError CANCELLED, PERMISSION, IO (the local machine, not the data, is in the way)
 */
export async function checkWindow(ctx: CheckContext, w: number, rel: string): Promise<WindowCheck | RecoveryWindowReport> {
  const problem = (state: 'lost' | 'refused', reason: string, e?: BrickpostError): RecoveryWindowReport => ({
    window: w,
    path: rel,
    state,
    reason,
    damagedRows: 0,
    ...(e ? { code: e.code } : {}),
  });
  const entry = await probe(ctx.bagDir, rel);
  if (entry.kind === 'missing') return problem('lost', 'the recovery file is missing');
  if (entry.kind === 'unsafe') return problem('refused', entry.why, new BrickpostError('UNSAFE_ENTRY', entry.why));
  const fh = await openInBag(ctx.bagDir, rel, false);
  try {
    let read: ReadHeader | undefined;
    try {
      read = await readWindowHeader(fh, entry.size, rel);
      if (read) checkHeaderFits(read.header, w, ctx, rel);
    } catch (e) {
      if (isBrickpostError(e) && (e.category === 'integrity' || e.category === 'unsafe')) return problem('refused', e.message, e);
      throw e;
    }
    if (!read) return problem('lost', 'both copies of the header are damaged');
    const damaged = await checkMembers(ctx, read.header);
    const { header: h, blocksAt } = read;
    const B = h.params.blockSize;
    const badRows = await checkRun(
      ctx,
      fh,
      blocksAt,
      h.rowCrcs.length,
      B,
      () => B,
      (t) => h.rowCrcs[t]!,
    );
    return { ...read, damaged, badRows };
  } finally {
    await fh.close();
  }
}

/**
 * An intact header belongs in this file, names only files the payload
 * manifest lists, and no block past what signed data allows a file
 * (`ctx.bound`), so nothing past it is read or written.
 * @throws BrickpostError MALFORMED, UNSAFE_PATH
 */
function checkHeaderFits(h: WindowHeader, w: number, ctx: CheckContext, rel: string): void {
  if (h.window !== w) throw new BrickpostError('MALFORMED', `recovery file ${quote(rel)} holds the header of window ${h.window}`, { path: rel });
  const B = h.params.blockSize;
  for (const g of h.segments) {
    if (!ctx.manifest.has(g.path)) {
      throw new BrickpostError('UNSAFE_PATH', `recovery file ${quote(rel)} names ${quote(g.path)}, which the payload manifest does not list`, { path: rel });
    }
    const bound = ctx.bound?.(g.path) ?? Infinity;
    if (g.count > 0 && (g.first + g.count - 1) * B >= bound) {
      throw new BrickpostError(
        'MALFORMED',
        `recovery file ${quote(rel)} names blocks of ${quote(g.path)} up to offset ${(g.first + g.count - 1) * B}, past the ${bound} bytes signed data allows it`,
        { path: rel },
      );
    }
  }
}

/** Window positions whose block is damaged, missing or cut off. */
async function checkMembers(ctx: CheckContext, h: WindowHeader): Promise<number[]> {
  const B = h.params.blockSize;
  const handles = new Handles((rel) => openInBag(ctx.bagDir, rel, false));
  const damaged: number[] = [];
  try {
    let p = 0;
    for (const g of h.segments) {
      const at = p;
      const entry = await ctx.entry(g.path);
      if (entry.kind === 'file') {
        const fh = await handles.get(g.path);
        const bad = await checkRun(
          ctx,
          fh,
          g.first * B,
          g.count,
          B,
          (x) => h.lengths[at + x]!,
          (x) => h.crcs[at + x]!,
        );
        for (const x of bad) damaged.push(at + x);
      } else {
        for (let x = 0; x < g.count; x++) damaged.push(at + x);
      }
      p += g.count;
    }
  } finally {
    await handles.closeAll();
  }
  return damaged;
}

/**
 * Checks `count` consecutive blocks of B bytes from `start` in an open
 * file against their lengths and CRC-32s. Returns the indices (0 … count−1)
 * of the blocks that fail, cannot be read, or are cut off.
 * @throws BrickpostError CANCELLED
 */
async function checkRun(
  ctx: CheckContext,
  fh: FileHandle,
  start: number,
  count: number,
  B: number,
  length: (x: number) => number,
  crc: (x: number) => number,
): Promise<number[]> {
  const per = Math.max(1, Math.floor(READ_BYTES / B));
  const buf = Buffer.allocUnsafe(Math.min(per, count) * B);
  const bad: number[] = [];
  for (let i = 0; i < count; i += per) {
    if (ctx.signal?.aborted) throw new BrickpostError('CANCELLED', 'recovery check cancelled');
    const c = Math.min(per, count - i);
    const got = await readAt(fh, buf.subarray(0, c * B), start + i * B);
    ctx.read(Math.max(0, got));
    for (let x = 0; x < c; x++) {
      const len = length(i + x);
      const block = buf.subarray(x * B, x * B + len);
      const ok =
        got >= 0 ? got >= x * B + len && crc32(block) === crc(i + x) : (await readAt(fh, block, start + (i + x) * B)) === len && crc32(block) === crc(i + x);
      if (!ok) bad.push(i + x);
    }
  }
  return bad;
}
