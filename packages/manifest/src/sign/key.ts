/**
 * Signing keys and minisign public keys (minisign's format: a public key is
 * base64 of "Ed" ‖ key id (8 bytes) ‖ Ed25519 public key (32 bytes), 56
 * characters starting "RW"; the .pub file puts an untrusted comment line
 * before it).
 */

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { decodeBase64Exact } from './base64.js';
import { hasSmallOrder, isCanonicalPoint } from './ed25519.js';

/** An Ed25519 key pair with its minisign key id. The seed is the secret. */
export interface SigningKey {
  /** 8 random bytes naming the key, stored as minisign stores them. */
  keyId: Buffer;
  /** The 32-byte Ed25519 seed (RFC 8032 private key). */
  seed: Buffer;
  /** The 32-byte Ed25519 public key. */
  publicKey: Buffer;
}

/** A public key as read from a minisign public key string or file. */
export interface PublicKeyInfo {
  keyId: Buffer;
  publicKey: Buffer;
  /** The key id as minisign prints it, e.g. "C80E1B14384AA464". */
  keyIdHex: string;
  /** The canonical "RW…" line. */
  line: string;
}

/** minisign's algorithm tag for Ed25519 keys and legacy signatures. */
export const SIG_ALG = Buffer.from('Ed', 'latin1');
/** minisign's algorithm tag for signatures over the BLAKE2b-512 of the file. */
export const SIG_ALG_PREHASHED = Buffer.from('ED', 'latin1');
/** "untrusted comment: ", the prefix of the first line of every minisign file. */
export const UNTRUSTED_PREFIX = 'untrusted comment: ';
/** Longest untrusted comment minisign reads back (1024-byte line buffer). */
export const MAX_UNTRUSTED_COMMENT_BYTES = 1024 - UNTRUSTED_PREFIX.length - 2;

const PUBLIC_KEY_BYTES = 2 + 8 + 32;
// minisign 0.11 prints key ids without leading zeros; later versions pad to 16.
const PUBLIC_COMMENT = /^minisign public key ([0-9A-F]{1,16})$/;

/** Creates a new random signing key. */
export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const pub = publicKey.export({ format: 'jwk' });
  return {
    keyId: randomBytes(8),
    seed: Buffer.from(jwk.d!, 'base64url'),
    publicKey: Buffer.from(pub.x!, 'base64url'),
  };
}

/**
 * The key id as minisign prints it: the 8 bytes read as a little-endian
 * 64-bit number, in 16 upper-case hex digits (zero-padded, as current
 * minisign prints it; minisign 0.11 drops leading zeros). Throws RangeError
 * unless 8 bytes.
 */
export function keyIdHex(keyId: Buffer): string {
  if (keyId.length !== 8) throw new RangeError(`key id must be 8 bytes, got ${keyId.length}`);
  return Buffer.from(keyId).reverse().toString('hex').toUpperCase();
}

/** The "RW…" public key string that `minisign -P` takes. */
export function publicKeyString(key: Pick<SigningKey, 'keyId' | 'publicKey'>): string {
  return Buffer.concat([SIG_ALG, key.keyId, key.publicKey]).toString('base64');
}

/** The text of a minisign .pub file for `key`, as `minisign -G` writes it. */
export function formatPublicKeyFile(key: Pick<SigningKey, 'keyId' | 'publicKey'>): string {
  return `${UNTRUSTED_PREFIX}minisign public key ${keyIdHex(key.keyId)}\n${publicKeyString(key)}\n`;
}

function badKey(message: string): BrickpostError {
  return new BrickpostError('BAD_KEY', message, {
    hint: 'give the publisher key as the "RW…" string or the whole minisign .pub file',
  });
}

/**
 * Reads a public key given either as the bare "RW…" string (one optional
 * trailing newline) or as a whole minisign .pub file (comment line, key
 * line). Throws BAD_KEY on anything else: other line structure, non-canonical
 * base64, another algorithm, a comment naming another key id, or a key that
 * is not a usable Ed25519 point.
 */
export function parsePublicKey(text: string): PublicKeyInfo {
  if (text.length > 2048) throw badKey('public key text is too long');
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  let line: string;
  if (lines.length === 1) {
    line = lines[0]!;
  } else if (lines.length === 2 && lines[0]!.startsWith(UNTRUSTED_PREFIX)) {
    const comment = lines[0]!.slice(UNTRUSTED_PREFIX.length);
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(comment)) {
      throw badKey(`public key comment has control characters: ${quote(comment)}`);
    }
    line = lines[1]!;
    const named = PUBLIC_COMMENT.exec(comment)?.[1];
    const info = parsePublicKeyLine(line);
    if (named !== undefined && BigInt(`0x${named}`) !== BigInt(`0x${info.keyIdHex}`)) {
      throw badKey(`public key file says key id ${named} but holds key ${info.keyIdHex}`);
    }
    return info;
  } else {
    throw badKey(`not a minisign public key: ${quote(text, 80)}`);
  }
  return parsePublicKeyLine(line);
}

function parsePublicKeyLine(line: string): PublicKeyInfo {
  const bytes = decodeBase64Exact(line, PUBLIC_KEY_BYTES);
  if (bytes === undefined) throw badKey(`not a minisign public key: ${quote(line, 80)}`);
  if (!bytes.subarray(0, 2).equals(SIG_ALG)) {
    throw badKey(`public key algorithm ${quote(bytes.subarray(0, 2).toString('latin1'))} is not Ed25519 ("Ed")`);
  }
  const keyId = Buffer.from(bytes.subarray(2, 10));
  const publicKey = Buffer.from(bytes.subarray(10));
  if (!isCanonicalPoint(publicKey) || hasSmallOrder(publicKey)) {
    throw badKey(`public key ${keyIdHex(keyId)} is not a usable Ed25519 key`);
  }
  return { keyId, publicKey, keyIdHex: keyIdHex(keyId), line };
}
