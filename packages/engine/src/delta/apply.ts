import { BrickpostError } from '@brickpost/manifest/errors';
import { blockCount, checkBlockSize } from './block-size.js';
import { decodeDelta } from './encode.js';
import type { DeltaOp } from './op.js';

/** Most bytes of the old file read per call, so a long copy run does not need its whole length in memory. */
const READ_MAX = 1 << 20;

/**
 * Rebuilds the new file from the old one and a delta: each copy op reads its
 * blocks of the old file through `readOld(offset, length)` (in reads of at
 * most 1 MiB), each literal op is written as it is; bytes reach `write` in
 * order, one call at a time. Returns the length of the new file.
 *
 * The ops may come from an untrusted drive: a copy op that reaches past the
 * old file (oldLength bytes in blocks of blockSize, the last maybe short) or
 * is not a pair of integers is refused. The result is only as right as the
 * old file it reads; callers verify it (chunk ids) before use.
 *
 * Throws USAGE for a bad blockSize or oldLength, MALFORMED for an invalid op,
 * BASIS_MISSING when readOld returns fewer or more bytes than asked, and
 * whatever readOld or write throw.
 */
export async function applyDelta(
  readOld: (offset: number, length: number) => Promise<Uint8Array>,
  oldLength: number,
  blockSize: number,
  ops: Iterable<DeltaOp> | AsyncIterable<DeltaOp>,
  write: (buf: Buffer) => Promise<void>,
): Promise<number> {
  checkBlockSize(blockSize, 'applyDelta');
  if (!Number.isSafeInteger(oldLength) || oldLength < 0) {
    throw new BrickpostError('USAGE', `applyDelta: old length ${String(oldLength)} is not a non-negative integer`);
  }
  const blocks = blockCount(oldLength, blockSize);
  const readStep = Math.max(blockSize, READ_MAX - (READ_MAX % blockSize));
  let written = 0;
  let index = 0;
  for await (const op of ops) {
    if (op.op === 'copy') {
      const { block, count } = op;
      if (!Number.isSafeInteger(block) || !Number.isSafeInteger(count) || block < 0 || count < 1 || block + count > blocks) {
        throw new BrickpostError('MALFORMED', `delta op ${index} copies blocks [${String(block)}, +${String(count)}) of an old file with ${blocks} blocks`);
      }
      const stop = Math.min(oldLength, (block + count) * blockSize);
      for (let off = block * blockSize; off < stop;) {
        const n = Math.min(readStep, stop - off);
        const got = await readOld(off, n);
        if (!(got instanceof Uint8Array) || got.length !== n) {
          throw new BrickpostError(
            'BASIS_MISSING',
            `old file gave ${got instanceof Uint8Array ? got.length : 'no'} bytes at offset ${off} where the delta needs ${n}`,
            {
              hint: 'the old file changed since its signature was made',
            },
          );
        }
        await write(Buffer.isBuffer(got) ? got : Buffer.from(got.buffer, got.byteOffset, got.byteLength));
        written += n;
        off += n;
      }
    } else if (op.op === 'literal' && op.data instanceof Uint8Array && op.data.length > 0) {
      await write(op.data);
      written += op.data.length;
    } else {
      throw new BrickpostError('MALFORMED', `delta op ${index} is neither a copy nor a non-empty literal`);
    }
    index++;
  }
  return written;
}

/**
 * One chunk of a shipment rebuilt from its delta frame (bpdelta1) and the
 * old file: at most `length` bytes (the chunk's length in its ref), in one
 * buffer. `what` names the file in the refusal of a delta that rebuilds
 * more. The caller checks the result's length and chunk id. `into`, when
 * it holds at least `length` bytes, is the buffer the chunk is rebuilt in
 * (the result is a view of it), so a caller done with each chunk before
 * the next reuses one buffer rather than leaving one per chunk to the
 * garbage collector.
 * @throws BrickpostError CHUNK_MISMATCH (more than `length` bytes), and what applyDelta throws
 */
export async function deltaChunk(
  readOld: (offset: number, length: number) => Promise<Uint8Array>,
  oldLength: number,
  blockSize: number,
  delta: Buffer,
  length: number,
  what: string,
  into?: Buffer,
): Promise<Buffer> {
  // Each piece is copied once, into the chunk's buffer (no copy per piece, then another to join them).
  const out = into && into.length >= length ? into : Buffer.allocUnsafe(length);
  let got = 0;
  await applyDelta(readOld, oldLength, blockSize, decodeDelta(delta), async (buf) => {
    if (got + buf.length > length) throw new BrickpostError('CHUNK_MISMATCH', `a delta of ${what} rebuilds more than the chunk's ${length} bytes`);
    out.set(buf, got);
    got += buf.length;
    return Promise.resolve();
  });
  return got === out.length ? out : out.subarray(0, got);
}
