import { chunkFile } from '../chunk/index.js';

/**
 * The chunks of a source file, cut to the size it had when scanned (as tar
 * does): bytes appended while reading are left out, and a file that shrank
 * is padded with zeros so the shipment stays self-consistent. Either case is
 * reported through `changed`.
 */
export async function* sourceChunks(abs: string, size: number, changed: (how: string) => void): AsyncGenerator<Buffer> {
  let seen = 0;
  if (size > 0) {
    for await (const chunk of chunkFile(abs)) {
      if (seen + chunk.length >= size) {
        const keep = size - seen;
        seen = size;
        if (keep > 0) yield keep === chunk.length ? chunk : chunk.subarray(0, keep);
        if (keep < chunk.length) changed('grew while being read; shipped its first ' + size + ' bytes');
        break;
      }
      seen += chunk.length;
      yield chunk;
    }
  }
  if (seen < size) {
    changed(`shrank while being read; padded with ${size - seen} zero bytes`);
    while (seen < size) {
      const n = Math.min(1 << 20, size - seen);
      seen += n;
      yield Buffer.alloc(n);
    }
  }
}
