/**
 * The last window of a drive, coded with as few groups as its blocks need.
 * Streaming codes every window with I groups, as it cannot know which
 * window is the last; a last window of n blocks in I groups costs at least
 * one row per group, so a small drive would carry far more than its
 * percentage. When the drive is finished its files are complete on disk:
 * the last window's blocks are read back and coded with
 * I' = max(1, min(I, ceil(n / g))) groups (§recovery-data: the header
 * carries I per window, readers take the groups from it).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { cauchy } from '../parity/index.js';
import { readAt } from './bag-io.js';
import type { Segment } from './header.js';
import { rowsFor, type RecoveryParams } from './params.js';
import { rowCoder } from './rows.js';

/** A window's blocks as its header describes them, indexed by position. */
export interface WindowBlocks {
  segments: readonly Segment[];
  crcs: Uint32Array;
  lengths: Uint32Array;
}

/** How a window is coded: its parameters (with its interleave), each position's group, rows per group, and the recovery blocks in file order. */
export interface WindowCoding {
  params: RecoveryParams;
  groups: Uint8Array;
  rows: Uint8Array;
  blocks: Uint8Array[];
}

/**
 * Codes the last window of the bag at `bagDir` again with as few groups as
 * its blocks need, reading them back from the protected files. Returns
 * undefined when that gives no fewer rows than `streamedRows`, or when a
 * block cannot be read or differs from its CRC-32 (the caller then keeps
 * the streamed coding): a failed read is not an error here. Memory: the
 * new accumulators (I' × r blocks at most) and one block.
 */
export async function recodeLastWindow(bagDir: string, params: RecoveryParams, win: WindowBlocks, streamedRows: number): Promise<WindowCoding | undefined> {
  const n = win.crcs.length;
  const interleave = Math.max(1, Math.min(params.interleave, Math.ceil(n / params.groupSize)));
  const groups = assignGroups(win.segments, n, interleave, params.groupSize);
  const counts = new Uint32Array(interleave);
  for (const q of groups) counts[q]!++;
  const rows = Uint8Array.from(counts, (c) => rowsFor(c, params.basisPoints));
  if (rows.reduce((t, r) => t + r, 0) >= streamedRows) return undefined;
  const coded = { ...params, interleave };
  const blocks = await encodeWindow(bagDir, coded, win, groups, rows);
  return blocks && { params: coded, groups, rows, blocks };
}

/**
 * Each file's consecutive blocks go to the groups in turn, a file's first
 * block of the window to the group after the window's previous block,
 * skipping full groups (§18.2): positions stay in completion order.
 */
function assignGroups(segments: readonly Segment[], n: number, interleave: number, groupSize: number): Uint8Array {
  const groups = new Uint8Array(n);
  const counts = new Uint32Array(interleave);
  const next = new Map<string, number>();
  let after = 0;
  let p = 0;
  for (const s of segments) {
    for (let b = 0; b < s.count; b++) {
      let q = next.get(s.path) ?? after;
      while (counts[q] === groupSize) q = (q + 1) % interleave;
      counts[q]!++;
      groups[p++] = q;
      after = (q + 1) % interleave;
      next.set(s.path, after);
    }
  }
  return groups;
}

/**
 * The recovery blocks of the window coded as `groups` and `rows` say, from
 * the files on disk; undefined when a file cannot be opened or a block
 * cannot be read whole with its recorded CRC-32. A file stays open only
 * until its last segment of the window. Also how a rebuilt drive's
 * recovery files are made again from their headers (drive/rebuild-drive.ts).
 */
export async function encodeWindow(
  bagDir: string,
  params: RecoveryParams,
  win: WindowBlocks,
  groups: Uint8Array,
  rows: Uint8Array,
): Promise<Uint8Array[] | undefined> {
  const { blockSize: B, groupSize: g } = params;
  const firstRow = new Uint32Array(rows.length);
  let total = 0;
  rows.forEach((r, q) => {
    firstRow[q] = total;
    total += r;
  });
  const acc = rowCoder(total, B);
  let crcsMatch = true;
  const members = new Uint32Array(rows.length);
  const buf = Buffer.allocUnsafe(B);
  const lastSegment = new Map(win.segments.map((s, i) => [s.path, i]));
  const handles = new Map<string, FileHandle>();
  try {
    let p = 0;
    for (const [i, s] of win.segments.entries()) {
      let fh = handles.get(s.path);
      if (!fh) {
        fh = await open(join(bagDir, s.path), 'r').catch(() => undefined);
        if (!fh) return undefined;
        handles.set(s.path, fh);
      }
      for (let b = 0; b < s.count; b++, p++) {
        const data = buf.subarray(0, win.lengths[p]);
        if ((await readAt(fh, data, (s.first + b) * B)) !== data.length) return undefined;
        const q = groups[p]!;
        const m = members[q]!++;
        const js = Array.from({ length: rows[q]! }, (_, j) => j);
        const want = win.crcs[p];
        await acc.add(
          data,
          js.map((j) => firstRow[q]! + j),
          js.map((j) => cauchy(g, j, m)),
          (crc) => {
            if (crc !== want) crcsMatch = false;
          },
        );
      }
      if (lastSegment.get(s.path) === i) {
        handles.delete(s.path);
        await fh.close().catch(() => undefined);
      }
    }
  } finally {
    for (const fh of handles.values()) await fh.close().catch(() => undefined);
  }
  const blocks = await acc.take(Array.from({ length: total }, (_, slot) => slot));
  return crcsMatch ? blocks : undefined;
}
