import type { DecompressStream } from 'zstd-napi';
import { BrickpostError } from '@brickpost/manifest';
import { MAX_WINDOW_LOG } from '../chunk/zstd.js';

/**
 * The lines of a stream of UTF-8 text arriving in chunks (a zstd
 * decompressor's output), without their newlines, in memory bounded by one
 * line of at most `maxLine` characters. The stream must end with a newline.
 * What the stream itself throws that is not a BrickpostError or a system
 * error comes from the decompressor: a frame needs a window over
 * MAX_WINDOW_LOG (LIMIT_EXCEEDED), or the data is not zstd (MALFORMED).
 * @throws BrickpostError MALFORMED, LIMIT_EXCEEDED, TRUNCATED
 */
export async function* textLines(chunks: AsyncIterable<unknown>, where: string, maxLine: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry = '';
  let line = 0;
  try {
    for await (const out of chunks) {
      let text: string;
      try {
        text = carry + decoder.decode(out as Uint8Array, { stream: true });
      } catch {
        const bytes = out as Uint8Array;
        const k = firstInvalid(bytes);
        const n = line + 1 + bytes.subarray(0, k).filter((b) => b === 0x0a).length;
        const hex = Buffer.from(bytes.subarray(k, k + 4)).toString('hex').replace(/(..)(?!$)/g, '$1 ');
        throw new BrickpostError('MALFORMED', `${where} line ${n}: not valid UTF-8 (bytes ${hex})`);
      }
      let at = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
        line++;
        if (nl - at > maxLine) throw new BrickpostError('LIMIT_EXCEEDED', `${where} line ${line}: longer than ${maxLine} bytes`);
        yield text.slice(at, nl);
        at = nl + 1;
      }
      carry = text.slice(at);
      if (carry.length > maxLine) throw new BrickpostError('LIMIT_EXCEEDED', `${where} line ${line + 1}: longer than ${maxLine} bytes`);
    }
  } catch (e) {
    if (e instanceof BrickpostError || (e as NodeJS.ErrnoException).code !== undefined) throw e;
    // zstd's words for a frame whose window is over the decoder's windowLogMax.
    if (/too much memory/i.test((e as Error).message)) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${where}: a zstd frame needs a window larger than the ${2 ** (MAX_WINDOW_LOG - 20)} MiB limit`, { cause: e });
    }
    throw new BrickpostError('MALFORMED', `${where}: not a valid zstd stream (${(e as Error).message})`, { cause: e });
  }
  try {
    // Flushes the decoder: bytes of a character cut short at the end are invalid, not dropped.
    decoder.decode();
  } catch {
    throw new BrickpostError('MALFORMED', `${where}: not valid UTF-8 (ends inside a character)`);
  }
  if (carry.length > 0) throw new BrickpostError('TRUNCATED', `${where}: last line has no newline`);
}

/** Resolves when the stream can take more, or is gone; leaves no listener behind. */
export function drainOrClose(stream: DecompressStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/**
 * Offset of the first byte of `bytes` that starts no valid UTF-8 sequence
 * (a surrogate's bytes, an overlong form, a stray continuation byte), for
 * the error message. Up to three leading continuation bytes are taken to
 * end a character begun in the previous piece.
 */
function firstInvalid(bytes: Uint8Array): number {
  let from = 0;
  while (from < 3 && from < bytes.length && (bytes[from]! & 0xc0) === 0x80) from++;
  const fails = (end: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(from, end), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  // The shortest failing prefix ends just past the first invalid byte.
  let lo = from;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fails(mid)) hi = mid;
    else lo = mid + 1;
  }
  // Back to the lead byte of the sequence it breaks (ED of ED A0 80, a surrogate), if any.
  const k = Math.max(from, lo - 1);
  let j = k;
  while (j > from && k - j < 3 && (bytes[j]! & 0xc0) === 0x80) j--;
  return bytes[j]! >= 0xc0 ? j : k;
}
