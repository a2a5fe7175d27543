/**
 * Identities (secret keys, passphrases) and recipients (public keys,
 * passphrases), and their text encodings (age spec §"Native recipient types").
 */

import { randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { decodeBech32, encodeBech32 } from './bech32.js';
import { HYBRID_PUBLIC_SIZE, hybridKeyFromSeed, type HybridKey } from './hybrid.js';
import { DEFAULT_SCRYPT_LOG_N, MAX_SCRYPT_LOG_N } from './scrypt.js';
import { x25519PublicKey } from './x25519.js';

/** What can unwrap a file key: an X25519 or hybrid secret key, or a passphrase. */
export type Identity =
  { type: 'x25519'; secret: Buffer; publicKey: Buffer } | { type: 'mlkem768x25519'; key: HybridKey } | { type: 'scrypt'; passphrase: string };

/** Whom a file key is wrapped to: an X25519 or hybrid public key, or a passphrase. */
export type Recipient =
  { type: 'x25519'; publicKey: Buffer } | { type: 'mlkem768x25519'; publicKey: Buffer } | { type: 'scrypt'; passphrase: string; logN: number };

const SECRET_HRP = 'age-secret-key-';
const PUBLIC_HRP = 'age';
const HYBRID_SECRET_HRP = 'age-secret-key-pq-';
const HYBRID_PUBLIC_HRP = 'age1pq';

/** Generates a fresh X25519 key pair in its text encodings. */
export function generateX25519Identity(): { identity: string; recipient: string } {
  const secret = randomBytes(32);
  return {
    identity: encodeBech32(SECRET_HRP, secret).toUpperCase(),
    recipient: encodeBech32(PUBLIC_HRP, x25519PublicKey(secret)),
  };
}

/** Generates a fresh post-quantum hybrid (mlkem768x25519) key pair in its text encodings. */
export function generateHybridIdentity(): { identity: string; recipient: string } {
  const seed = randomBytes(32);
  return {
    identity: encodeBech32(HYBRID_SECRET_HRP, seed).toUpperCase(),
    recipient: encodeBech32(HYBRID_PUBLIC_HRP, hybridKeyFromSeed(seed).publicKey),
  };
}

/** Parses an `AGE-SECRET-KEY-1…` (X25519) or `AGE-SECRET-KEY-PQ-1…` (hybrid) string. Throws BAD_KEY. */
export function parseIdentity(text: string): Identity {
  if (text.startsWith('AGE-SECRET-KEY-PQ-1')) {
    const { hrp, bytes } = decodeBech32(text, 'age identity');
    if (hrp !== HYBRID_SECRET_HRP || bytes.length !== 32) {
      throw new BrickpostError('BAD_KEY', `invalid age identity ${quote(text, 20)}: wrong prefix or length`);
    }
    return { type: 'mlkem768x25519', key: hybridKeyFromSeed(bytes) };
  }
  if (!text.startsWith('AGE-SECRET-KEY-1')) {
    throw new BrickpostError('BAD_KEY', `not an age identity: ${quote(text, 20)}`, {
      hint: 'an identity starts with AGE-SECRET-KEY-1',
    });
  }
  const { hrp, bytes } = decodeBech32(text, 'age identity');
  if (hrp !== SECRET_HRP || bytes.length !== 32) {
    throw new BrickpostError('BAD_KEY', `invalid age identity ${quote(text, 20)}: wrong prefix or length`);
  }
  return { type: 'x25519', secret: bytes, publicKey: x25519PublicKey(bytes) };
}

/** The `age1…` (or `age1pq1…`) recipient of an identity string. Throws BAD_KEY. */
export function identityToRecipient(identity: string): string {
  const id = parseIdentity(identity);
  if (id.type === 'x25519') return encodeBech32(PUBLIC_HRP, id.publicKey);
  if (id.type === 'mlkem768x25519') return encodeBech32(HYBRID_PUBLIC_HRP, id.key.publicKey);
  throw new BrickpostError('BAD_KEY', 'identity has no public recipient');
}

/** Parses an `age1…` (X25519) or `age1pq1…` (hybrid) recipient. Throws BAD_KEY. */
export function parseRecipient(text: string): Recipient {
  if (text.startsWith('age1pq1')) {
    const { hrp, bytes } = decodeBech32(text, 'age recipient');
    if (hrp !== HYBRID_PUBLIC_HRP || bytes.length !== HYBRID_PUBLIC_SIZE) {
      throw new BrickpostError('BAD_KEY', `invalid age recipient ${quote(text, 80)}: wrong prefix or length`);
    }
    return { type: 'mlkem768x25519', publicKey: bytes };
  }
  if (!text.startsWith('age1')) {
    throw new BrickpostError('BAD_KEY', `not an age recipient: ${quote(text, 80)}`, {
      hint: 'a recipient starts with age1',
    });
  }
  const { hrp, bytes } = decodeBech32(text, 'age recipient');
  if (hrp !== PUBLIC_HRP || bytes.length !== 32) {
    throw new BrickpostError('BAD_KEY', `invalid age recipient ${quote(text, 80)}: wrong prefix or length`);
  }
  return { type: 'x25519', publicKey: bytes };
}

/** The `age1…` text of a public-key recipient. Throws USAGE for a passphrase. */
export function formatRecipient(recipient: Recipient): string {
  if (recipient.type === 'scrypt') throw new BrickpostError('USAGE', 'a passphrase recipient has no text form');
  return encodeBech32(recipient.type === 'x25519' ? PUBLIC_HRP : HYBRID_PUBLIC_HRP, recipient.publicKey);
}

/** An identity that unwraps scrypt stanzas with `passphrase`. */
export function passphraseIdentity(passphrase: string): Identity {
  return { type: 'scrypt', passphrase };
}

/**
 * A recipient that wraps the file key with `passphrase` at work factor
 * 2^logN (default 18). Throws USAGE when logN is outside 1..MAX_SCRYPT_LOG_N.
 */
export function passphraseRecipient(passphrase: string, logN: number = DEFAULT_SCRYPT_LOG_N): Recipient {
  if (!Number.isInteger(logN) || logN < 1 || logN > MAX_SCRYPT_LOG_N) {
    throw new BrickpostError('USAGE', `scrypt work factor ${logN} is outside 1..${MAX_SCRYPT_LOG_N}`);
  }
  return { type: 'scrypt', passphrase, logN };
}
