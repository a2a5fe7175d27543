/**
 * Whole-buffer encryption and decryption of age files. For large data use
 * PayloadEncryptor/PayloadDecryptor, chunk by chunk.
 */

import { BrickpostError, quote } from '../errors.js';
import { isArmored } from './armor.js';
import { PayloadDecryptor } from './decryptor.js';
import { PayloadEncryptor } from './encryptor.js';
import { createHeader, unwrapFileKey } from './file-key.js';
import { parseHeader } from './header.js';
import type { Identity, Recipient } from './keys.js';
import { payloadOffset } from './range.js';

/** Encrypts `plain` to `recipients` as a binary age file. Throws USAGE (see createHeader). */
export function encrypt(plain: Buffer, recipients: Recipient[]): Buffer {
  const { header, fileKey } = createHeader(recipients);
  const enc = new PayloadEncryptor(fileKey);
  return Buffer.concat([header, enc.nonce, ...enc.update(plain), ...enc.final()]);
}

/**
 * Reads the header and payload nonce of a complete binary age file held in
 * `file` and unwraps its file key. Throws as parseHeader and unwrapFileKey
 * do, MALFORMED for an ASCII-armored file (decode it with decodeArmor
 * first), and TRUNCATED when the nonce is missing.
 */
export function openFile(file: Buffer, identities: Identity[], path?: string): { fileKey: Buffer; nonce: Buffer; headerLength: number; payloadStart: number } {
  if (isArmored(file)) {
    throw new BrickpostError('MALFORMED', `${path === undefined ? 'the age file' : quote(path)} is ASCII-armored; decode the armor first`, { path });
  }
  const parsed = parseHeader(file);
  const fileKey = unwrapFileKey(parsed, file, identities, path);
  const payloadStart = payloadOffset(parsed.headerLength);
  if (file.length < payloadStart) {
    throw new BrickpostError('TRUNCATED', `age payload nonce of ${path === undefined ? 'the age file' : quote(path)} is cut short`, {
      path,
    });
  }
  const nonce = file.subarray(parsed.headerLength, payloadStart);
  return { fileKey, nonce, headerLength: parsed.headerLength, payloadStart };
}

/**
 * Decrypts a whole binary age file (an armored one must go through
 * decodeArmor first). Throws MALFORMED for a bad header or armored input,
 * NO_MATCHING_KEY, HEADER_MAC_MISMATCH, TRUNCATED, or PAYLOAD_CORRUPT; no
 * plaintext is returned unless all of it verified.
 */
export function decrypt(file: Buffer, identities: Identity[], path?: string): Buffer {
  const { fileKey, nonce, payloadStart } = openFile(file, identities, path);
  const dec = new PayloadDecryptor(fileKey, Buffer.from(nonce));
  const parts = dec.update(file.subarray(payloadStart));
  parts.push(...dec.final());
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
