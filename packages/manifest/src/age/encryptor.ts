/**
 * Streaming payload encryption (age spec §payload). Holds at most one chunk
 * and seals straight from the caller's buffers where a whole chunk is
 * available, so bulk data is copied only when a chunk straddles two calls.
 */

import { createCipheriv, randomBytes } from 'node:crypto';
import { BrickpostError } from '../errors.js';
import { TAG_SIZE } from './aead.js';
import { chunkNonce, PAYLOAD_NONCE_SIZE, payloadKey, STREAM_CHUNK } from './stream.js';

/**
 * Encrypts a payload chunk by chunk. Write `nonce` after the header, then
 * every buffer returned by `update` and `final`, in order.
 */
export class PayloadEncryptor {
  /** The 16-byte payload nonce to write right after the header. */
  readonly nonce: Buffer;
  private readonly key: Buffer;
  private readonly iv = Buffer.alloc(12);
  private readonly pending = Buffer.allocUnsafe(STREAM_CHUNK);
  private pendingLength = 0;
  private index = 0;
  private finished = false;

  constructor(fileKey: Buffer) {
    this.nonce = randomBytes(PAYLOAD_NONCE_SIZE);
    this.key = payloadKey(fileKey, this.nonce);
  }

  private seal(plain: Buffer, last: boolean, out: Buffer[]): void {
    const c = createCipheriv('chacha20-poly1305', this.key, chunkNonce(this.iv, this.index++, last), {
      authTagLength: TAG_SIZE,
    });
    const body = c.update(plain);
    c.final();
    if (body.length > 0) out.push(body);
    out.push(c.getAuthTag());
  }

  /**
   * Seals every full chunk known not to be the last one. Returns the sealed
   * bytes as buffers to write in order; each chunk comes as two buffers
   * (ciphertext, then its 16-byte tag) so no copy is made. A full chunk at
   * the end of `plain` is held back until more data or `final` shows whether
   * it is the last. `plain` may be reused by the caller after the call.
   * Throws USAGE after `final`.
   */
  update(plain: Buffer): Buffer[] {
    if (this.finished) throw new BrickpostError('USAGE', 'age payload encryptor used after final');
    const out: Buffer[] = [];
    if (plain.length === 0) return out;
    let pos = 0;
    if (this.pendingLength === STREAM_CHUNK) {
      this.seal(this.pending, false, out);
      this.pendingLength = 0;
    }
    if (this.pendingLength > 0) {
      pos = plain.copy(this.pending, this.pendingLength, 0, STREAM_CHUNK - this.pendingLength);
      this.pendingLength += pos;
      if (this.pendingLength < STREAM_CHUNK || pos === plain.length) return out;
      this.seal(this.pending, false, out);
      this.pendingLength = 0;
    }
    while (plain.length - pos > STREAM_CHUNK) {
      this.seal(plain.subarray(pos, pos + STREAM_CHUNK), false, out);
      pos += STREAM_CHUNK;
    }
    this.pendingLength = plain.copy(this.pending, 0, pos);
    return out;
  }

  /** Seals the last chunk (empty when the whole payload is empty). Throws USAGE when called twice. */
  final(): Buffer[] {
    if (this.finished) throw new BrickpostError('USAGE', 'age payload encryptor finished twice');
    this.finished = true;
    const out: Buffer[] = [];
    this.seal(this.pending.subarray(0, this.pendingLength), true, out);
    return out;
  }
}
