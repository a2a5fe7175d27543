/**
 * age: the file encryption format every pack and manifest uses
 * (https://age-encryption.org/v1, spec at c2sp.org/age), on Node's crypto.
 *
 * Terms (from the age spec):
 * - file key: 16 random bytes per file; everything else is derived from it.
 * - recipient: whom a file key is wrapped to: an X25519 public key
 *   (`age1…`), a post-quantum hybrid ML-KEM-768 + X25519 key (`age1pq1…`)
 *   or a passphrase. identity: what unwraps it: the matching secret key
 *   (`AGE-SECRET-KEY-1…`, `AGE-SECRET-KEY-PQ-1…`) or the passphrase.
 * - header: text lines: the version, one stanza per recipient holding the
 *   wrapped file key, and an HMAC of the header under the file key.
 * - payload: a 16-byte nonce, then the plaintext in 64 KiB STREAM chunks,
 *   each sealed with ChaCha20-Poly1305; the final chunk is flagged, so
 *   truncation, reordering and appending are detected.
 * - armor: an optional PEM text wrapping of a whole file. No file brickpost
 *   defines is armored: decrypt and openFile refuse armor, and decodeArmor
 *   unwraps it where a caller means to accept it.
 *
 * An encrypted file is header ‖ nonce ‖ sealed chunks.
 */

export { decodeArmor, encodeArmor, isArmored } from './armor.js';
export { PayloadDecryptor } from './decryptor.js';
export { PayloadEncryptor } from './encryptor.js';
export { decrypt, encrypt, openFile } from './file.js';
export { createHeader, FILE_KEY_SIZE, unwrapFileKey } from './file-key.js';
export { encodeHeader, MAX_HEADER_BYTES, MAX_STANZAS, parseHeader, type ParsedHeader, type Stanza } from './header.js';
export { formatIdentityFile, parseIdentityFile } from './identity-file.js';
export {
  formatRecipient,
  generateHybridIdentity,
  generateX25519Identity,
  identityToRecipient,
  parseIdentity,
  parseRecipient,
  passphraseIdentity,
  passphraseRecipient,
  type Identity,
  type Recipient,
} from './keys.js';
export { HYBRID_PUBLIC_SIZE, type HybridKey } from './hybrid.js';
export { payloadOffset, plainSize, readPlainRange, sealedSize } from './range.js';
export { DEFAULT_SCRYPT_LOG_N, MAX_SCRYPT_LOG_N } from './scrypt.js';
export { PAYLOAD_NONCE_SIZE, payloadKey, SEALED_CHUNK, STREAM_CHUNK } from './stream.js';
