/**
 * Signing: the publisher's Ed25519 signature in minisign's format, so that
 * `minisign -V -P <key> -m FILE` checks what brickpost signs.
 *
 * Terms:
 * - signing key: an Ed25519 seed and public key plus an 8-byte key id.
 * - key id: names a key inside signatures; printed as minisign does (the
 *   bytes as a little-endian number in 16 upper-case hex digits).
 * - public key string: "RW…", base64 of "Ed" ‖ key id ‖ public key.
 * - prehash: BLAKE2b-512 of a file; an "ED" signature signs the prehash, so
 *   files of any size are signed by streaming.
 * - trusted comment: text covered by the global signature (minisign puts a
 *   timestamp and file name there); the untrusted comment is not covered.
 *
 * Formats: minisign (jedisct1/minisign, src/minisign.h and src/minisign.c).
 */

export { generateSigningKey, keyIdHex, publicKeyString, formatPublicKeyFile, parsePublicKey, type SigningKey, type PublicKeyInfo } from './key.js';
export { formatSecretKeyFile, parseSecretKeyFile } from './secret-key.js';
export {
  createPrehash,
  signPrehashed,
  signBuffer,
  signLegacy,
  parseSignature,
  MAX_TRUSTED_COMMENT_BYTES,
  MAX_SIGNATURE_FILE_BYTES,
  type ParsedSignature,
} from './signature.js';
export { verifySignature, type TrustedKey, type VerifiedSignature } from './verify.js';
