/**
 * Canonical unpadded base64 (age spec §conventions: RFC 4648 §4 without `=`,
 * decoders MUST reject non-canonical encodings and padding).
 */

const ALPHABET = /^[A-Za-z0-9+/]*$/;

/** Encodes bytes as standard base64 without `=` padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64').replace(/=+$/, '');
}

/**
 * Decodes canonical unpadded base64, or returns null when `s` has padding,
 * a character outside the alphabet (including CR and LF), an impossible
 * length, or non-zero trailing bits (RFC 4648 §3.5).
 */
export function decodeBase64(s: string): Buffer | null {
  if (s.length % 4 === 1 || !ALPHABET.test(s)) return null;
  const bytes = Buffer.from(s, 'base64');
  // Re-encoding is the simplest exact test for canonical trailing bits.
  if (encodeBase64(bytes) !== s) return null;
  return bytes;
}
