/**
 * Random access into an age payload (age spec §payload: "The payload can be
 * seeked by jumping ahead in chunk increments"). The final chunk is located
 * from the ciphertext size; every chunk used is authenticated with its index
 * and final flag, so a chunk moved, swapped or cut short fails.
 */

import { BrickpostError } from '../errors.js';
import { TAG_SIZE } from './aead.js';
import { chunkNonce, openChunk, PAYLOAD_NONCE_SIZE, payloadKey, SEALED_CHUNK, STREAM_CHUNK } from './stream.js';

/** Offset of the first sealed chunk in a file whose header is `headerLength` bytes. */
export function payloadOffset(headerLength: number): number {
  return headerLength + PAYLOAD_NONCE_SIZE;
}

/** Size of the sealed chunks for a plaintext of `plainSize` bytes (nonce excluded). */
export function sealedSize(plainSize: number): number {
  const chunks = plainSize === 0 ? 1 : Math.ceil(plainSize / STREAM_CHUNK);
  return plainSize + chunks * TAG_SIZE;
}

/**
 * Plaintext size for `sealedBytes` bytes of sealed chunks (nonce excluded).
 * Throws TRUNCATED or MALFORMED when no valid payload has that size.
 */
export function plainSize(sealedBytes: number): number {
  if (sealedBytes < TAG_SIZE) {
    throw new BrickpostError('TRUNCATED', `age payload is ${sealedBytes} bytes, too short for one chunk`);
  }
  const chunks = Math.ceil(sealedBytes / SEALED_CHUNK);
  const lastLength = sealedBytes - (chunks - 1) * SEALED_CHUNK;
  if (lastLength < TAG_SIZE || (lastLength === TAG_SIZE && chunks > 1)) {
    throw new BrickpostError('MALFORMED', `age payload size ${sealedBytes} leaves a final chunk of ${lastLength} bytes`);
  }
  return sealedBytes - chunks * TAG_SIZE;
}

/**
 * Decrypts plaintext bytes [plainOffset, plainOffset + length) of an age
 * file, reading only the chunks that cover them (one `readAt` call).
 * `ciphertextSize` is the whole file's size, `payloadStart` the offset of
 * the first sealed chunk. Throws TRUNCATED when the range lies past the end
 * of the plaintext or `readAt` returns fewer bytes, MALFORMED when the size
 * is impossible, PAYLOAD_CORRUPT (naming the chunk) when a chunk fails.
 */
export async function readPlainRange(
  readAt: (pos: number, len: number) => Promise<Buffer>,
  ciphertextSize: number,
  payloadStart: number,
  fileKey: Buffer,
  nonce: Buffer,
  plainOffset: number,
  length: number,
): Promise<Buffer> {
  if (!Number.isSafeInteger(plainOffset) || !Number.isSafeInteger(length) || plainOffset < 0 || length < 0) {
    throw new BrickpostError('USAGE', `invalid age payload range ${plainOffset}+${length}`);
  }
  const sealedBytes = ciphertextSize - payloadStart;
  const total = plainSize(sealedBytes);
  if (plainOffset + length > total) {
    throw new BrickpostError('TRUNCATED', `age payload range ${plainOffset}+${length} runs past its end at ${total}`);
  }
  if (length === 0) return Buffer.alloc(0);
  const lastChunk = Math.ceil(sealedBytes / SEALED_CHUNK) - 1;
  const first = Math.floor(plainOffset / STREAM_CHUNK);
  const end = Math.floor((plainOffset + length - 1) / STREAM_CHUNK);
  const readStart = first * SEALED_CHUNK;
  const readLength = Math.min((end + 1) * SEALED_CHUNK, sealedBytes) - readStart;
  const sealed = await readAt(payloadStart + readStart, readLength);
  if (sealed.length < readLength) {
    throw new BrickpostError('TRUNCATED', `age payload read returned ${sealed.length} of ${readLength} bytes at ${payloadStart + readStart}`);
  }
  const key = payloadKey(fileKey, nonce);
  const iv = Buffer.alloc(12);
  const out = first === end ? null : Buffer.allocUnsafe(length);
  let written = 0;
  for (let i = first; i <= end; i++) {
    const at = (i - first) * SEALED_CHUNK;
    const plain = openChunk(key, chunkNonce(iv, i, i === lastChunk), sealed.subarray(at, Math.min(at + SEALED_CHUNK, readLength)));
    if (plain === null) {
      throw new BrickpostError('PAYLOAD_CORRUPT', `age payload chunk ${i} fails authentication`, {
        hint: 'the encrypted file was damaged or modified',
      });
    }
    const from = i === first ? plainOffset - first * STREAM_CHUNK : 0;
    const to = Math.min(plain.length, plainOffset + length - i * STREAM_CHUNK);
    if (out === null) return plain.subarray(from, to);
    written += plain.copy(out, written, from, to);
  }
  return out!;
}
