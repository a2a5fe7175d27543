/**
 * Frames: the Zstandard frame format (RFC 8878 §3) as brickpost uses it.
 *
 * A *frame* is one independently decodable unit of a Zstandard stream. A pack
 * is a concatenation of frames, one per chunk, so `zstd -d` decodes a whole
 * pack into the chunks' bytes. A *raw frame* stores its content in Raw_Blocks
 * (no compression) for chunks zstd cannot shrink. A *skippable frame* carries
 * bytes that decoders skip. The *frame header* says how large a frame's
 * content and window are, which is what a reader checks before decoding.
 *
 * Pure format code: no I/O, no native modules.
 */
export { ZSTD_MAGIC, SKIPPABLE_MAGIC_BASE, MAX_BLOCK_SIZE } from './constants.js';
export { rawFrame, rawFrameParts, rawFrameSize } from './raw.js';
export { skippableFrame, readSkippableFrame } from './skippable.js';
export type { SkippableFrame } from './skippable.js';
export { parseFrameHeader } from './header.js';
export type { FrameHeader } from './header.js';
