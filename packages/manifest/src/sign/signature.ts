/**
 * minisign signatures (.minisig files). Four lines, each ending in LF:
 *
 *   untrusted comment: <text>
 *   base64(sig_alg (2) ‖ key id (8) ‖ Ed25519 signature (64))
 *   trusted comment: <text>
 *   base64(global signature (64))
 *
 * sig_alg "ED": the signature is over BLAKE2b-512 of the file (minisign's
 * default, "prehashed"); "Ed": over the file itself (legacy, `minisign -l`).
 * The global signature is Ed25519 over signature ‖ trusted comment bytes, so
 * the trusted comment is authenticated and the untrusted one is not.
 */

import { createHash, type Hash } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { decodeBase64Exact } from './base64.js';
import { ed25519Sign } from './ed25519.js';
import { keyIdHex, MAX_UNTRUSTED_COMMENT_BYTES, SIG_ALG, SIG_ALG_PREHASHED, UNTRUSTED_PREFIX, type SigningKey } from './key.js';

/** "trusted comment: ", the prefix of the third line of a signature. */
export const TRUSTED_PREFIX = 'trusted comment: ';
/** Longest trusted comment minisign signs and reads back (8192-byte line buffer). */
export const MAX_TRUSTED_COMMENT_BYTES = 8192 - TRUSTED_PREFIX.length - 2;
/** Largest .minisig text accepted, well above what the comment limits allow. */
export const MAX_SIGNATURE_FILE_BYTES = 16 * 1024;

/** A parsed .minisig file. Nothing in it is verified yet. */
export interface ParsedSignature {
  keyId: Buffer;
  keyIdHex: string;
  /** "ED" prehashed (BLAKE2b-512 of the file), "Ed" legacy (the file itself). */
  algorithm: 'ED' | 'Ed';
  signature: Buffer;
  trustedComment: string;
  globalSignature: Buffer;
  untrustedComment: string;
}

// Tab is allowed: minisign's own default trusted comment uses it.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** A streaming BLAKE2b-512 hash, the prehash that "ED" signatures sign. */
export function createPrehash(): Hash {
  return createHash('blake2b512');
}

function checkComment(comment: string, what: string, max: number, code: 'USAGE' | 'MALFORMED'): void {
  if (CONTROL.test(comment)) throw new BrickpostError(code, `${what} has control characters: ${quote(comment)}`);
  if (Buffer.byteLength(comment, 'utf8') > max) throw new BrickpostError(code, `${what} is longer than ${max} bytes`);
}

function format(alg: Buffer, message: Buffer, key: SigningKey, trustedComment: string, untrustedComment?: string): string {
  const untrusted = untrustedComment ?? `signature from brickpost key ${keyIdHex(key.keyId)}`;
  checkComment(trustedComment, 'trusted comment', MAX_TRUSTED_COMMENT_BYTES, 'USAGE');
  checkComment(untrusted, 'untrusted comment', MAX_UNTRUSTED_COMMENT_BYTES, 'USAGE');
  const signature = ed25519Sign(key.seed, message);
  const global = ed25519Sign(key.seed, Buffer.concat([signature, Buffer.from(trustedComment, 'utf8')]));
  return (
    `${UNTRUSTED_PREFIX}${untrusted}\n${Buffer.concat([alg, key.keyId, signature]).toString('base64')}\n` +
    `${TRUSTED_PREFIX}${trustedComment}\n${global.toString('base64')}\n`
  );
}

/**
 * The .minisig text of a prehashed ("ED") signature, given the BLAKE2b-512
 * digest of the file (see createPrehash). Throws USAGE when the digest is not
 * 64 bytes or a comment has a line break or control character or is longer
 * than minisign reads back.
 */
export function signPrehashed(blake2b512: Buffer, key: SigningKey, trustedComment: string, untrustedComment?: string): string {
  if (blake2b512.length !== 64) throw new BrickpostError('USAGE', `prehash must be 64 bytes, got ${blake2b512.length}`);
  return format(SIG_ALG_PREHASHED, blake2b512, key, trustedComment, untrustedComment);
}

/** signPrehashed of a whole in-memory message. Same errors. */
export function signBuffer(message: Buffer, key: SigningKey, trustedComment: string, untrustedComment?: string): string {
  return signPrehashed(createPrehash().update(message).digest(), key, trustedComment, untrustedComment);
}

/**
 * The .minisig text of a legacy ("Ed") signature over the message itself, as
 * `minisign -S -l` makes. For interoperability tests; brickpost signs prehashed.
 */
export function signLegacy(message: Buffer, key: SigningKey, trustedComment: string, untrustedComment?: string): string {
  return format(SIG_ALG, message, key, trustedComment, untrustedComment);
}

function malformed(message: string): BrickpostError {
  return new BrickpostError('MALFORMED', `malformed signature: ${message}`);
}

/**
 * Parses .minisig text (a Buffer must be UTF-8). Strict: exactly four
 * LF-terminated lines with the right prefixes, canonical base64 of the right
 * lengths, a known algorithm, comments without control characters (tab
 * allowed) and within minisign's limits, the whole at most
 * MAX_SIGNATURE_FILE_BYTES. Throws MALFORMED on any deviation.
 */
export function parseSignature(input: string | Buffer): ParsedSignature {
  let text: string;
  if (typeof input === 'string') {
    if (input.length > MAX_SIGNATURE_FILE_BYTES) throw malformed(`longer than ${MAX_SIGNATURE_FILE_BYTES} bytes`);
    text = input;
  } else {
    if (input.length > MAX_SIGNATURE_FILE_BYTES) throw malformed(`longer than ${MAX_SIGNATURE_FILE_BYTES} bytes`);
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch (cause) {
      throw new BrickpostError('MALFORMED', 'malformed signature: not UTF-8', { cause });
    }
  }
  if (!text.endsWith('\n')) throw malformed('does not end with a line feed');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== 4) throw malformed(`expected 4 lines, found ${lines.length}`);
  const [l1, l2, l3, l4] = lines as [string, string, string, string];
  if (!l1.startsWith(UNTRUSTED_PREFIX)) throw malformed(`line 1 does not start with ${quote(UNTRUSTED_PREFIX)}`);
  if (!l3.startsWith(TRUSTED_PREFIX)) throw malformed(`line 3 does not start with ${quote(TRUSTED_PREFIX)}`);
  const untrustedComment = l1.slice(UNTRUSTED_PREFIX.length);
  const trustedComment = l3.slice(TRUSTED_PREFIX.length);
  checkComment(untrustedComment, 'malformed signature: untrusted comment', MAX_UNTRUSTED_COMMENT_BYTES, 'MALFORMED');
  checkComment(trustedComment, 'malformed signature: trusted comment', MAX_TRUSTED_COMMENT_BYTES, 'MALFORMED');
  const sig = decodeBase64Exact(l2, 74);
  if (sig === undefined) throw malformed(`line 2 is not base64 of 74 bytes: ${quote(l2, 120)}`);
  const global = decodeBase64Exact(l4, 64);
  if (global === undefined) throw malformed(`line 4 is not base64 of 64 bytes: ${quote(l4, 120)}`);
  const alg = sig.subarray(0, 2).toString('latin1');
  if (alg !== 'ED' && alg !== 'Ed') throw malformed(`unsupported signature algorithm ${quote(alg)}`);
  const keyId = Buffer.from(sig.subarray(2, 10));
  return {
    keyId,
    keyIdHex: keyIdHex(keyId),
    algorithm: alg,
    signature: Buffer.from(sig.subarray(10)),
    trustedComment,
    globalSignature: global,
    untrustedComment,
  };
}
