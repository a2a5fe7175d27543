/**
 * The age payload (age spec §payload): a 16-byte nonce, then the plaintext in
 * 64 KiB chunks sealed with ChaCha20-Poly1305 under HKDF(file key, nonce,
 * "payload"), chunk nonce = 11-byte big-endian counter ‖ last-chunk flag.
 */

import { BrickpostError } from '../errors.js';
import { hkdf, open, TAG_SIZE } from './aead.js';

/** Plaintext bytes per STREAM chunk. */
export const STREAM_CHUNK = 65536;
/** Bytes of one full sealed chunk. */
export const SEALED_CHUNK = STREAM_CHUNK + TAG_SIZE;
/** Bytes of the payload nonce written right after the header. */
export const PAYLOAD_NONCE_SIZE = 16;

const MAX_CHUNKS = 2 ** 48;

/** The payload key: HKDF-SHA-256(ikm = file key, salt = nonce, info = "payload"). */
export function payloadKey(fileKey: Buffer, nonce: Buffer): Buffer {
  return hkdf(fileKey, nonce, 'payload');
}

/** Writes the 12-byte nonce of chunk `index` into `out`. */
export function chunkNonce(out: Buffer, index: number, last: boolean): Buffer {
  if (index >= MAX_CHUNKS) throw new BrickpostError('LIMIT_EXCEEDED', 'age payload has too many chunks');
  out.fill(0, 0, 5);
  out.writeUIntBE(index, 5, 6);
  out[11] = last ? 1 : 0;
  return out;
}

/**
 * Opens one sealed chunk (ciphertext ‖ tag); null when authentication fails.
 * The plaintext is released only after the tag has been checked.
 */
export function openChunk(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer | null {
  return open(key, sealed, nonce);
}
