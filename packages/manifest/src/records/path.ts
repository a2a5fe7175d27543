import { BrickpostError, quote } from '../errors.js';
import { byteLength, compareBytes, isEscapedString } from './bytes.js';

/**
 * Entry paths (FORMAT.md §paths). A path is relative and `/`-separated;
 * it is checked on every read from a drive before it is used for anything.
 *
 * - v1 (manifests written before v2): an allow-list of names safe to create
 *   on Linux, macOS and Windows alike, in NFC, without controls.
 * - v2: any name the source file system can hold (bytes.ts): no empty name,
 *   `.`, `..`, `/` or NUL, within the length limits. Whether a destination
 *   can hold a name (case, normalisation, Windows rules) is decided at
 *   ingest, for that destination.
 */

/** Limits of the path grammar, normative. */
export const PATH_LIMITS = {
  /** Bytes in one component. */
  componentBytes: 255,
  /** Bytes in a whole path. */
  pathBytes: 4096,
  /** Components in a path (nesting depth): v1. */
  depth: 128,
  /** Components in a path: v2. */
  depthV2: 1024,
} as const;

// Control characters (C0, DEL, C1), and characters no portable file system
// accepts in a name.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;
const DRIVE_LETTER = /^[A-Za-z]:/;

/**
 * Why `name` is not a name a v2 manifest can carry, or null when it is: an
 * empty name, `.`, `..`, one holding `/` or NUL, one longer than 255 bytes,
 * or a string that is not an escaped byte string.
 */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'empty component';
  if (name === '.' || name === '..') return 'dot component';
  if (name.includes('/')) return 'slash in name';
  if (name.includes('\u0000')) return 'NUL in name';
  if (!isEscapedString(name)) return 'not a byte string (lone surrogate)';
  if (byteLength(name) > PATH_LIMITS.componentBytes) return 'component longer than 255 bytes';
  return null;
}

/**
 * Why `name` is not a portable name (the v1 grammar, and pack --portable's
 * rule), or null when it is: on top of nameProblem, a control character or
 * backslash, a drive-letter prefix, bytes that are not UTF-8, or a name not
 * in Unicode normalisation form C.
 */
export function componentProblem(name: string): string | null {
  if (name.length === 0) return 'empty component';
  if (name === '.' || name === '..') return 'dot component';
  if (name.includes('/')) return 'slash in name';
  if (FORBIDDEN.test(name)) return 'control character or backslash in name';
  if (DRIVE_LETTER.test(name)) return 'drive letter prefix';
  if (!name.isWellFormed()) return 'name is not valid UTF-8';
  if (Buffer.byteLength(name, 'utf8') > PATH_LIMITS.componentBytes) return 'component longer than 255 bytes';
  if (name !== name.normalize('NFC')) return 'name is not in unicode normalisation form C';
  return null;
}

/**
 * Checks a manifest path against the grammar of manifest version `version`
 * (1: the portable allow-list; 2: any byte-string names). Returns its
 * components.
 * @throws BrickpostError UNSAFE_PATH naming the path and the rule it breaks.
 */
export function checkPath(path: string, where = 'manifest', version: 1 | 2 = 1): string[] {
  if (version === 2 && typeof path === 'string' && path.length > 0 && plainLastStart(path) >= 0) return path.split('/');
  return checkPathByRules(path, where, version);
}

/** checkPath by its rules one by one, without the one pass over a plain ASCII path (exported for the test that compares them). */
export function checkPathByRules(path: string, where = 'manifest', version: 1 | 2 = 1): string[] {
  if (typeof path !== 'string' || path.length === 0) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: empty path`);
  }
  if ((version === 1 ? Buffer.byteLength(path, 'utf8') : byteLength(path)) > PATH_LIMITS.pathBytes) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: path longer than ${PATH_LIMITS.pathBytes} bytes: ${quote(path)}`);
  }
  if (path.startsWith('/')) throw new BrickpostError('UNSAFE_PATH', `${where}: absolute path ${quote(path)}`);
  const parts = path.split('/');
  const depth = version === 1 ? PATH_LIMITS.depth : PATH_LIMITS.depthV2;
  if (parts.length > depth) {
    throw new BrickpostError('UNSAFE_PATH', `${where}: path nested deeper than ${depth}: ${quote(path)}`);
  }
  for (const part of parts) {
    const problem = version === 1 ? componentProblem(part) : nameProblem(part);
    if (problem) throw new BrickpostError('UNSAFE_PATH', `${where}: unsafe path ${quote(path)}: ${problem}`);
  }
  return parts;
}

/**
 * Where the last component of a v2 path of ASCII characters starts when
 * the path meets every v2 rule, or -1, when checkPathByRules
 * decides (and name what is wrong). Most paths are ASCII, and ASCII without
 * NUL has no escapes, no lone surrogates and one byte a character: one
 * pass over the path checks what each name's own scans would.
 */
function plainLastStart(path: string): number {
  const n = path.length;
  if (n > PATH_LIMITS.pathBytes) return -1;
  let start = 0;
  let depth = 1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? path.charCodeAt(i) : 0x2f;
    if (c === 0x2f) {
      const len = i - start;
      if (len === 0 || len > PATH_LIMITS.componentBytes) return -1;
      if (path.charCodeAt(start) === 0x2e && (len === 1 || (len === 2 && path.charCodeAt(start + 1) === 0x2e))) return -1;
      if (i < n) {
        start = i + 1;
        depth++;
      }
    } else if (c === 0 || c > 0x7f) return -1;
  }
  return depth > PATH_LIMITS.depthV2 ? -1 : start;
}

/**
 * checkPath for a manifest entry: the same checks, returning only the
 * path's last component (its name), and without splitting the path when
 * it is plain ASCII.
 * @throws BrickpostError UNSAFE_PATH naming the path and the rule it breaks.
 */
export function checkPathName(path: string, where = 'manifest', version: 1 | 2 = 1): string {
  if (version === 2 && typeof path === 'string' && path.length > 0) {
    const start = plainLastStart(path);
    if (start >= 0) return path.slice(start);
  }
  const parts = checkPathByRules(path, where, version);
  return parts[parts.length - 1]!;
}

/**
 * Checks a path from any manifest before it is used on a destination: the
 * v2 rules, which every v1 path also meets (so a check at the point of use
 * needs no version).
 * @throws BrickpostError UNSAFE_PATH
 */
export function checkEntryPath(path: string, where = 'manifest'): string[] {
  return checkPath(path, where, 2);
}

/** checkEntryPath where its names are not needed: the same checks and refusals, and nothing made for a plain path. */
export function assertEntryPath(path: string, where = 'manifest'): void {
  if (typeof path === 'string' && path.length > 0 && plainLastStart(path) >= 0) return;
  checkPathByRules(path, where, 2);
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

/** Compares two sibling names in manifest order (negative when `a < b`). */
export function compareNames(a: string, b: string): number {
  return compareFolded(foldKey(a), a, foldKey(b), b);
}

/** compareNames for names whose fold keys are known already (escaped bytes compare as the bytes they stand for). */
export function compareFolded(aKey: string, a: string, bKey: string, b: string): number {
  return compareBytes(aKey, bKey) || compareBytes(a, b);
}

/**
 * Compares two entry paths in manifest order (negative when `a` comes
 * first): component by component by compareNames, a folder before what is
 * inside it.
 */
export function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = compareNames(pa[i]!, pb[i]!);
    if (c !== 0) return c;
  }
  return pa.length - pb.length;
}
