/**
 * Identities (secret keys, passphrases) and recipients (public keys,
 * passphrases), and their text encodings (age spec §"Native recipient types").
 */

import { randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { decodeBech32, encodeBech32 } from './bech32.js';
import { DEFAULT_SCRYPT_LOG_N, MAX_SCRYPT_LOG_N } from './scrypt.js';
import { x25519PublicKey } from './x25519.js';

/** What can unwrap a file key: an X25519 secret key or a passphrase. */
export type Identity =
  | { type: 'x25519'; secret: Buffer; publicKey: Buffer }
  | { type: 'scrypt'; passphrase: string };

/** Whom a file key is wrapped to: an X25519 public key or a passphrase. */
export type Recipient =
  | { type: 'x25519'; publicKey: Buffer }
  | { type: 'scrypt'; passphrase: string; logN: number };

const SECRET_HRP = 'age-secret-key-';
const PUBLIC_HRP = 'age';

/** Generates a fresh X25519 key pair in its text encodings. */
export function generateX25519Identity(): { identity: string; recipient: string } {
  const secret = randomBytes(32);
  return {
    identity: encodeBech32(SECRET_HRP, secret).toUpperCase(),
    recipient: encodeBech32(PUBLIC_HRP, x25519PublicKey(secret)),
  };
}

/** Parses an `AGE-SECRET-KEY-1…` string. Throws BAD_KEY. */
export function parseIdentity(text: string): Identity {
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

/** The `age1…` recipient of an `AGE-SECRET-KEY-1…` identity. Throws BAD_KEY. */
export function identityToRecipient(identity: string): string {
  const id = parseIdentity(identity);
  if (id.type !== 'x25519') throw new BrickpostError('BAD_KEY', 'identity has no public recipient');
  return encodeBech32(PUBLIC_HRP, id.publicKey);
}

/** Parses an `age1…` recipient. Throws BAD_KEY. */
export function parseRecipient(text: string): Recipient {
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

/** The `age1…` text of an X25519 recipient. */
export function formatRecipient(recipient: Recipient): string {
  if (recipient.type !== 'x25519') throw new BrickpostError('USAGE', 'a passphrase recipient has no text form');
  return encodeBech32(PUBLIC_HRP, recipient.publicKey);
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
