import { createRequire } from 'node:module';
import type * as Binding from 'zstd-napi/binding.js';

/**
 * The native Zstandard binding (zstd-napi's low-level module), loaded once
 * per thread. It is an N-API addon, so it also loads inside worker threads.
 * The low-level API is used because it lets decompression write into a
 * buffer of exactly the expected size, which is what bounds memory.
 */
export const zstd: typeof Binding = createRequire(import.meta.url)('zstd-napi/binding.js') as typeof Binding;

/** windowLog of the largest window a chunk frame may ask for: 2^23 = 8 MiB. */
export const MAX_WINDOW_LOG = 23;
