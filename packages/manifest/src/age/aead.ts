/**
 * ChaCha20-Poly1305 (RFC 7539) and HKDF-SHA-256 (RFC 5869) as the age spec
 * uses them, on Node's OpenSSL bindings.
 */

import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

/** Poly1305 tag length in bytes. */
export const TAG_SIZE = 16;

const ZERO_NONCE = Buffer.alloc(12);

/** HKDF-SHA-256 with a 32-byte output (age spec §conventions). */
export function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
}

/** Seals `plain` and returns ciphertext ‖ tag. `nonce` defaults to 12 zero bytes. */
export function seal(key: Uint8Array, plain: Uint8Array, nonce: Uint8Array = ZERO_NONCE): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_SIZE });
  const head = c.update(plain);
  c.final();
  return Buffer.concat([head, c.getAuthTag()]);
}

/** Opens ciphertext ‖ tag; returns null when authentication fails. */
export function open(key: Uint8Array, sealed: Uint8Array, nonce: Uint8Array = ZERO_NONCE): Buffer | null {
  if (sealed.length < TAG_SIZE) return null;
  const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_SIZE });
  d.setAuthTag(sealed.subarray(sealed.length - TAG_SIZE));
  const plain = d.update(sealed.subarray(0, sealed.length - TAG_SIZE));
  try {
    d.final();
  } catch {
    return null;
  }
  return plain;
}
