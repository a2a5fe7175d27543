/**
 * Verification of minisign signatures against a set of trusted public keys,
 * in the order minisign checks: key id, file signature, global signature.
 */

import { BrickpostError } from '../errors.js';
import { ed25519Verify } from './ed25519.js';
import { createPrehash, parseSignature } from './signature.js';

/** A public key the caller trusts. */
export interface TrustedKey {
  keyId: Buffer;
  publicKey: Buffer;
}

/** What a valid signature tells: who signed, and the authenticated comment. */
export interface VerifiedSignature {
  keyIdHex: string;
  trustedComment: string;
}

/**
 * Verifies .minisig text over `message` (the file's bytes, or for a prehashed
 * "ED" signature its BLAKE2b-512 digest as `{ prehash }`, see createPrehash).
 * Throws MALFORMED (see parseSignature), UNTRUSTED_PUBLISHER when no trusted
 * key has the signature's key id, SIGNATURE_INVALID when the file signature
 * or the global signature (over the trusted comment) does not verify, or when
 * a legacy "Ed" signature is given only a prehash.
 */
export function verifySignature(sigText: string | Buffer, message: Buffer | { prehash: Buffer }, trusted: ReadonlyArray<TrustedKey>): VerifiedSignature {
  const sig = parseSignature(sigText);
  const candidates = trusted.filter((k) => k.keyId.equals(sig.keyId));
  if (candidates.length === 0) {
    throw new BrickpostError('UNTRUSTED_PUBLISHER', `signature is by key ${sig.keyIdHex}, which is not a trusted publisher`, {
      hint: `if you expect this publisher, trust its public key (key id ${sig.keyIdHex}) first`,
    });
  }
  let signed: Buffer;
  if (sig.algorithm === 'ED') {
    signed = Buffer.isBuffer(message) ? createPrehash().update(message).digest() : message.prehash;
    if (signed.length !== 64) throw new BrickpostError('USAGE', `prehash must be 64 bytes, got ${signed.length}`);
  } else if (Buffer.isBuffer(message)) {
    signed = message;
  } else {
    throw new BrickpostError('SIGNATURE_INVALID', `legacy (non-prehashed) signature by key ${sig.keyIdHex} cannot be checked against a prehash`, {
      hint: 'sign with prehashing (minisign without -l), or verify the whole file',
    });
  }
  const global = Buffer.concat([sig.signature, Buffer.from(sig.trustedComment, 'utf8')]);
  for (const key of candidates) {
    if (!ed25519Verify(key.publicKey, signed, sig.signature)) continue;
    if (!ed25519Verify(key.publicKey, global, sig.globalSignature)) {
      throw new BrickpostError('SIGNATURE_INVALID', `trusted comment signature by key ${sig.keyIdHex} does not verify: the comment was altered`);
    }
    return { keyIdHex: sig.keyIdHex, trustedComment: sig.trustedComment };
  }
  throw new BrickpostError('SIGNATURE_INVALID', `signature by key ${sig.keyIdHex} does not verify: the file was altered or signed by another key`);
}
