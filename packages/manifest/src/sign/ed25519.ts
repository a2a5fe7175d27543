/**
 * Raw Ed25519 (RFC 8032) keys on Node's crypto: 32-byte seeds and public keys
 * wrapped in the fixed DER prefixes of PKCS #8 and SPKI (RFC 8410 §7, §4).
 */

import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The private key object for a 32-byte seed. */
export function privateKeyFromSeed(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The public key object for a 32-byte public key; throws if it is not a valid point encoding. */
export function publicKeyFromRaw(publicKey: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

/** The 32-byte public key belonging to a seed. */
export function publicKeyOfSeed(seed: Buffer): Buffer {
  const der = createPublicKey(privateKeyFromSeed(seed)).export({ format: 'der', type: 'spki' });
  return der.subarray(SPKI_PREFIX.length);
}

/** A 64-byte Ed25519 signature of `message`. */
export function ed25519Sign(seed: Buffer, message: Buffer): Buffer {
  return sign(null, message, privateKeyFromSeed(seed));
}

// libsodium's list of encodings of points of order 1, 2, 4 and 8 (the sign
// bit of the last byte is ignored). OpenSSL accepts these; minisign does not.
const SMALL_ORDER = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
].map((h) => Buffer.from(h, 'hex'));

/** True when a 32-byte point encoding is one of a point of small order. */
export function hasSmallOrder(point: Buffer): boolean {
  const masked = Buffer.from(point);
  masked[31] = masked[31]! & 0x7f;
  return SMALL_ORDER.some((b) => b.equals(masked));
}

/** True when a 32-byte point encoding has its y coordinate reduced below p = 2^255 - 19. */
export function isCanonicalPoint(point: Buffer): boolean {
  if ((point[31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i > 0; i--) if (point[i] !== 0xff) return true;
  return point[0]! < 0xed;
}

/**
 * True when `signature` is a valid Ed25519 signature of `message` by
 * `publicKey`, with libsodium's extra rules (as minisign applies them):
 * non-canonical or small-order keys and small-order R never verify.
 */
export function ed25519Verify(publicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (!isCanonicalPoint(publicKey) || hasSmallOrder(publicKey) || hasSmallOrder(signature.subarray(0, 32))) {
    return false;
  }
  let key: KeyObject;
  try {
    key = publicKeyFromRaw(publicKey);
  } catch {
    return false;
  }
  return verify(null, message, key, signature);
}
