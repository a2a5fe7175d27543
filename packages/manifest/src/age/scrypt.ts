/**
 * The scrypt passphrase recipient type (age spec §"The scrypt recipient type").
 */

import { randomBytes, scryptSync } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { open, seal } from './aead.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import type { Stanza } from './header.js';

const LABEL = 'age-encryption.org/v1/scrypt';

/** Work factor (log2 N) used when none is given; the age tool's default. */
export const DEFAULT_SCRYPT_LOG_N = 18;

/**
 * Highest work factor accepted when decrypting. 2^20 needs 1 GiB of memory;
 * a hostile header must not make us allocate more.
 */
export const MAX_SCRYPT_LOG_N = 20;

function deriveKey(passphrase: string, salt: Buffer, logN: number): Buffer {
  const N = 2 ** logN;
  return scryptSync(passphrase, Buffer.concat([Buffer.from(LABEL), salt]), 32, {
    N,
    r: 8,
    p: 1,
    maxmem: 2 * 128 * 8 * N + (1 << 20),
  });
}

/** Wraps `fileKey` with a passphrase at work factor 2^logN. */
export function wrapScrypt(fileKey: Buffer, passphrase: string, logN: number): Stanza {
  const salt = randomBytes(16);
  const key = deriveKey(passphrase, salt, logN);
  return { type: 'scrypt', args: [encodeBase64(salt), String(logN)], body: seal(key, fileKey) };
}

/**
 * Tries the scrypt stanza with a passphrase; returns the file key or null.
 * The caller has already checked that an scrypt stanza stands alone. Throws
 * MALFORMED on a malformed stanza and LIMIT_EXCEEDED on a work factor above
 * MAX_SCRYPT_LOG_N.
 */
export function unwrapScrypt(stanzas: Stanza[], passphrase: string): Buffer | null {
  for (const s of stanzas) {
    if (s.type !== 'scrypt') continue;
    const salt = s.args.length === 2 ? decodeBase64(s.args[0]!) : null;
    if (salt === null || salt.length !== 16 || !/^[1-9][0-9]*$/.test(s.args[1]!)) {
      throw new BrickpostError('MALFORMED', `age header: invalid scrypt stanza arguments ${quote(s.args.join(' '))}`);
    }
    if (s.args[1]!.length > 2 || Number(s.args[1]) > MAX_SCRYPT_LOG_N) {
      throw new BrickpostError('LIMIT_EXCEEDED', `age header: scrypt work factor ${quote(s.args[1]!)} is above ${MAX_SCRYPT_LOG_N}`, {
        hint: 'the file was encrypted with an unusually expensive passphrase setting',
      });
    }
    if (s.body.length !== 32) {
      throw new BrickpostError('MALFORMED', `age header: scrypt stanza body is ${s.body.length} bytes, want 32`);
    }
    const fileKey = open(deriveKey(passphrase, salt, Number(s.args[1])), s.body);
    if (fileKey !== null) return fileKey;
  }
  return null;
}
