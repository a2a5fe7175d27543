/**
 * The mlkem768x25519 hybrid post-quantum recipient type (age spec §"The
 * MLKEM768-X25519 (i.e. X-Wing) hybrid post-quantum recipient type"): the
 * file key is sealed with HPKE base mode (RFC 9180) using the MLKEM768-X25519
 * KEM of draft-ietf-hpke-pq, HKDF-SHA256 and ChaCha20Poly1305.
 */

import { createHash, createHmac, randomBytes } from 'node:crypto';
import { BrickpostError, quote } from '../errors.js';
import { open, seal } from './aead.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import type { Stanza } from './header.js';
import { MLKEM_CIPHERTEXT_SIZE, MLKEM_PUBLIC_SIZE, mlkemDecapsulate, mlkemEncapsulate, mlkemKeyGen, mlkemPublicKey, type MlKemPrivateKey } from './mlkem.js';
import { x25519, x25519PublicKey } from './x25519.js';

/** Bytes of a hybrid recipient (ML-KEM-768 encapsulation key ‖ X25519 point). */
export const HYBRID_PUBLIC_SIZE = MLKEM_PUBLIC_SIZE + 32;
const ENC_SIZE = MLKEM_CIPHERTEXT_SIZE + 32;
const STANZA_TYPE = 'mlkem768x25519';
const INFO = Buffer.from('age-encryption.org/mlkem768x25519');
/** The X-Wing combiner label, the six bytes `\.//^\`. */
const XWING_LABEL = Buffer.from('5c2e2f2f5e5c', 'hex');
/** "HPKE" ‖ KEM 0x647a ‖ KDF 0x0001 (HKDF-SHA256) ‖ AEAD 0x0003 (ChaCha20Poly1305). */
const SUITE_ID = Buffer.concat([Buffer.from('HPKE'), Buffer.from([0x64, 0x7a, 0x00, 0x01, 0x00, 0x03])]);

/** An expanded hybrid decapsulation key. */
export interface HybridKey {
  mlkem: MlKemPrivateKey;
  x25519Secret: Buffer;
  x25519Public: Buffer;
  /** The recipient bytes. */
  publicKey: Buffer;
}

/** Expands a 32-byte seed: SHAKE256(seed, 96) = ML-KEM d ‖ z ‖ X25519 secret. */
export function hybridKeyFromSeed(seed: Uint8Array): HybridKey {
  const e = createHash('shake256', { outputLength: 96 }).update(seed).digest();
  const mlkem = mlkemKeyGen(e.subarray(0, 32), e.subarray(32, 64));
  const x25519Secret = e.subarray(64);
  const x25519Public = x25519PublicKey(x25519Secret);
  return { mlkem, x25519Secret, x25519Public, publicKey: Buffer.concat([mlkem.ek, x25519Public]) };
}

function combine(ssM: Buffer, ssX: Buffer, ctX: Uint8Array, pkX: Uint8Array): Buffer {
  return createHash('sha3-256').update(ssM).update(ssX).update(ctX).update(pkX).update(XWING_LABEL).digest();
}

function labeledExtract(salt: Uint8Array, label: string, ikm: Uint8Array): Buffer {
  return createHmac('sha256', salt).update('HPKE-v1').update(SUITE_ID).update(label).update(ikm).digest();
}

function labeledExpand(prk: Buffer, label: string, context: Buffer, length: number): Buffer {
  const info = Buffer.concat([Buffer.from([0, length]), Buffer.from('HPKE-v1'), SUITE_ID, Buffer.from(label), context]);
  // One HKDF-Expand block suffices for 32 and 12 bytes.
  return createHmac('sha256', prk)
    .update(info)
    .update(Buffer.from([1]))
    .digest()
    .subarray(0, length);
}

/** RFC 9180 §5.1 KeyScheduleS/R in base mode: the AEAD key and nonce. */
function keySchedule(sharedSecret: Buffer): { key: Buffer; nonce: Buffer } {
  const empty = Buffer.alloc(0);
  const context = Buffer.concat([Buffer.from([0]), labeledExtract(empty, 'psk_id_hash', empty), labeledExtract(empty, 'info_hash', INFO)]);
  const secret = labeledExtract(sharedSecret, 'secret', empty);
  return { key: labeledExpand(secret, 'key', context, 32), nonce: labeledExpand(secret, 'base_nonce', context, 12) };
}

/** Wraps `fileKey` to a hybrid recipient. Throws BAD_KEY for an invalid key. */
export function wrapHybrid(fileKey: Buffer, recipient: Buffer): Stanza {
  const bad = () => new BrickpostError('BAD_KEY', 'invalid mlkem768x25519 recipient key');
  if (recipient.length !== HYBRID_PUBLIC_SIZE) throw bad();
  const mlkem = mlkemPublicKey(recipient.subarray(0, MLKEM_PUBLIC_SIZE));
  const pkX = recipient.subarray(MLKEM_PUBLIC_SIZE);
  const ephemeral = randomBytes(32);
  const ssX = x25519(ephemeral, pkX);
  if (mlkem === null || ssX === null) throw bad();
  const { sharedSecret, ciphertext } = mlkemEncapsulate(mlkem);
  const ctX = x25519PublicKey(ephemeral);
  const { key, nonce } = keySchedule(combine(sharedSecret, ssX, ctX, pkX));
  return { type: STANZA_TYPE, args: [encodeBase64(Buffer.concat([ciphertext, ctX]))], body: seal(key, fileKey, nonce) };
}

/**
 * Tries every mlkem768x25519 stanza with one key; returns the file key or
 * null. Throws MALFORMED on a stanza the spec says to reject (argument
 * count, non-canonical or wrong-size enc, body not 32 bytes) and on an
 * all-zero X25519 shared secret.
 */
export function unwrapHybrid(stanzas: Stanza[], key: HybridKey): Buffer | null {
  for (const s of stanzas) {
    if (s.type !== STANZA_TYPE) continue;
    const enc = s.args.length === 1 ? decodeBase64(s.args[0]!) : null;
    if (enc === null || enc.length !== ENC_SIZE) {
      throw new BrickpostError('MALFORMED', `age header: invalid mlkem768x25519 stanza arguments ${quote(s.args.join(' '), 60)}`);
    }
    if (s.body.length !== 32) {
      throw new BrickpostError('MALFORMED', `age header: mlkem768x25519 stanza body is ${s.body.length} bytes, want 32`);
    }
    const ctX = enc.subarray(MLKEM_CIPHERTEXT_SIZE);
    const ssX = x25519(key.x25519Secret, ctX);
    if (ssX === null) throw new BrickpostError('MALFORMED', 'age header: mlkem768x25519 share is a low-order point');
    const ssM = mlkemDecapsulate(key.mlkem, enc.subarray(0, MLKEM_CIPHERTEXT_SIZE));
    const { key: aeadKey, nonce } = keySchedule(combine(ssM, ssX, ctX, key.x25519Public));
    const fileKey = open(aeadKey, s.body, nonce);
    if (fileKey !== null) return fileKey;
  }
  return null;
}
