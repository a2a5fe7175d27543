/**
 * Strict base64 (RFC 4648 §4, standard alphabet, with padding) as minisign
 * writes it. Node's decoder skips junk silently, so every input is checked
 * against the canonical encoding of what it decodes to.
 */

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes canonical base64 of exactly `length` bytes; returns undefined when
 * the text is not exactly that (wrong alphabet, padding, length or spare bits).
 */
export function decodeBase64Exact(text: string, length: number): Buffer | undefined {
  if (text.length !== 4 * Math.ceil(length / 3) || !B64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== length || bytes.toString('base64') !== text) return undefined;
  return bytes;
}
