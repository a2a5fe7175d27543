/**
 * Chunking parameters of format v1. Changing any of these changes every cut
 * point, so they are part of the on-drive spec (FORMAT.md §chunking).
 */

/** Sizes and masks of the v1 chunker (FastCDC with normalized chunking level 2). */
export const CHUNK_PARAMS_V1 = Object.freeze({
  /** No cut is tested before this many bytes; the hash starts here. */
  min: 256 * 1024,
  /** Where the strict mask gives way to the loose one; the target size. */
  avg: 1024 * 1024,
  /** A chunk that reaches this length is cut unconditionally. */
  max: 4 * 1024 * 1024,
  /** Bits 10–31 (22 bits = log2(avg) + 2): used while the chunk is shorter than avg. */
  maskS: 0xfffffc00,
  /** Bits 14–31 (18 bits = log2(avg) − 2): used once the chunk reaches avg. */
  maskL: 0xffffc000,
} as const);

/** The shape of a chunking parameter set. */
export type ChunkParams = typeof CHUNK_PARAMS_V1;
