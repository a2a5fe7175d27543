import { BrickpostError, quote } from '../errors.js';

/**
 * Entry paths (FORMAT.md §paths). A path is relative, `/`-separated, and made
 * of components that are safe to create on Linux, macOS and Windows alike.
 * The grammar is an allow-list of rules checked on every path read from a
 * drive before it is used for anything.
 */

/** Limits of the path grammar, normative. */
export const PATH_LIMITS = {
  /** UTF-8 bytes in one component. */
  componentBytes: 255,
  /** UTF-8 bytes in a whole path. */
  pathBytes: 4096,
  /** Components in a path (nesting depth). */
  depth: 128,
} as const;

// Control characters (C0, DEL, C1), and characters no portable file system
// accepts in a name.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;
const DRIVE_LETTER = /^[A-Za-z]:/;

/**
 * Why `name` is not an acceptable path component, or null when it is.
 * Used by the publisher to skip unportable names with a warning.
 */
export function componentProblem(name: string): string | null {
  if (name.length === 0) return 'empty component';
  if (name === '.' || name === '..') return 'dot component';
  if (name.includes('/')) return 'slash in name';
  if (FORBIDDEN.test(name)) return 'control character or backslash in name';
  if (DRIVE_LETTER.test(name)) return 'drive letter prefix';
  if (!name.isWellFormed()) return 'lone surrogate (name is not valid unicode)';
  if (Buffer.byteLength(name, 'utf8') > PATH_LIMITS.componentBytes) return 'component longer than 255 bytes';
  if (name !== name.normalize('NFC')) return 'name is not in unicode normalisation form C';
  return null;
}

/**
 * Checks a manifest path against the grammar.
 * @throws BrickpostError UNSAFE_PATH naming the path and the rule it breaks.
 */
export function checkPath(path: string, where = 'manifest'): string[] {
  if (typeof path !== 'string' || path.length === 0) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: empty path`);
  }
  if (Buffer.byteLength(path, 'utf8') > PATH_LIMITS.pathBytes) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: path longer than ${PATH_LIMITS.pathBytes} bytes: ${quote(path)}`);
  }
  if (path.startsWith('/')) throw new BrickpostError('UNSAFE_PATH', `${where}: absolute path ${quote(path)}`);
  const parts = path.split('/');
  if (parts.length > PATH_LIMITS.depth) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: path nested deeper than ${PATH_LIMITS.depth}: ${quote(path)}`);
  }
  for (const part of parts) {
    const problem = componentProblem(part);
    if (problem) throw new BrickpostError('UNSAFE_PATH', `${where}: unsafe path ${quote(path)}: ${problem}`);
  }
  return parts;
}

// Windows (FORMAT.md §paths, Windows destinations): device names, with any
// extension and trailing spaces before it, and characters Win32 refuses.
const WINDOWS_RESERVED = /^(CON|PRN|AUX|NUL|COM[1-9¹²³]|LPT[1-9¹²³]) *(\..*)?$/i;
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

/**
 * Why `name` cannot be created on Windows, or null when it can (on top of
 * componentProblem): a reserved device name (`CON`, `PRN`, `AUX`, `NUL`,
 * `COM1`…`COM9`, `LPT1`…`LPT9`, also with an extension), a name ending in
 * a dot or a space, or one of `< > : " | ? *`.
 */
export function windowsNameProblem(name: string): string | null {
  if (WINDOWS_RESERVED.test(name)) return 'reserved device name on windows';
  if (name.endsWith('.') || name.endsWith(' ')) return 'name ends in a dot or space (windows drops it)';
  if (WINDOWS_FORBIDDEN.test(name)) return 'character windows forbids in names (< > : " | ? *)';
  return null;
}

/**
 * Checks a path that checkPath accepted against the Windows name rules, for
 * a destination on Windows (or on a file system with its rules).
 * @throws BrickpostError UNSAFE_PATH naming the path and the rule it breaks.
 */
export function checkWindowsPath(path: string, where = 'manifest'): void {
  for (const part of path.split('/')) {
    const problem = windowsNameProblem(part);
    if (problem) throw new BrickpostError('UNSAFE_PATH', `${where}: unsafe path ${quote(path)} on windows: ${problem}`);
  }
}

/**
 * The key two names collide under on a case-insensitive, normalising file
 * system (NTFS, APFS, exFAT): NFC, then each character case-folded, then
 * NFC again. Siblings are ordered by this key's UTF-8 bytes, then by the
 * name's own UTF-8 bytes.
 */
export function foldKey(name: string): string {
  const n = name.normalize('NFC');
  if (ASCII.test(n)) return n.toLowerCase();
  let out = '';
  for (const c of n) out += foldChar(c);
  return out.normalize('NFC');
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Simple case folding of one character, from the Unicode case mappings:
 * the lower case of its upper case when that is one character (so `ſ` and
 * `s`, `ς` and `σ`, `µ` and `μ`, the Kelvin sign and `k`, `ı` and `i` fold
 * together), else its lower case (so `ß`, whose upper case is `SS`, stays
 * `ß`: no full folding).
 */
function foldChar(c: string): string {
  const up = c.toUpperCase();
  return up.length === 1 || (up.length === 2 && up.codePointAt(0)! > 0xffff) ? up.toLowerCase() : c.toLowerCase();
}

/** Compares two sibling names in manifest order (negative when a < b). */
export function compareNames(a: string, b: string): number {
  return compareFolded(foldKey(a), a, foldKey(b), b);
}

/** compareNames for names whose fold keys are known already. */
export function compareFolded(aKey: string, a: string, bKey: string, b: string): number {
  return Buffer.compare(Buffer.from(aKey, 'utf8'), Buffer.from(bKey, 'utf8')) || Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
