/**
 * The bag declaration, bagit.txt (RFC 8493 §2.1.1): exactly two lines,
 * "BagIt-Version: M.N" and "Tag-File-Character-Encoding: UTF-8".
 */

import { BrickpostError, quote } from '../errors.js';
import { tagLines } from './lines.js';

/** The bagit.txt brickpost writes: BagIt 1.0 (RFC 8493), UTF-8 tag files. */
export const BAGIT_TXT = 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n';

/** What a bag declaration says. */
export interface BagDeclaration {
  version: string;
  encoding: string;
}

/**
 * Reads bagit.txt. Throws MALFORMED unless it is exactly the two declaration
 * lines (LF or CRLF), and UNSUPPORTED_VERSION for a version other than 1.0
 * or an encoding other than UTF-8.
 */
export function parseBagitTxt(input: string | Buffer): BagDeclaration {
  const lines = tagLines(input, 'bagit.txt', 4096);
  const version = /^BagIt-Version: ([0-9]+\.[0-9]+)$/.exec(lines[0] ?? '')?.[1];
  const encoding = /^Tag-File-Character-Encoding: (\S+)$/.exec(lines[1] ?? '')?.[1];
  if (lines.length !== 2 || version === undefined || encoding === undefined) {
    throw new BrickpostError('MALFORMED', `bagit.txt is not a BagIt declaration: ${quote(lines.join('\n'), 120)}`, {
      path: 'bagit.txt',
    });
  }
  if (version !== '1.0') {
    throw new BrickpostError('UNSUPPORTED_VERSION', `bagit.txt declares BagIt version ${quote(version)}, expected "1.0"`, {
      path: 'bagit.txt',
    });
  }
  if (encoding !== 'UTF-8') {
    throw new BrickpostError('UNSUPPORTED_VERSION', `bagit.txt declares tag file encoding ${quote(encoding)}, expected "UTF-8"`, {
      path: 'bagit.txt',
    });
  }
  return { version, encoding };
}
