/**
 * File paths in BagIt manifests (RFC 8493 §2.1.3): relative to the bag's base
 * directory, "/"-separated, with CR, LF and "%" (and only those)
 * percent-encoded. A path from a drive is hostile until checked: checkBagPath
 * refuses anything that could name a file outside the bag or that reads
 * differently on another system.
 */

import { BrickpostError, quote } from '../errors.js';

/** Longest path accepted, in UTF-8 bytes (PATH_MAX on Linux). */
export const MAX_BAG_PATH_BYTES = 4096;

/** Percent-encodes CR, LF and "%" in a path for a manifest line (RFC 8493 §2.1.3). */
export function encodeBagPath(path: string): string {
  return path.replace(/[%\r\n]/g, (c) => (c === '%' ? '%25' : c === '\r' ? '%0D' : '%0A'));
}

/**
 * Decodes a manifest path: %25, %0D and %0A (either case of hex); returns
 * undefined when a "%" starts anything else, since RFC 8493 requires a
 * literal "%" to be written %25.
 */
export function decodeBagPath(encoded: string): string | undefined {
  let bad = false;
  const decoded = encoded.replace(/%(..)?/gs, (_m, hex: string | undefined) => {
    switch (hex?.toUpperCase()) {
      case '25':
        return '%';
      case '0D':
        return '\r';
      case '0A':
        return '\n';
      default:
        bad = true;
        return '';
    }
  });
  return bad ? undefined : decoded;
}

// C0, DEL and C1 controls; lone surrogates cannot be written as UTF-8.
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\\]|\p{Cs}/u;

/**
 * Why `path` is not a safe relative bag path, or undefined when it is:
 * empty, absolute, a backslash, control characters, an empty, "." or ".."
 * component, a drive letter, leading or trailing whitespace, or longer than
 * MAX_BAG_PATH_BYTES.
 */
export function bagPathProblem(path: string): string | undefined {
  if (path === '') return 'empty path';
  if (Buffer.byteLength(path, 'utf8') > MAX_BAG_PATH_BYTES) return `path longer than ${MAX_BAG_PATH_BYTES} bytes`;
  if (path.startsWith('/')) return 'absolute path';
  if (UNSAFE_CHARS.test(path)) return 'backslash or control character in path';
  if (path.trim() !== path) return 'path starts or ends with whitespace';
  if (/^[A-Za-z]:/.test(path)) return 'drive letter in path';
  for (const part of path.split('/')) {
    if (part === '') return 'empty path component';
    if (part === '.' || part === '..') return `${quote(part)} path component`;
  }
  return undefined;
}

/**
 * Throws (naming `where`) when bagPathProblem finds a problem: LIMIT_EXCEEDED
 * for a path that is too long, UNSAFE_PATH for anything else.
 */
export function checkBagPath(path: string, where: string): void {
  if (Buffer.byteLength(path, 'utf8') > MAX_BAG_PATH_BYTES) {
    throw new BrickpostError('LIMIT_EXCEEDED', `${where}: path longer than ${MAX_BAG_PATH_BYTES} bytes: ${quote(path, 80)}`, { path });
  }
  const problem = bagPathProblem(path);
  if (problem !== undefined) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: ${problem}: ${quote(path)}`, { path });
  }
}
