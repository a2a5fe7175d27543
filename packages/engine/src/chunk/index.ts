/**
 * Chunks: how a file is cut, named and compressed.
 *
 * A *chunk* is a run of a file's bytes between two content-defined cut points
 * (FastCDC, parameters CHUNK_PARAMS_V1; findCut states the exact rule). Its
 * *id* is HMAC-SHA256 under the dataset's *chunk key*, so equal bytes get the
 * same id within a dataset and ids reveal nothing to outsiders. Its *frame*
 * is one Zstandard frame holding the bytes, compressed or, when zstd cannot
 * save 3 %, in raw blocks (*stored* 'zstd' or 'raw'). The *pipeline* runs the
 * per-chunk CPU work (id, compression, decoding) on worker threads; it is the
 * seam where the native core (packages/native) replaces them when it is
 * built: chunkPipeline picks it, createChunkPipeline is the worker pool.
 */
export { CHUNK_PARAMS_V1 } from './params.js';
export type { ChunkParams } from './params.js';
export { GEAR } from './gear.js';
export { findCut } from './cut.js';
export { chunkFile } from './file.js';
export type { ChunkFileOptions } from './file.js';
export { chunkKey, chunkId } from './id.js';
export { encodeChunk, decodeChunk, decodeFrame, RAW_THRESHOLD } from './codec.js';
export type { EncodedFrame, DecodeLimits, Stored } from './codec.js';
export { createChunkPipeline, releaseFrame } from './pool.js';
export type { ChunkPipeline, ChunkPipelineOptions, EncodedChunk, EncodeFileOptions, FileChunk, Frame } from './pool.js';
export { chunkPipeline, nativePipeline } from './native-pipeline.js';
export { WHOLE_FILE_MAX } from './whole-file.js';
export { Cutter } from './cutter.js';
