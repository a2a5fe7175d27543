/**
 * Node stream wrappers: bytes in, age file out, and back. Memory stays
 * bounded by one chunk plus the header (at most MAX_HEADER_BYTES).
 */

import { Transform, type TransformCallback } from 'node:stream';
import { BrickpostError } from '../errors.js';
import { PayloadDecryptor } from './decryptor.js';
import { PayloadEncryptor } from './encryptor.js';
import { decrypt } from './file.js';
import { createHeader, unwrapFileKey } from './file-key.js';
import { MAX_HEADER_BYTES, parseHeader, type ParsedHeader } from './header.js';
import type { Identity, Recipient } from './keys.js';
import { PAYLOAD_NONCE_SIZE } from './stream.js';

/** Largest armored file the decrypting stream buffers; armor is meant for small files. */
export const MAX_ARMORED_BYTES = 64 << 20;

function pushAll(stream: Transform, parts: Buffer[]): void {
  for (const p of parts) stream.push(p);
}

/** A Transform that encrypts its input to `recipients` as a binary age file. Throws USAGE like createHeader. */
export function createEncryptStream(recipients: Recipient[]): Transform {
  const { header, fileKey } = createHeader(recipients);
  const enc = new PayloadEncryptor(fileKey);
  let started = false;
  const start = (t: Transform): void => {
    if (started) return;
    started = true;
    t.push(header);
    t.push(enc.nonce);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      start(this);
      pushAll(this, enc.update(chunk));
      callback();
    },
    flush(callback: TransformCallback) {
      start(this);
      pushAll(this, enc.final());
      callback();
    },
  });
}

/**
 * A Transform that decrypts an age file (binary, or armored up to
 * MAX_ARMORED_BYTES). Emits plaintext chunk by chunk as each verifies; the
 * stream errors with the codes of decrypt() if anything is wrong, so the
 * output is trustworthy only once the stream finished without error.
 */
export function createDecryptStream(identities: Identity[], path?: string): Transform {
  let head: Buffer[] = [];
  let headBytes = 0;
  let armored: boolean | null = null;
  let parsed: ParsedHeader | null = null;
  let dec: PayloadDecryptor | null = null;

  /** Starts the payload once header and nonce are in; returns the payload bytes received so far. */
  const tryStart = (newline: boolean): Buffer | null => {
    if (parsed === null && !newline && headBytes < MAX_HEADER_BYTES) return null;
    const buf = Buffer.concat(head);
    head = [buf];
    if (parsed === null) {
      try {
        parsed = parseHeader(buf);
      } catch (e) {
        if (e instanceof BrickpostError && e.code === 'TRUNCATED') return null;
        throw e;
      }
    }
    const payloadStart = parsed.headerLength + PAYLOAD_NONCE_SIZE;
    if (buf.length < payloadStart) return null;
    const fileKey = unwrapFileKey(parsed, buf, identities, path);
    dec = new PayloadDecryptor(fileKey, Buffer.from(buf.subarray(parsed.headerLength, payloadStart)));
    head = [];
    return buf.subarray(payloadStart);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        if (dec !== null) {
          pushAll(this, dec.update(chunk));
          return callback();
        }
        head.push(chunk);
        headBytes += chunk.length;
        armored ??= startsArmored(chunk);
        if (armored !== false) {
          if (headBytes > MAX_ARMORED_BYTES) {
            throw new BrickpostError('LIMIT_EXCEEDED', `armored age file is larger than ${MAX_ARMORED_BYTES} bytes`, { path });
          }
          return callback();
        }
        const rest = tryStart(chunk.includes(10));
        if (rest !== null) pushAll(this, dec!.update(rest));
        callback();
      } catch (e) {
        callback(e as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (armored) {
          this.push(decrypt(Buffer.concat(head), identities, path));
          return callback();
        }
        if (dec === null) {
          const rest = tryStart(true);
          if (rest === null) {
            if (parsed === null) parseHeader(Buffer.concat(head));
            throw new BrickpostError('TRUNCATED', 'age payload nonce is cut short', { path });
          }
          pushAll(this, dec!.update(rest));
        }
        pushAll(this, dec!.final());
        callback();
      } catch (e) {
        callback(e as Error);
      }
    },
  });
}

/** Decides armor from the first non-whitespace byte; null while there is none. */
function startsArmored(chunk: Buffer): boolean | null {
  for (const b of chunk) {
    if (b === 32 || (b >= 9 && b <= 13)) continue;
    return b === 0x2d;
  }
  return null;
}
