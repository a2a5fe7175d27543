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
 * every rebuilt file is verified against its full chunk ids, so a false
 * match only makes that check fail and the file is shipped whole. The odds
 * are small anyway: each comparison is wrong with probability 2^-64, and a
 * delta makes at most one comparison per copied block plus, per weak match
 * that fails, up to 64 (see MAX_CHAIN), with failed weak matches capped at
 * 4 per block of new data (see computeDelta): under 2^-32 for a 1 TiB file.
 * A signature from a subscriber is untrusted: parseSignature checks it
 * strictly, the caps above keep a forged one from costing more than a few
 * times the file's size in hashing, and at worst it yields a delta that is
 * useless to the subscriber that forged it.
 */
export { blockSizeFor, MIN_BLOCK_SIZE, MAX_BLOCK_SIZE } from './block-size.js';
export { SignatureBuilder, parseSignature, SIGNATURE_MAGIC } from './signature.js';
export type { ParsedSignature, ParseSignatureLimits } from './signature.js';
export { computeDelta } from './compute.js';
export type { ComputeDeltaOptions } from './compute.js';
export type { DeltaOp, CopyOp, LiteralOp } from './op.js';
export { encodeDelta, decodeDelta, DELTA_MAGIC } from './encode.js';
export { applyDelta, deltaChunk } from './apply.js';
export { weakSum, rollWeak, strongSum } from './sums.js';
