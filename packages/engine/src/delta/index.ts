/**
 * Deltas: how a changed file travels as the difference from its old version
 * (rsync's algorithm, as librsync's rdiff signature / delta / patch).
 *
 * The old file is cut into fixed *blocks* of a power-of-two *block size*
 * (blockSizeFor picks about √size); the last block may be short. Its
 * *signature* (bpsig1) lists, per block, a 32-bit *weak sum* that can be
 * rolled one byte at a time (librsync's rollsum) and a *strong sum* (8 bytes
 * of SHA-256). The publisher keeps one signature per file version shipped.
 * A *delta* is a list of *ops*: *copy* n consecutive blocks of the old file,
 * or a *literal* run of new bytes; computeDelta finds them by rolling the
 * weak sum over the new file and confirming each weak match with the strong
 * sum. Encoded for a drive it is bpdelta1. The subscriber *patches*:
 * applyDelta reads copies from its own old file and writes the new one.
 *
 * 8 bytes of strong sum suffice because a delta is never trusted on its own:
 * every rebuilt file is verified against its full chunk ids, and a false
 * match (odds about n·m/2^64 for n candidate offsets that pass the weak sum
 * against m blocks, under 2^-20 for a 1 TiB file) only makes that check fail,
 * after which the file is shipped whole. The same check bounds what a forged
 * signature from a subscriber can do: at worst a delta that is useless to it.
 */
export { blockSizeFor, MIN_BLOCK_SIZE, MAX_BLOCK_SIZE } from './block-size.js';
export { SignatureBuilder, parseSignature, SIGNATURE_MAGIC } from './signature.js';
export type { ParsedSignature, ParseSignatureLimits } from './signature.js';
export { computeDelta } from './compute.js';
export type { ComputeDeltaOptions } from './compute.js';
export type { DeltaOp, CopyOp, LiteralOp } from './op.js';
export { encodeDelta, decodeDelta, DELTA_MAGIC } from './encode.js';
export { applyDelta } from './apply.js';
export { weakSum, rollWeak, strongSum } from './sums.js';
