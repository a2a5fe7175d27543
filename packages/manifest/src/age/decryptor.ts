/**
 * Streaming payload decryption (age spec §payload). A full chunk is first
 * opened as a non-final chunk as soon as it is complete; only if that fails
 * is it kept until the end of input shows whether it is the final chunk.
 * Plaintext is released chunk by chunk, each only after its tag verified.
 */

import { BrickpostError } from '../errors.js';
import { TAG_SIZE } from './aead.js';
import { chunkNonce, openChunk, PAYLOAD_NONCE_SIZE, payloadKey, SEALED_CHUNK } from './stream.js';

/**
 * Decrypts a payload chunk by chunk. Errors: PAYLOAD_CORRUPT (a chunk fails
 * authentication; the message names the chunk index), TRUNCATED (the input
 * ends before a final chunk), MALFORMED (data after the final chunk, or an
 * empty final chunk that is not the first). When a call decrypts some chunks
 * and then fails, it returns those chunks and throws on the next call, so
 * every authentic chunk before the damage is released.
 */
export class PayloadDecryptor {
  private readonly key: Buffer;
  private readonly iv = Buffer.alloc(12);
  private readonly pending = Buffer.allocUnsafe(SEALED_CHUNK);
  private pendingLength = 0;
  /** The pending full chunk failed as a non-final chunk. */
  private held = false;
  private index = 0;
  private done = false;
  private error: BrickpostError | null = null;

  /** Throws USAGE unless `nonce` is the 16-byte payload nonce. */
  constructor(fileKey: Buffer, nonce: Buffer) {
    if (nonce.length !== PAYLOAD_NONCE_SIZE) {
      throw new BrickpostError('USAGE', `age payload nonce is ${nonce.length} bytes, want ${PAYLOAD_NONCE_SIZE}`);
    }
    this.key = payloadKey(fileKey, nonce);
  }

  private open(sealed: Buffer, last: boolean): Buffer | null {
    return openChunk(this.key, chunkNonce(this.iv, this.index, last), sealed);
  }

  private corrupt(): BrickpostError {
    return new BrickpostError('PAYLOAD_CORRUPT', `age payload chunk ${this.index} fails authentication`, {
      hint: 'the encrypted file was damaged or modified',
    });
  }

  private trailing(): BrickpostError {
    return new BrickpostError('MALFORMED', `age payload has data after its final chunk ${this.index - 1}`);
  }

  /** A full chunk known to be followed by more data that is not a valid non-final chunk. */
  private finalThenMore(sealed: Buffer, out: Buffer[]): void {
    const plain = this.open(sealed, true);
    if (plain === null) throw this.corrupt();
    out.push(plain);
    this.index++;
    this.done = true;
    throw this.trailing();
  }

  private run(cipher: Buffer, out: Buffer[]): void {
    if (this.done) throw this.trailing();
    let pos = 0;
    if (this.held) {
      this.held = false;
      this.pendingLength = 0;
      this.finalThenMore(this.pending, out);
    }
    if (this.pendingLength > 0) {
      pos = cipher.copy(this.pending, this.pendingLength, 0, SEALED_CHUNK - this.pendingLength);
      this.pendingLength += pos;
      if (this.pendingLength < SEALED_CHUNK) return;
      this.pendingLength = 0;
      if (!this.full(this.pending, pos < cipher.length, out)) return;
    }
    while (cipher.length - pos >= SEALED_CHUNK) {
      const sealed = cipher.subarray(pos, pos + SEALED_CHUNK);
      pos += SEALED_CHUNK;
      if (!this.full(sealed, pos < cipher.length, out)) return;
    }
    this.pendingLength = cipher.copy(this.pending, 0, pos);
  }

  /** Handles one full chunk; false when it is held back. */
  private full(sealed: Buffer, more: boolean, out: Buffer[]): boolean {
    const plain = this.open(sealed, false);
    if (plain !== null) {
      out.push(plain);
      this.index++;
      return true;
    }
    if (more) this.finalThenMore(sealed, out);
    if (sealed !== this.pending) sealed.copy(this.pending);
    this.pendingLength = SEALED_CHUNK;
    this.held = true;
    return false;
  }

  private fail(error: unknown, out: Buffer[]): Buffer[] {
    if (!(error instanceof BrickpostError)) throw error;
    if (out.length === 0) throw error;
    this.error = error;
    return out;
  }

  /** Decrypts the chunks completed by `cipher`; see the class comment for errors. */
  update(cipher: Buffer): Buffer[] {
    if (this.error !== null) throw this.error;
    const out: Buffer[] = [];
    if (cipher.length === 0) return out;
    try {
      this.run(cipher, out);
    } catch (e) {
      return this.fail(e, out);
    }
    return out;
  }

  /** Decrypts the final chunk and checks the payload ended properly. */
  final(): Buffer[] {
    if (this.error !== null) throw this.error;
    if (this.done) return [];
    this.error = new BrickpostError('USAGE', 'age payload decryptor used after final');
    const n = this.pendingLength;
    if (n === 0) {
      throw new BrickpostError('TRUNCATED', `age payload ends without a final chunk, after ${this.index} chunks`, {
        hint: 'the encrypted file was cut short',
      });
    }
    if (n < TAG_SIZE) {
      throw new BrickpostError('TRUNCATED', `age payload chunk ${this.index} is ${n} bytes, shorter than its tag`);
    }
    if (n === TAG_SIZE && this.index > 0) {
      throw new BrickpostError('MALFORMED', `age payload final chunk ${this.index} is empty`);
    }
    const plain = this.open(this.pending.subarray(0, n), true);
    if (plain === null) throw this.corrupt();
    this.done = true;
    return plain.length > 0 ? [plain] : [];
  }
}
