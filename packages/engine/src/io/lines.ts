import type { DecompressStream } from 'zstd-napi';
import { BrickpostError } from '@brickpost/manifest';

/**
 * The lines of a stream of UTF-8 text arriving in chunks (a zstd
 * decompressor's output), without their newlines, in memory bounded by one
 * line of at most `maxLine` characters. The stream must end with a newline.
 * What the stream itself throws that is not a BrickpostError or a system
 * error comes from the decompressor: the data is not zstd (MALFORMED).
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
        throw new BrickpostError('MALFORMED', `${where}: not valid UTF-8`);
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
