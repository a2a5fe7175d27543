/**
 * Numbers fixed by the Zstandard frame format (RFC 8878 §3.1).
 */

/** Magic number of a Zstandard frame, little-endian on the wire (RFC 8878 §3.1.1). */
export const ZSTD_MAGIC = 0xfd2fb528;

/** Lowest magic number of a skippable frame; the low nibble is free (RFC 8878 §3.1.2). */
export const SKIPPABLE_MAGIC_BASE = 0x184d2a50;

/** Largest block a frame may carry, Block_Maximum_Size's ceiling (RFC 8878 §3.1.1.2.3). */
export const MAX_BLOCK_SIZE = 128 * 1024;

/** Largest Frame_Content_Size this module accepts: JavaScript numbers are exact up to here. */
export const MAX_SAFE_CONTENT_SIZE = Number.MAX_SAFE_INTEGER;
