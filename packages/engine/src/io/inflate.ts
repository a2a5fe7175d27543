import { BrickpostError } from '@brickpost/manifest';
import { MAX_WINDOW_LOG, zstd } from './zstd.js';

/** Largest piece inflate yields. */
export const INFLATE_PIECE = 128 << 10;

/** A limit on what a stream may decode to, and the refusal of a stream past it (`at`: the compressed offset reached). */
export interface InflateLimit {
  bytes: number;
  error: (at: number) => BrickpostError;
}

/**
 * Decodes a Zstandard stream (frames in sequence, skippable frames carrying
 * nothing) from `input` only as fast as the consumer pulls: every piece
 * yielded is at most INFLATE_PIECE bytes, and nothing is decoded before it
 * is asked for, so memory holds one input block and one piece however far
 * the frames expand. Each piece is valid until the next is asked for: one
 * buffer serves them all (a manifest read to its end left 28 MB of them to
 * the garbage collector, held through a second ingest's peak). A frame
 * that needs a window over 8 MiB is refused
 * before it is decoded, and a stream that decodes past `limit` as soon as
 * it does; each message names `where` and the offset in the compressed
 * stream.
 * @throws BrickpostError LIMIT_EXCEEDED, MALFORMED (not zstd), TRUNCATED (ends inside a frame)
 */
export async function* inflate(input: AsyncIterable<Buffer>, where: string, limit?: InflateLimit): AsyncGenerator<Buffer> {
  const dctx = new zstd.DCtx();
  dctx.setParameter(zstd.DParameter.windowLogMax, MAX_WINDOW_LOG);
  let inFrame = false;
  let read = 0;
  let total = 0;
  const dst = Buffer.allocUnsafe(INFLATE_PIECE);
  for await (const block of input) {
    let src = block;
    for (;;) {
      let ret: number;
      let produced: number;
      let consumed: number;
      try {
        [ret, produced, consumed] = dctx.decompressStream(dst, src);
      } catch (e) {
        throw zstdError(e, where, read);
      }
      src = src.subarray(consumed);
      read += consumed;
      inFrame = ret !== 0;
      if (produced > 0) {
        total += produced;
        if (limit && total > limit.bytes) throw limit.error(read);
        yield dst.subarray(0, produced);
      }
      // Done with this block once it is used up and the decoder holds nothing more back.
      if (src.length === 0 && produced < dst.length) break;
    }
  }
  if (inFrame) throw new BrickpostError('TRUNCATED', `${where} ends inside a zstd frame, at compressed offset ${read}`);
}

/** zstd's complaint as a BrickpostError: a window over the limit (LIMIT_EXCEEDED), else not zstd (MALFORMED). */
function zstdError(e: unknown, where: string, at: number): BrickpostError {
  const why = (e as Error).message;
  // zstd's words for a frame whose window is over the decoder's windowLogMax.
  if (/too much memory/i.test(why)) {
    return new BrickpostError(
      'LIMIT_EXCEEDED',
      `${where}: the zstd frame at compressed offset ${at} needs a window larger than the ${2 ** (MAX_WINDOW_LOG - 20)} MiB limit`,
      { cause: e },
    );
  }
  return new BrickpostError('MALFORMED', `${where}: not a valid zstd stream at compressed offset ${at} (${why})`, { cause: e });
}
