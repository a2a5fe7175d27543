/**
 * The parameters of a drive's recovery data (§recovery-data) and the
 * arithmetic on them shared by the writer and the reader: group size and
 * recovery rows from the percentage, the shape of a window, file names.
 */
import { BrickpostError, numberedPath } from '@brickpost/manifest';

/** Version string at the start of every recovery file. */
export const RECOVERY_FORMAT = 'brickpost-recovery/v1';
/** Folder of the recovery files inside a bag. */
export const RECOVERY_DIR = 'data/recovery';
/** Block size used when the caller gives none: 64 KiB. */
export const DEFAULT_BLOCK_SIZE = 1 << 16;
/** Interleave used when the caller gives none. */
export const DEFAULT_INTERLEAVE = 32;
/** Smallest and largest block size; block sizes are multiples of the smallest (a disk sector). */
export const MIN_BLOCK_SIZE = 512;
export const MAX_BLOCK_SIZE = 1 << 20;
/** Most groups a window interleaves. */
export const MAX_INTERLEAVE = 256;
/** Largest group: more members make decoding slower for little gain. */
export const MAX_GROUP_SIZE = 200;
/** Largest header a reader accepts (each of its two copies). */
export const MAX_HEADER_BYTES = 16 << 20;
/** Most accumulator memory a writer may need (interleave × rows × block size). */
export const MAX_WRITER_MEMORY = 1 << 30;
/** Largest file a block may lie in (FAT32's limit, FORMAT.md §3.4). */
export const MAX_PROTECTED_FILE = 0xffffffff;

/** The shape of a drive's recovery data. */
export interface RecoveryParams {
  /** B: bytes per block. */
  blockSize: number;
  /** I: groups per window. */
  interleave: number;
  /** g: members of a full group, and k of the group's code. */
  groupSize: number;
  /** The percentage × 100 (1 … 10000). */
  basisPoints: number;
}

/** The group size g for a percentage in basis points: min(200, floor(255 / (1 + bp / 10000))). */
export function groupSizeFor(basisPoints: number): number {
  return Math.min(MAX_GROUP_SIZE, Math.floor((255 * 10000) / (10000 + basisPoints)));
}

/** Recovery rows of a group with `members` members: ceil(members × bp / 10000), none for an empty group. */
export function rowsFor(members: number, basisPoints: number): number {
  return Math.ceil((members * basisPoints) / 10000);
}

/** Blocks per full window: W = g × I. */
export function windowBlocks(p: RecoveryParams): number {
  return p.groupSize * p.interleave;
}

/**
 * Checks the writer's options and derives the parameters.
 * @throws BrickpostError USAGE when percent is not in (0, 100] with at most
 * two decimals, the block size is not a multiple of 512 in 512 B … 1 MiB,
 * the interleave is not in 1 … 256, or the accumulators would need more
 * than 1 GiB.
 */
export function recoveryParams(opts: { percent: number; blockSize?: number; interleave?: number }): RecoveryParams {
  const basisPoints = Math.round(opts.percent * 100);
  if (!(opts.percent > 0 && opts.percent <= 100) || Math.abs(opts.percent * 100 - basisPoints) > 1e-6) {
    throw new BrickpostError('USAGE', `recovery percentage ${opts.percent} is not in (0, 100] with at most two decimals`);
  }
  const blockSize = opts.blockSize ?? DEFAULT_BLOCK_SIZE;
  if (!Number.isInteger(blockSize) || blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || blockSize % MIN_BLOCK_SIZE !== 0) {
    throw new BrickpostError('USAGE', `recovery block size ${blockSize} is not a multiple of 512 from 512 to 1048576`);
  }
  const interleave = opts.interleave ?? DEFAULT_INTERLEAVE;
  if (!Number.isInteger(interleave) || interleave < 1 || interleave > MAX_INTERLEAVE) {
    throw new BrickpostError('USAGE', `recovery interleave ${interleave} is not in 1 … ${MAX_INTERLEAVE}`);
  }
  const p = { blockSize, interleave, groupSize: groupSizeFor(basisPoints), basisPoints };
  const memory = interleave * rowsFor(p.groupSize, basisPoints) * blockSize;
  if (memory > MAX_WRITER_MEMORY) {
    throw new BrickpostError('USAGE', `recovery data with these settings needs ${memory} bytes of memory, more than ${MAX_WRITER_MEMORY}`, {
      hint: 'use a smaller block size, interleave or percentage',
    });
  }
  return p;
}

/** The bag path of window w's recovery file: data/recovery/DDD/WWWWWW.rec. */
export function recoveryPath(w: number): string {
  return numberedPath(RECOVERY_DIR, w, 'rec');
}

/** The window number of a recovery file's bag path, or undefined when the path is not one (not in its canonical form). */
export function windowOfPath(path: string): number | undefined {
  const m = /^data\/recovery\/[0-9]{3,}\/([0-9]{6,})\.rec$/.exec(path);
  if (!m) return undefined;
  const w = Number(m[1]);
  return Number.isSafeInteger(w) && w <= 0xffffffff && recoveryPath(w) === path ? w : undefined;
}
