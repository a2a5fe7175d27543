import { BrickpostError } from '@brickpost/manifest';

/** Bytes decoded at once, so a long line is refused before a larger string is built. */
const SLICE = 64 << 10;

/**
 * The lines of a stream of UTF-8 text arriving in pieces (inflate's
 * output), without their newlines, in memory bounded by one line of at
 * most `maxLine` code units (FORMAT.md §9.2 counts a line in UTF-16 code
 * units) and one slice of 64 KiB, whatever size the pieces are: a line is
 * refused as soon as it passes the limit, before the rest of it is read.
 * The stream must end with a newline.
 * @throws BrickpostError MALFORMED (not UTF-8), LIMIT_EXCEEDED (a line too long), TRUNCATED (no final newline), and what the stream throws
 */
export async function* textLines(pieces: AsyncIterable<Uint8Array>, where: string, maxLine: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry = '';
  let line = 0;
  /** Bytes of text before the current slice. */
  let offset = 0;
  const tooLong = (n: number): BrickpostError =>
    new BrickpostError('LIMIT_EXCEEDED', `${where} line ${n}: longer than the limit of ${maxLine} characters (UTF-16 code units)`);
  for await (const piece of pieces) {
    for (let from = 0; from < piece.length; from += SLICE) {
      const bytes = piece.subarray(from, Math.min(piece.length, from + SLICE));
      let text: string;
      try {
        text = carry + decoder.decode(bytes, { stream: true });
      } catch {
        const k = firstInvalid(bytes);
        const n = line + 1 + bytes.subarray(0, k).filter((b) => b === 0x0a).length;
        const hex = Buffer.from(bytes.subarray(k, k + 4))
          .toString('hex')
          .replace(/(..)(?!$)/g, '$1 ');
        throw new BrickpostError('MALFORMED', `${where} line ${n}: not valid UTF-8 (bytes ${hex} at text offset ${offset + k})`);
      }
      let at = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
        line++;
        if (nl - at > maxLine) throw tooLong(line);
        yield text.slice(at, nl);
        at = nl + 1;
      }
      carry = text.slice(at);
      offset += bytes.length;
      if (carry.length > maxLine) throw tooLong(line + 1);
    }
  }
  try {
    // Flushes the decoder: bytes of a character cut short at the end are invalid, not dropped.
    decoder.decode();
  } catch {
    throw new BrickpostError('MALFORMED', `${where}: not valid UTF-8 (ends inside a character, at text offset ${offset})`);
  }
  if (carry.length > 0) throw new BrickpostError('TRUNCATED', `${where}: last line has no newline`);
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
