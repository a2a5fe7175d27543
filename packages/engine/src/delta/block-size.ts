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
 * The trade-off: a signature costs 12 bytes per block, so 12·2^30/B bytes
 * per GiB of data (3 MiB at 4 KiB blocks, 384 KiB at 32 KiB, 192 KiB at
 * 64 KiB); and every edited region costs up to about one block of literal
 * bytes beyond the edit, because blocks it touches cannot be copied. With E
 * edited regions in a file of N bytes, 12·N/B + E·B is least at
 * B = √(12·N/E), so √N is the optimum for about a dozen regions per file
 * version. Measured by bench/delta-micro.mjs on the largest file of the
 * 300 MiB benchmark dataset after make_dataset.py --mutate 5 (47 MB, 9 edited
 * regions totalling 2.5 MB; bytes):
 *
 *     block   signature     delta   sum
 *      2 KiB     276 500  2 509 461  2 785 961
 *      4 KiB     138 260  2 527 891  2 666 151
 *      8 KiB      69 140  2 560 658  2 629 798   ← √N
 *     16 KiB      34 580  2 634 385  2 668 965
 *     64 KiB       8 660  2 994 828  3 003 488
 *     rdiff      250 428  2 547 842              (librsync 2.3.2 defaults)
 *
 * The lower clamp bounds what small files cost the catalog (at most 6 KiB
 * of signature per MiB); the upper one bounds the literal cost of an edit in
 * a huge file to about 64 KiB.
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
