/**
 * The X25519 recipient type (age spec §"The X25519 recipient type"): raw
 * 32-byte keys mapped onto Node's KeyObjects, and the stanza wrap/unwrap.
 */

import { createPrivateKey, createPublicKey, diffieHellman, randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { hkdf, open, seal } from './aead.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import type { Stanza } from './header.js';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const LABEL = 'age-encryption.org/v1/X25519';

function privateKey(secret: Uint8Array) {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
}

/** X25519(secret, basepoint): the public key of a 32-byte secret. */
export function x25519PublicKey(secret: Uint8Array): Buffer {
  const der = createPublicKey(privateKey(secret)).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** X25519(secret, point); null when the result is all zero (low-order point). */
export function x25519(secret: Uint8Array, point: Uint8Array): Buffer | null {
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, point]), format: 'der', type: 'spki' });
  let shared: Buffer;
  try {
    shared = diffieHellman({ privateKey: privateKey(secret), publicKey });
  } catch {
    // OpenSSL refuses to derive an all-zero shared secret.
    return null;
  }
  return shared.every((b) => b === 0) ? null : shared;
}

/** Wraps `fileKey` to an X25519 recipient with a fresh ephemeral share. */
export function wrapX25519(fileKey: Buffer, recipient: Buffer): Stanza {
  const ephemeral = randomBytes(32);
  const share = x25519PublicKey(ephemeral);
  const shared = x25519(ephemeral, recipient);
  if (shared === null) throw new BrickpostError('BAD_KEY', 'x25519 recipient is a low-order point');
  const key = hkdf(shared, Buffer.concat([share, recipient]), LABEL);
  return { type: 'X25519', args: [encodeBase64(share)], body: seal(key, fileKey) };
}

/**
 * Tries every X25519 stanza with one identity; returns the file key or null.
 * Throws MALFORMED on an X25519 stanza the spec says to reject (argument
 * count, non-canonical or wrong-size share, body not 32 bytes, all-zero
 * shared secret).
 */
export function unwrapX25519(stanzas: Stanza[], secret: Buffer, publicKey: Buffer): Buffer | null {
  for (const s of stanzas) {
    if (s.type !== 'X25519') continue;
    const share = s.args.length === 1 ? decodeBase64(s.args[0]!) : null;
    if (share === null || share.length !== 32) {
      throw new BrickpostError('MALFORMED', `age header: invalid X25519 stanza arguments ${quote(s.args.join(' '))}`);
    }
    if (s.body.length !== 32) {
      throw new BrickpostError('MALFORMED', `age header: X25519 stanza body is ${s.body.length} bytes, want 32`);
    }
    const shared = x25519(secret, share);
    if (shared === null) {
      throw new BrickpostError('MALFORMED', 'age header: X25519 share is a low-order point');
    }
    const key = hkdf(shared, Buffer.concat([share, publicKey]), LABEL);
    const fileKey = open(key, s.body);
    if (fileKey !== null) return fileKey;
  }
  return null;
}
