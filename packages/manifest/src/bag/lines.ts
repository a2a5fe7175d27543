/**
 * Tag file text (RFC 8493 §2: tag files are UTF-8, lines end in LF, CR or
 * CRLF). brickpost reads LF and CRLF; a lone CR is refused because no tool
 * brickpost interoperates with writes it and it hides line structure.
 */

import { BrickpostError } from '../errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes tag file bytes (or checks a string) and splits it into lines
 * without their terminators. Every line, the last included, must end in LF
 * or CRLF; empty text has no lines. Throws LIMIT_EXCEEDED past `maxBytes`,
 * MALFORMED on invalid UTF-8, a byte-order mark (RFC 8493 §2.1.1), a lone
 * CR or a missing final line feed (a sign of truncation).
 */
export function tagLines(input: string | Buffer, file: string, maxBytes: number): string[] {
  let text: string;
  if (typeof input === 'string') {
    if (input.length > maxBytes || Buffer.byteLength(input, 'utf8') > maxBytes) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${file} is larger than ${maxBytes} bytes`, { path: file });
    }
    text = input;
  } else {
    if (input.length > maxBytes) {
      throw new BrickpostError('LIMIT_EXCEEDED', `${file} is larger than ${maxBytes} bytes`, { path: file });
    }
    try {
      text = decoder.decode(input);
    } catch (cause) {
      throw new BrickpostError('MALFORMED', `${file} is not UTF-8`, { path: file, cause });
    }
  }
  if (text.startsWith('\ufeff')) throw new BrickpostError('MALFORMED', `${file} starts with a byte-order mark`, { path: file });
  if (text === '') return [];
  if (!text.endsWith('\n')) {
    throw new BrickpostError('MALFORMED', `${file} does not end with a line feed (truncated?)`, { path: file });
  }
  const lines = text.slice(0, -1).split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.endsWith('\r')) line = lines[i] = line.slice(0, -1);
    if (line.includes('\r')) {
      throw new BrickpostError('MALFORMED', `${file} line ${i + 1}: carriage return inside a line`, { path: file });
    }
  }
  return lines;
}
