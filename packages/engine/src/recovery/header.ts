/**
 * The header of a recovery file (§recovery-data): what the window covers
 * (segments of protected files, the CRC-32 and length of every member
 * block), its parameters, the recovery rows per group and their CRC-32s,
 * sealed by a SHA-256 of everything before it. Binary, little-endian.
 */
import { createHash } from 'node:crypto';
import { bagit, BrickpostError, quote } from '@brickpost/manifest';
import {
  groupSizeFor,
  MAX_BLOCK_SIZE,
  MAX_HEADER_BYTES,
  MAX_INTERLEAVE,
  MAX_PROTECTED_FILE,
  MIN_BLOCK_SIZE,
  RECOVERY_DIR,
  RECOVERY_FORMAT,
  rowsFor,
  windowBlocks,
  type RecoveryParams,
} from './params.js';

/** A run of consecutive blocks of one file, in window position order. */
export interface Segment {
  /** Bag path of the protected file. */
  path: string;
  /** Index of the first block in the file (its offset is first × B). */
  first: number;
  count: number;
}

/** A recovery file's header, decoded. Member arrays are indexed by window position. */
export interface WindowHeader {
  params: RecoveryParams;
  window: number;
  segments: Segment[];
  crcs: Uint32Array;
  lengths: Uint32Array;
  /** 1 where the block is the last of its file. */
  last: Uint8Array;
  /** The group (0 … I−1) of every member; a group's members are in position order. */
  groups: Uint8Array;
  /** Recovery rows per group. */
  rows: Uint8Array;
  /** CRC-32 of every recovery block, group by group, row by row. */
  rowCrcs: Uint32Array;
}

const MAGIC = Buffer.from(`${RECOVERY_FORMAT}\n`, 'latin1');
const FIXED = MAGIC.length + 26;
const DIGEST = 32;
/** Offset of the header length field (u32le), for readers that look at a header's start. */
export const HEADER_LENGTH_AT = MAGIC.length;
/** Bytes a reader reads first: the magic and the length field. */
export const HEADER_PREFIX = MAGIC.length + 4;

/**
 * Encodes a header.
 * @throws BrickpostError LIMIT_EXCEEDED when it would exceed 16 MiB (paths
 * of thousands of bytes interleaved block by block)
 */
export function encodeHeader(h: WindowHeader): Buffer {
  const paths = h.segments.map((s) => Buffer.from(s.path, 'utf8'));
  const n = h.crcs.length;
  const size = FIXED + paths.reduce((t, p) => t + 10 + p.length, 0) + 10 * n + h.rows.length + 4 * h.rowCrcs.length + DIGEST;
  if (size > MAX_HEADER_BYTES)
    throw new BrickpostError('LIMIT_EXCEEDED', `recovery header of window ${h.window} would be ${size} bytes, more than ${MAX_HEADER_BYTES}`);
  const b = Buffer.alloc(size);
  let at = MAGIC.copy(b, 0);
  at = b.writeUInt32LE(size, at);
  at = b.writeUInt32LE(h.window, at);
  at = b.writeUInt32LE(h.params.blockSize, at);
  at = b.writeUInt16LE(h.params.interleave, at);
  at = b.writeUInt16LE(h.params.groupSize, at);
  at = b.writeUInt16LE(h.params.basisPoints, at);
  at = b.writeUInt32LE(n, at);
  at = b.writeUInt32LE(h.segments.length, at);
  h.segments.forEach((s, i) => {
    at = b.writeUInt16LE(paths[i]!.length, at);
    at += paths[i]!.copy(b, at);
    at = b.writeUInt32LE(s.first, at);
    at = b.writeUInt32LE(s.count, at);
  });
  for (let p = 0; p < n; p++) {
    at = b.writeUInt32LE(h.crcs[p]!, at);
    at = b.writeUInt32LE(h.lengths[p]!, at);
    at = b.writeUInt8(h.last[p]!, at);
    at = b.writeUInt8(h.groups[p]!, at);
  }
  at += Buffer.from(h.rows).copy(b, at);
  for (const c of h.rowCrcs) at = b.writeUInt32LE(c, at);
  createHash('sha256').update(b.subarray(0, at)).digest().copy(b, at);
  return b;
}

/**
 * The header length a header's first bytes announce, or undefined when they
 * do not start with the magic or announce a length out of bounds.
 */
export function headerLength(prefix: Buffer): number | undefined {
  if (prefix.length < HEADER_PREFIX || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const size = prefix.readUInt32LE(HEADER_LENGTH_AT);
  return size >= FIXED + DIGEST && size <= MAX_HEADER_BYTES ? size : undefined;
}

/**
 * Refuses a file that starts with another version of the recovery format.
 * @throws BrickpostError UNSUPPORTED_VERSION
 */
export function checkVersion(prefix: Buffer, name: string): void {
  const text = prefix.subarray(0, MAGIC.length).toString('latin1');
  if (text.startsWith('brickpost-recovery/') && text !== MAGIC.toString('latin1')) {
    throw new BrickpostError('UNSUPPORTED_VERSION', `recovery file ${quote(name)} is version ${quote(text.split('\n')[0]!)}, not ${RECOVERY_FORMAT}`, {
      path: name,
      hint: 'a newer version of brickpost is needed to use this recovery data',
    });
  }
}

/** True when a header's SHA-256 matches its content: the header is intact. */
export function headerIntact(b: Buffer): boolean {
  if (b.length < FIXED + DIGEST) return false;
  const digest = createHash('sha256')
    .update(b.subarray(0, b.length - DIGEST))
    .digest();
  return digest.equals(b.subarray(b.length - DIGEST));
}

/**
 * Decodes an intact header (see headerIntact) and checks every field: a
 * recovery file is untrusted input.
 * @throws BrickpostError MALFORMED (a field out of range or inconsistent),
 * UNSAFE_PATH (a path that could name a file outside data/ or the recovery
 * data itself)
 */
export function decodeHeader(b: Buffer, name: string): WindowHeader {
  const bad = (what: string): BrickpostError => new BrickpostError('MALFORMED', `recovery file ${quote(name)}: ${what}`, { path: name });
  if (headerLength(b) !== b.length) throw bad('bad magic or header length');
  let at = HEADER_PREFIX;
  const need = (bytes: number): number => {
    if (at + bytes > b.length - DIGEST) throw bad('header ends early');
    const from = at;
    at += bytes;
    return from;
  };
  const window = b.readUInt32LE(need(4));
  const blockSize = b.readUInt32LE(need(4));
  const interleave = b.readUInt16LE(need(2));
  const groupSize = b.readUInt16LE(need(2));
  const basisPoints = b.readUInt16LE(need(2));
  const n = b.readUInt32LE(need(4));
  const s = b.readUInt32LE(need(4));
  if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || blockSize % MIN_BLOCK_SIZE !== 0) throw bad(`block size ${blockSize}`);
  if (interleave < 1 || interleave > MAX_INTERLEAVE) throw bad(`interleave ${interleave}`);
  if (basisPoints < 1 || basisPoints > 10000) throw bad(`percentage ${basisPoints / 100}`);
  if (groupSize !== groupSizeFor(basisPoints)) throw bad(`group size ${groupSize} for ${basisPoints / 100} %`);
  const params = { blockSize, interleave, groupSize, basisPoints };
  if (n < 1 || n > windowBlocks(params)) throw bad(`${n} member blocks`);
  if (s < 1 || s > n) throw bad(`${s} segments for ${n} blocks`);
  const segments: Segment[] = [];
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < s; i++) {
    const len = b.readUInt16LE(need(2));
    let path: string;
    try {
      path = utf8.decode(b.subarray(need(len), at));
    } catch {
      throw bad(`segment ${i} path is not UTF-8`);
    }
    const first = b.readUInt32LE(need(4));
    const count = b.readUInt32LE(need(4));
    const problem = bagit.bagPathProblem(path);
    if (problem || !path.startsWith('data/') || path.startsWith(`${RECOVERY_DIR}/`)) {
      throw new BrickpostError('UNSAFE_PATH', `recovery file ${quote(name)} names ${quote(path)}: ${problem ?? 'not a protected payload file'}`, {
        path: name,
        hint: 'the recovery data of this window cannot be used',
      });
    }
    if (count < 1) throw bad(`segment ${i} of ${quote(path)} is empty`);
    segments.push({ path, first, count });
  }
  if (segments.reduce((t, g) => t + g.count, 0) !== n) throw bad(`segments do not add up to ${n} blocks`);
  const crcs = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  const last = new Uint8Array(n);
  const groups = new Uint8Array(n);
  const counts = new Uint32Array(interleave);
  for (let p = 0; p < n; p++) {
    crcs[p] = b.readUInt32LE(need(4));
    lengths[p] = b.readUInt32LE(need(4));
    last[p] = b.readUInt8(need(1));
    groups[p] = b.readUInt8(need(1));
    if (lengths[p]! < 1 || lengths[p]! > blockSize || last[p]! > 1 || (lengths[p]! < blockSize && !last[p])) {
      throw bad(`block ${p}: length ${lengths[p]}, flags ${last[p]}`);
    }
    if (groups[p]! >= interleave || ++counts[groups[p]!]! > groupSize) throw bad(`block ${p} in group ${groups[p]}, which is out of range or full`);
  }
  const rows = Uint8Array.from(b.subarray(need(interleave), at));
  let total = 0;
  for (let q = 0; q < interleave; q++) {
    if (rows[q] !== rowsFor(counts[q]!, basisPoints)) throw bad(`group ${q} has ${rows[q]} recovery rows for ${counts[q]} members`);
    total += rows[q]!;
  }
  const rowCrcs = new Uint32Array(total);
  for (let t = 0; t < total; t++) rowCrcs[t] = b.readUInt32LE(need(4));
  if (at !== b.length - DIGEST) throw bad('trailing bytes in header');
  const h = { params, window, segments, crcs, lengths, last, groups, rows, rowCrcs };
  checkSegments(h, bad);
  return h;
}

/**
 * Blocks of a file appear in increasing order, never twice, never past its
 * last block nor past 4 GiB.
 */
function checkSegments(h: WindowHeader, bad: (what: string) => BrickpostError): void {
  const next = new Map<string, number>();
  let p = 0;
  for (const g of h.segments) {
    const from = next.get(g.path);
    if (from === -1) throw bad(`${quote(g.path)} has blocks after its last`);
    if (from !== undefined && g.first < from) throw bad(`${quote(g.path)} block ${g.first} out of order`);
    const end = p + g.count;
    const lastAt = end - 1;
    for (let x = p; x < lastAt; x++) if (h.last[x]) throw bad(`${quote(g.path)} has blocks after its last`);
    if ((g.first + g.count - 1) * h.params.blockSize + h.lengths[lastAt]! > MAX_PROTECTED_FILE)
      throw bad(`${quote(g.path)} block ${g.first + g.count - 1} lies past 4 GiB`);
    next.set(g.path, h.last[lastAt] ? -1 : g.first + g.count);
    p = end;
  }
}

/** For every window position, the bag path and block index of the block it holds. */
export function locate(h: WindowHeader): { paths: string[]; index: Uint32Array } {
  const paths: string[] = [];
  const index = new Uint32Array(h.crcs.length);
  for (const g of h.segments) {
    for (let i = 0; i < g.count; i++) {
      index[paths.length] = g.first + i;
      paths.push(g.path);
    }
  }
  return { paths, index };
}

/** The member positions of every group, in member order (member s of group q is members[q][s]). */
export function groupMembers(h: WindowHeader): number[][] {
  const out = Array.from({ length: h.params.interleave }, (): number[] => []);
  h.groups.forEach((q, p) => out[q]!.push(p));
  return out;
}
