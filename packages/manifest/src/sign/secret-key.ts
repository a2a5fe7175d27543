/**
 * minisign secret key files, unencrypted only. The second line is base64 of
 * 158 bytes (minisign.h, SeckeyStruct):
 *
 *   sig_alg "Ed" (2) ‖ kdf_alg (2) ‖ chk_alg "B2" (2) ‖ kdf salt (32) ‖
 *   kdf opslimit (8) ‖ kdf memlimit (8) ‖ key id (8) ‖
 *   Ed25519 secret key = seed ‖ public key (64) ‖ checksum (32)
 *
 * kdf_alg is "Sc" (scrypt-encrypted) or two zero bytes (unencrypted, as
 * `minisign -G -W` writes it). The checksum is BLAKE2b-256 of
 * sig_alg ‖ key id ‖ secret key; `minisign -G -W` leaves it zero and minisign
 * never checks it on an unencrypted key.
 */

import { blake2b } from '@noble/hashes/blake2.js';
import { BrickpostError } from '../errors.js';
import { decodeBase64Exact } from './base64.js';
import { publicKeyOfSeed } from './ed25519.js';
import { keyIdHex, SIG_ALG, UNTRUSTED_PREFIX, type SigningKey } from './key.js';

const SECRET_KEY_BYTES = 158;
const KDF_NONE = Buffer.from([0, 0]);
const KDF_SCRYPT = Buffer.from('Sc', 'latin1');
const CHK_BLAKE2B = Buffer.from('B2', 'latin1');
const KEY_ID_AT = 54;
const SK_AT = 62;
const CHK_AT = 126;

// BLAKE2b-256 is not a truncation of the BLAKE2b-512 Node's OpenSSL offers (the length is in the parameter block).
function checksum(keyId: Buffer, seed: Buffer, publicKey: Buffer): Buffer {
  return Buffer.from(blake2b(Buffer.concat([SIG_ALG, keyId, seed, publicKey]), { dkLen: 32 }));
}

/**
 * The text of an unencrypted minisign secret key file holding `key`, which
 * `minisign -S -W -s FILE` accepts. Keep it secret: it is the key itself.
 */
export function formatSecretKeyFile(key: SigningKey): string {
  const bytes = Buffer.alloc(SECRET_KEY_BYTES);
  SIG_ALG.copy(bytes, 0);
  KDF_NONE.copy(bytes, 2);
  CHK_BLAKE2B.copy(bytes, 4);
  key.keyId.copy(bytes, KEY_ID_AT);
  key.seed.copy(bytes, SK_AT);
  key.publicKey.copy(bytes, SK_AT + 32);
  checksum(key.keyId, key.seed, key.publicKey).copy(bytes, CHK_AT);
  return `${UNTRUSTED_PREFIX}minisign unencrypted secret key ${keyIdHex(key.keyId)}\n${bytes.toString('base64')}\n`;
}

function badKey(message: string, hint?: string): BrickpostError {
  return new BrickpostError('BAD_KEY', message, hint === undefined ? {} : { hint });
}

/**
 * Reads an unencrypted minisign secret key file (as written by
 * formatSecretKeyFile or `minisign -G -W`). Throws BAD_KEY when the text is
 * not exactly a comment line and a key line, when the key is
 * password-protected (with a hint to remove the password), when the checksum
 * is neither zero nor right, or when the stored public key does not belong to
 * the seed.
 */
export function parseSecretKeyFile(text: string): SigningKey {
  if (text.length > 4096) throw badKey('secret key file is too long');
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  if (lines.length !== 2 || !lines[0]!.startsWith(UNTRUSTED_PREFIX)) {
    throw badKey('not a minisign secret key file: expected a comment line and a key line');
  }
  const bytes = decodeBase64Exact(lines[1]!, SECRET_KEY_BYTES);
  if (bytes === undefined) throw badKey('not a minisign secret key file: bad key line');
  if (!bytes.subarray(0, 2).equals(SIG_ALG)) throw badKey('secret key algorithm is not Ed25519 ("Ed")');
  if (!bytes.subarray(4, 6).equals(CHK_BLAKE2B)) throw badKey('secret key checksum algorithm is not BLAKE2b ("B2")');
  const kdf = bytes.subarray(2, 4);
  if (kdf.equals(KDF_SCRYPT)) {
    throw badKey('secret key is encrypted with a password', 'remove the password with `minisign -C -W -s FILE`, or create the key with `brickpost keygen`');
  }
  if (!kdf.equals(KDF_NONE)) throw badKey('secret key uses an unknown key derivation function');
  const keyId = Buffer.from(bytes.subarray(KEY_ID_AT, SK_AT));
  const seed = Buffer.from(bytes.subarray(SK_AT, SK_AT + 32));
  const publicKey = Buffer.from(bytes.subarray(SK_AT + 32, CHK_AT));
  const chk = bytes.subarray(CHK_AT);
  if (!chk.equals(Buffer.alloc(32)) && !chk.equals(checksum(keyId, seed, publicKey))) {
    throw badKey(`secret key ${keyIdHex(keyId)} is corrupt: checksum mismatch`);
  }
  if (!publicKeyOfSeed(seed).equals(publicKey)) {
    throw badKey(`secret key ${keyIdHex(keyId)} is corrupt: public key does not match the secret`);
  }
  return { keyId, seed, publicKey };
}
