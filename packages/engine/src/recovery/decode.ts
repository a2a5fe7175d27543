/**
 * Rebuilding the erased members of one group. A group of c members is
 * coded as a group of g whose members c … g−1 are zero blocks (a shortened
 * code): any g of its shares (members, zero blocks, recovery rows) give
 * back the rest, so e erasures need e intact recovery rows.
 */
import { crc32 } from 'node:zlib';
import { mulAdd, reconstructionMatrix } from '../parity/index.js';
import type { WindowHeader } from './header.js';

/** Reads a share for decoding: B bytes (a short block zero-padded), or undefined when it can no longer be read intact. */
export type ShareReader = (at: number) => Promise<Uint8Array | undefined>;

/**
 * Rebuilds the blocks at window positions `erased`, all in group q whose
 * member positions are `members` (in member order), from the group's other
 * members and the recovery rows `rows` (row numbers within the group,
 * intact, at least as many as erasures). Returns each
 * rebuilt block (its recorded length) whose CRC-32 matches the header;
 * none when a source cannot be read. Memory: one output block per erasure
 * and one source block.
 * @throws RangeError when there are fewer rows than erasures (a caller bug)
 */
export async function decodeGroup(
  h: WindowHeader,
  q: number,
  members: readonly number[],
  erased: number[],
  rows: number[],
  member: ShareReader,
  row: ShareReader,
): Promise<Map<number, Buffer>> {
  const { groupSize: k, blockSize: B } = h.params;
  const count = members.length;
  const lost = erased.map((p) => members.indexOf(p));
  const present: number[] = [];
  for (let s = 0; s < k; s++) if (!lost.includes(s)) present.push(s);
  if (rows.length < lost.length) throw new RangeError(`group ${q} has ${lost.length} erasures but ${rows.length} recovery rows`);
  present.push(...rows.slice(0, lost.length).map((j) => k + j));
  const matrix = reconstructionMatrix(k, h.rows[q]!, present, lost);
  const out = lost.map(() => Buffer.alloc(B));
  for (const [i, s] of present.entries()) {
    if (s >= count && s < k) continue;
    const src = s < k ? await member(members[s]!) : await row(s - k);
    if (!src) return new Map();
    out.forEach((o, e) => mulAdd(o, src, matrix[e]![i]!, B));
  }
  const rebuilt = new Map<number, Buffer>();
  erased.forEach((p, e) => {
    const block = out[e]!.subarray(0, h.lengths[p]);
    if (crc32(block) === h.crcs[p]) rebuilt.set(p, block);
  });
  return rebuilt;
}

/**
 * For each group, the numbers (0 … rows−1 within the group) of its intact
 * recovery rows, given the damaged recovery blocks by number in the file
 * (group by group, row by row).
 */
export function intactRows(h: WindowHeader, badRows: readonly number[]): number[][] {
  const bad = new Set(badRows);
  const out: number[][] = [];
  let t = 0;
  for (const count of h.rows) {
    const rows: number[] = [];
    for (let j = 0; j < count; j++, t++) if (!bad.has(t)) rows.push(j);
    out.push(rows);
  }
  return out;
}

/** Number in the file of recovery row j of group q. */
export function rowNumber(h: WindowHeader, q: number, j: number): number {
  let t = j;
  for (let g = 0; g < q; g++) t += h.rows[g]!;
  return t;
}
