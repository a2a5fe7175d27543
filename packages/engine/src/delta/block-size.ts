import { BrickpostError } from '@brickpost/manifest/errors';

/** Smallest block size a signature may declare (2^8 bytes). */
export const MIN_BLOCK_SIZE = 1 << 8;
/** Largest block size a signature may declare (2^20 bytes). */
export const MAX_BLOCK_SIZE = 1 << 20;

/** Smallest block size blockSizeFor picks. */
const PICK_MIN = 2 * 1024;
/** Largest block size blockSizeFor picks. */
const PICK_MAX = 64 * 1024;

/**
 * The block size for the signature of a file of `fileSize` bytes: √size
 * rounded to the nearest power of two, clamped to [2 KiB, 64 KiB]
 * (rsync's rule, in powers of two so the catalog sees few distinct sizes).
 *
 * The trade-off, measured by bench/delta-micro.mjs: a signature costs 12
 * bytes per block (12 MiB per GiB of data at 1 KiB blocks, 3 MiB at 4 KiB,
 * 192 KiB at 64 KiB), and every edited region costs about one block of
 * literal bytes on top of the edit itself, because the blocks it touches
 * cannot be copied. With E scattered edits in a file of N bytes the total
 * 12·N/B + E·B is least at B = √(12·N/E); √N is that optimum for about a
 * dozen edits per file version, and keeps the catalog near 12/√N of the data
 * (0.03 % for a 100 MiB file, 1.2 MiB of signatures per GiB at the 64 KiB
 * clamp for files over 2 GiB). On the 300 MiB benchmark dataset mutated by
 * 5 % (largest file, 40 edited regions), the delta was within a few percent
 * of the minimum over 2–64 KiB blocks; see the bench for the table.
 *
 * Throws USAGE when `fileSize` is not a non-negative safe integer.
 */
export function blockSizeFor(fileSize: number): number {
  if (!Number.isSafeInteger(fileSize) || fileSize < 0) {
    throw new BrickpostError('USAGE', `blockSizeFor: file size ${String(fileSize)} is not a non-negative integer`);
  }
  const log = Math.round(Math.log2(Math.max(1, fileSize)) / 2);
  return Math.min(PICK_MAX, Math.max(PICK_MIN, 2 ** log));
}

/** True when `n` is a block size a signature may declare: a power of two in [2^8, 2^20]. */
export function isValidBlockSize(n: number): boolean {
  return Number.isInteger(n) && n >= MIN_BLOCK_SIZE && n <= MAX_BLOCK_SIZE && (n & (n - 1)) === 0;
}

/** Throws USAGE unless `n` is a valid block size; `where` names the caller. */
export function checkBlockSize(n: number, where: string): void {
  if (!isValidBlockSize(n)) {
    throw new BrickpostError('USAGE', `${where}: block size ${String(n)} is not a power of two in [${MIN_BLOCK_SIZE}, ${MAX_BLOCK_SIZE}]`);
  }
}

/** Number of blocks of `blockSize` bytes in a file of `length` bytes, the last one possibly short. */
export function blockCount(length: number, blockSize: number): number {
  return Math.ceil(length / blockSize);
}
