import { BrickpostError, quote } from '../errors.js';

/**
 * Byte strings: names and link targets as the file system holds them,
 * which need not be UTF-8 (FORMAT.md §byte-strings).
 *
 * - escaped string: how brickpost holds a byte string in memory. Bytes that
 *   are part of a well-formed UTF-8 sequence become that character; every
 *   other byte b (0x80–0xFF) becomes the lone surrogate U+DC00 + b (the
 *   "surrogateescape" of Python's os.fsdecode). A string that is well-formed
 *   Unicode holds exactly the UTF-8 bytes of its text.
 * - field form: how a manifest writes one (v2): the JSON string itself when
 *   the bytes are UTF-8, else U+0000 followed by the padded base64 of the
 *   bytes. No name or target holds NUL, so the two forms cannot be confused.
 */

/** The escaped string of raw bytes. */
export function fromBytes(b: Uint8Array): string {
  let out = '';
  let i = 0;
  let run = 0;
  const flush = (end: number): void => {
    if (end > run) out += Buffer.from(b.buffer, b.byteOffset + run, end - run).toString('utf8');
  };
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    flush(i);
    out += String.fromCharCode(0xdc00 + c);
    i++;
    run = i;
  }
  flush(i);
  return out;
}

/** The raw bytes of an escaped string (UTF-8, each escape U+DC80–U+DCFF back to its byte). */
export function toBytes(s: string): Buffer {
  if (!hasEscapes(s)) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xdc80 && u <= 0xdcff && !(i > 0 && isHigh(s.charCodeAt(i - 1)))) {
      if (i > run) parts.push(Buffer.from(s.slice(run, i), 'utf8'));
      parts.push(Buffer.of(u - 0xdc00));
      run = i + 1;
    }
  }
  if (run < s.length) parts.push(Buffer.from(s.slice(run), 'utf8'));
  return Buffer.concat(parts);
}

/** The number of bytes of an escaped string: toBytes(s).length, without making them when they are UTF-8. */
export function byteLength(s: string): number {
  return hasEscapes(s) ? toBytes(s).length : Buffer.byteLength(s, 'utf8');
}

/**
 * Compares the bytes of two escaped strings (Buffer.compare of their
 * toBytes, as -1, 0 or 1). Up to the first code unit that differs the bytes
 * are the same; when neither of those two units is a surrogate, the UTF-8
 * bytes order as the code points, that is as the two units. Anything else
 * (a surrogate pair or an escape there, or one string a prefix of the
 * other that ends in a surrogate) is compared as bytes.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i < n) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if ((x < 0xd800 || x > 0xdfff) && (y < 0xd800 || y > 0xdfff)) return x < y ? -1 : 1;
  } else if (i === 0 || !isSurrogate(a.charCodeAt(i - 1))) {
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  return Buffer.compare(toBytes(a), toBytes(b));
}

function isSurrogate(u: number): boolean {
  return u >= 0xd800 && u <= 0xdfff;
}

/** Whether `s` holds escaped bytes (its bytes are not UTF-8). */
export function hasEscapes(s: string): boolean {
  return !s.isWellFormed();
}

/**
 * Whether `s` is an escaped string as fromBytes makes them: every lone
 * surrogate is an escape of a byte 0x80–0xFF, and the bytes it stands for
 * decode back to `s` (so escapes cannot spell a character UTF-8 could).
 */
export function isEscapedString(s: string): boolean {
  if (s.isWellFormed()) return true;
  return fromBytes(toBytes(s)) === s;
}

/** What a path or target looks like in a manifest v2 field. */
export function toField(s: string): string {
  return hasEscapes(s) ? `\u0000${toBytes(s).toString('base64')}` : s;
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The escaped string of a manifest v2 field (the string itself, or the
 * bytes of a U+0000-prefixed base64 form).
 * @throws BrickpostError MALFORMED for a base64 form that is not canonical,
 * or whose bytes are UTF-8 (then the plain form is the only one allowed)
 */
export function fromField(v: string, where: string, field: string): string {
  if (!v.startsWith('\u0000')) return v;
  const b64 = v.slice(1);
  if (b64 === '' || !B64.test(b64)) throw new BrickpostError('MALFORMED', `${where}: field ${field} starts with U+0000 but is not followed by padded base64`);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.toString('base64') !== b64) throw new BrickpostError('MALFORMED', `${where}: field ${field} holds non-canonical base64`);
  const s = fromBytes(bytes);
  if (!hasEscapes(s)) throw new BrickpostError('MALFORMED', `${where}: field ${field} is base64 of UTF-8 text ${quote(s)}; it must be written as that text`);
  return s;
}

/**
 * A name or path for people to read: escaped bytes as `\xNN`, and control,
 * bidirectional and separator characters as JSON escapes, in double quotes
 * when anything was escaped or the text has edge spaces (quote's rules).
 */
export function displayName(s: string): string {
  if (!hasEscapes(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    const lone = u >= 0xdc80 && u <= 0xdcff && !(i > 0 && isHigh(s.charCodeAt(i - 1)));
    out += lone ? `\\x${(u - 0xdc00).toString(16).padStart(2, '0')}` : s[i];
  }
  return out;
}

function isHigh(u: number): boolean {
  return u >= 0xd800 && u <= 0xdbff;
}

/** Length of the well-formed UTF-8 sequence at b[i] (RFC 3629: no overlongs, no surrogates, at most U+10FFFF), or 0. */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
