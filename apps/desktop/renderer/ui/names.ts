/**
 * Names and paths read from a drive, made safe to read: shown as they are
 * when they hold only ordinary characters, else in double quotes with JSON
 * escapes, as `brickpost ls` prints them. Control characters, bidirectional
 * controls, invisible separators and edge spaces become visible, so a name
 * cannot pass for another; a byte of a name that is not UTF-8 (held as
 * U+DC80–U+DCFF, README "Names") shows as `\xNN`. The result is text for
 * textContent, never markup.
 */

/** Characters that make a name need quoting: invisible, reordering, or the quoting's own. */
const NEEDS_QUOTES = /[\p{Cc}\p{Bidi_Control}\p{Noncharacter_Code_Point}\u2028\u2029\u200b\u2060\ufeff"\\]/u;
/** A surrogate without its partner: a byte that is not UTF-8, or a broken string. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What JSON.stringify leaves as it is but a reader must see as an escape. */
const ESCAPE_TOO = /[\u007f-\u009f\p{Bidi_Control}\p{Noncharacter_Code_Point}\u2028\u2029\u200b\u2060\ufeff]/gu;

function codeEscape(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** A name or path as people should read it (see the module comment). */
export function printable(s: string): string {
  if (s !== '' && s.trim() === s && !NEEDS_QUOTES.test(s) && !LONE_SURROGATE.test(s)) return s;
  return JSON.stringify(s)
    .replace(ESCAPE_TOO, codeEscape)
    .replace(/(\\+)udc([89a-f][0-9a-f])/g, (m, slashes: string, byte: string) => (slashes.length % 2 === 1 ? `${slashes.slice(1)}\\x${byte}` : m));
}

/** The last component of a '/'-separated path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
