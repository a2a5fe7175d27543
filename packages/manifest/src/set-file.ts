import { isUtf8 } from 'node:buffer';
import { BrickpostError, quote } from './errors.js';
import { numberedPath, packPath } from './records/index.js';

/**
 * The set file `data/set.tsv` of a drive set (FORMAT.md §drive-sets): which
 * drive holds which payload file, and where each file sits in its drive's
 * share stream. Every drive of a set carries the same set file, listed in
 * its signed payload manifest.
 */
export const SET_FORMAT = 'brickpost-set/v1';
export const SET_PATH = 'data/set.tsv';
/** Parity files are cut at this size (far below FAT32's 4 GiB limit). */
export const PARITY_FILE_SIZE = 256 << 20;
/** Largest set file a reader accepts. */
export const MAX_SET_FILE = 64 << 20;
/** Most drives in a set: k + m of a GF(2^8) code. */
export const MAX_SET_DRIVES = 256;

export interface SetFile {
  path: string;
  size: number;
  sha256: string;
  /** Offset of the file in its share's stream. */
  offset: number;
  /** The pack number, for a data share's file. */
  pack?: number;
}

export interface SetShare {
  /** 0-based share number; drive `index + 1` of the set holds it. */
  index: number;
  kind: 'data' | 'parity';
  /** Length of the share stream: its files back to back. */
  bytes: number;
  files: SetFile[];
}

export interface DriveSet {
  shipment: string;
  /** Data shares k. */
  data: number;
  /** Parity shares m. */
  parity: number;
  shares: SetShare[];
}

/** Bag path of parity file `i` of a parity share. */
export function parityPath(i: number): string {
  return numberedPath('data/parity', i, 'rs');
}

/** The set file's text. */
export function formatSetFile(set: DriveSet): string {
  const lines = [SET_FORMAT, `set\t${set.shipment}\t${set.shares.length}\t${set.data}\t${set.parity}`];
  for (const s of set.shares) {
    lines.push(`share\t${s.index}\t${s.kind}\t${s.bytes}\t${s.files.length}`);
    for (const f of s.files) lines.push(`file\t${s.index}\t${f.path}\t${f.size}\t${f.sha256}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * Reads a set file strictly: every rule of FORMAT.md §set-file, checked
 * against the shipment and pack count its bag-info declares.
 * @throws BrickpostError MALFORMED, LIMIT_EXCEEDED
 */
export function parseSetFile(bytes: Buffer, expect: { shipment: string; packs: number; drives: number; parity: number }): DriveSet {
  const bad = (why: string): never => {
    throw new BrickpostError('MALFORMED', `${SET_PATH}: ${why}`, { hint: 'the drive was damaged or modified' });
  };
  if (bytes.length > MAX_SET_FILE) throw new BrickpostError('LIMIT_EXCEEDED', `${SET_PATH} is ${bytes.length} bytes, more than ${MAX_SET_FILE}`);
  const text = bytes.toString('utf8');
  if (!text.endsWith('\n') || text.includes('\r') || !isUtf8(bytes)) bad('not LF-terminated UTF-8 text');
  const lines = text.slice(0, -1).split('\n');
  if (lines[0] !== SET_FORMAT) bad(`first line is not ${SET_FORMAT}`);
  const head = lines[1]?.split('\t') ?? [];
  const total = uint(head[2]);
  const k = uint(head[3]);
  const m = uint(head[4]);
  if (head.length !== 5 || head[0] !== 'set' || total === null || k === null || m === null) return bad('bad set line');
  if (head[1] !== expect.shipment) bad(`names shipment ${quote(head[1] ?? '')}, not ${quote(expect.shipment)}`);
  if (total !== expect.drives || m !== expect.parity || k + m !== total || k < 1 || total > MAX_SET_DRIVES) {
    bad(`describes ${total} drives with ${m} parity; bag-info says ${expect.drives} with ${expect.parity}`);
  }
  const set: DriveSet = { shipment: expect.shipment, data: k, parity: m, shares: [] };
  const seenPacks = new Set<number>();
  let at = 2;
  for (let i = 0; i < total; i++) {
    const f = lines[at++]?.split('\t') ?? [];
    const bytesN = uint(f[3]);
    const count = uint(f[4]);
    const kind = i < k ? 'data' : 'parity';
    if (f.length !== 5 || f[0] !== 'share' || f[1] !== String(i) || f[2] !== kind || bytesN === null || count === null) bad(`share ${i} line is malformed`);
    if (count! > expect.packs + Math.ceil(bytesN! / PARITY_FILE_SIZE) + 1) bad(`share ${i} lists too many files`);
    const share: SetShare = { index: i, kind, bytes: bytesN!, files: [] };
    let offset = 0;
    for (let j = 0; j < count!; j++) {
      const g = lines[at++]?.split('\t') ?? [];
      const size = uint(g[3]);
      if (g.length !== 5 || g[0] !== 'file' || g[1] !== String(i) || size === null || !/^[0-9a-f]{64}$/.test(g[4] ?? ''))
        bad(`file ${j} of share ${i} is malformed`);
      const path = g[2]!;
      const file: SetFile = { path, size: size!, sha256: g[4]!, offset };
      if (kind === 'data') {
        const p = /^data\/packs\/[0-9]{3,}\/([0-9]{6,})\.age$/.exec(path);
        const pack = p ? Number(p[1]) : NaN;
        if (!p || !(pack < expect.packs) || packPath(pack) !== path || seenPacks.has(pack))
          bad(`${quote(path)} is not a pack of this shipment, or is listed twice`);
        seenPacks.add(pack);
        file.pack = pack;
      } else if (path !== parityPath(j) || (j < count! - 1 && size !== PARITY_FILE_SIZE)) {
        bad(`${quote(path)} is not parity file ${j}, or is not cut at ${PARITY_FILE_SIZE} bytes`);
      }
      offset += size!;
      share.files.push(file);
    }
    if (offset !== bytesN) bad(`the files of share ${i} add up to ${offset} bytes, not ${bytesN}`);
    set.shares.push(share);
  }
  if (at !== lines.length) bad('has lines after the last share');
  if (seenPacks.size !== expect.packs) bad(`lists ${seenPacks.size} packs; bag-info declares ${expect.packs}`);
  const longest = Math.max(0, ...set.shares.filter((s) => s.kind === 'data').map((s) => s.bytes));
  for (const s of set.shares)
    if (s.kind === 'parity' && s.bytes !== longest) bad(`parity share ${s.index} is ${s.bytes} bytes, the longest data share ${longest}`);
  return set;
}

function uint(v: string | undefined): number | null {
  if (v === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}
