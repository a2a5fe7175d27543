import { open, type FileHandle } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/manifest/errors';
import { findCut } from './cut.js';
import { CHUNK_PARAMS_V1 } from './params.js';

/** Options of chunkFile. */
export interface ChunkFileOptions {
  /** Bytes per read; default 8 MiB, at least 1 MiB. */
  blockSize?: number;
  /** Stops reading; the generator then throws CANCELLED. */
  signal?: AbortSignal;
}

const DEFAULT_BLOCK = 8 * 1024 * 1024;

/**
 * Reads the file at `path` and yields its chunks in order (findCut over the
 * whole file), each in a Buffer of its own that owns its memory, so it can be
 * transferred to a worker. An empty file yields nothing. Memory stays bounded
 * at about 2 × blockSize + 4 MiB however large the file is (less for files
 * smaller than a block); the next block is read while the current one is cut.
 *
 * Throws NOT_FOUND, PERMISSION or IO when the file cannot be read, CANCELLED
 * when `signal` aborts.
 */
export async function* chunkFile(path: string, opts: ChunkFileOptions = {}): AsyncGenerator<Buffer> {
  const block = Math.max(1 << 20, opts.blockSize ?? DEFAULT_BLOCK);
  const fh = await open(path, 'r').catch((e: unknown) => {
    throw toFileError(e, path);
  });
  let size: number;
  try {
    size = (await fh.stat()).size;
  } catch (e) {
    await fh.close();
    throw toFileError(e, path);
  }
  // `spare` receives the read ahead; `buf` holds the unconsumed tail (< max bytes) plus one read. Both are sized
  // to the file when it is small, and `buf` grows only if the file grows while being read.
  const spare = Buffer.allocUnsafeSlow(Math.min(block, size + 1));
  let buf = Buffer.allocUnsafeSlow(size < block ? spare.length : block + CHUNK_PARAMS_V1.max);
  let pending: Promise<number> | null = readAhead(fh, spare, path);
  let pos = 0;
  let fill = 0;
  let eof = false;
  try {
    for (;;) {
      const cut = findCut(buf, pos, fill, eof);
      if (cut > 0) {
        const chunk = Buffer.allocUnsafeSlow(cut);
        buf.copy(chunk, 0, pos, pos + cut);
        pos += cut;
        yield chunk;
        continue;
      }
      if (cut === 0) return;
      if (opts.signal?.aborted) throw new BrickpostError('CANCELLED', `chunking ${quote(path)} cancelled`);
      buf.copyWithin(0, pos, fill);
      fill -= pos;
      pos = 0;
      const got = await pending!;
      pending = null;
      if (fill + got > buf.length) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(fill + got, Math.min(spare.length + CHUNK_PARAMS_V1.max, 2 * buf.length)));
        buf.copy(bigger, 0, 0, fill);
        buf = bigger;
      }
      spare.copy(buf, fill, 0, got);
      fill += got;
      if (got < spare.length) eof = true;
      else pending = readAhead(fh, spare, path);
    }
  } finally {
    if (pending) await pending.catch(() => 0);
    await fh.close();
  }
}

/**
 * Starts readFull and marks the promise handled, so a read error that lands
 * while the consumer is busy is not reported as unhandled; awaiting it later
 * still throws.
 */
function readAhead(fh: FileHandle, into: Buffer, path: string): Promise<number> {
  const p = readFull(fh, into, path);
  p.catch(() => undefined);
  return p;
}

/** Fills `into` from the file's current position; fewer bytes only at end of file. */
async function readFull(fh: FileHandle, into: Buffer, path: string): Promise<number> {
  let got = 0;
  try {
    while (got < into.length) {
      const want = into.length - got;
      const { bytesRead } = await fh.read(into, got, want, null);
      got += bytesRead;
      // A short read of a regular file means end of file; stopping here saves a read per file.
      if (bytesRead < want) break;
    }
  } catch (e) {
    throw toFileError(e, path);
  }
  return got;
}

/** A file read error as a BrickpostError naming the file. */
export function toFileError(e: unknown, path: string): BrickpostError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new BrickpostError('NOT_FOUND', `cannot read ${quote(path)}: no such file`, { path, cause: e });
  if (code === 'EACCES' || code === 'EPERM') {
    return new BrickpostError('PERMISSION', `cannot read ${quote(path)}: permission denied`, { path, cause: e });
  }
  return new BrickpostError('IO', `cannot read ${quote(path)}: ${(e as Error).message}`, { path, cause: e });
}
