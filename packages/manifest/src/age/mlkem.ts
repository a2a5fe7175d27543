/**
 * ML-KEM-768 (FIPS 203), the post-quantum half of the mlkem768x25519
 * recipient type. Only what age needs: deterministic key generation from
 * (d, z), encapsulation and decapsulation with implicit rejection. Hashes
 * (SHA3, SHAKE) come from Node's OpenSSL; polynomial arithmetic is plain JS
 * on Int32Array, coefficients kept in [0, q). Written here because Node 20's
 * OpenSSL has no ML-KEM and `@noble/post-quantum`, which hashes in JavaScript,
 * measured several times slower (README, dependencies); the CCTV hybrid
 * vectors and the typage interop test check it.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const Q = 3329;
const K = 3;
const ETA = 2;
const DU = 10;
const DV = 4;
/** Encapsulation key bytes. */
export const MLKEM_PUBLIC_SIZE = 384 * K + 32;
/** Ciphertext bytes. */
export const MLKEM_CIPHERTEXT_SIZE = 32 * (DU * K + DV);

type Poly = Int32Array;

function power(base: number, exp: number): number {
  let r = 1;
  for (let i = 0; i < exp; i++) r = (r * base) % Q;
  return r;
}
function bitrev7(i: number): number {
  let r = 0;
  for (let b = 0; b < 7; b++) r |= ((i >> b) & 1) << (6 - b);
  return r;
}
/** ζ^BitRev7(i) and ζ^(2·BitRev7(i)+1) for ζ = 17 (FIPS 203 §4.3). */
const ZETAS = Int32Array.from({ length: 128 }, (_, i) => power(17, bitrev7(i)));
const GAMMAS = Int32Array.from({ length: 128 }, (_, i) => power(17, 2 * bitrev7(i) + 1));

const shake = (alg: 'shake128' | 'shake256', n: number, ...parts: Uint8Array[]): Buffer => {
  const h = createHash(alg, { outputLength: n });
  for (const p of parts) h.update(p);
  return h.digest();
};
const sha3 = (alg: 'sha3-256' | 'sha3-512', ...parts: Uint8Array[]): Buffer => {
  const h = createHash(alg);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Algorithm 9. */
function ntt(f: Poly): Poly {
  let i = 1;
  for (let len = 128; len >= 2; len >>= 1) {
    for (let start = 0; start < 256; start += 2 * len) {
      const zeta = ZETAS[i++]!;
      for (let j = start; j < start + len; j++) {
        const t = (zeta * f[j + len]!) % Q;
        f[j + len] = (f[j]! - t + Q) % Q;
        f[j] = (f[j]! + t) % Q;
      }
    }
  }
  return f;
}

/** Algorithm 10. */
function inverseNtt(f: Poly): Poly {
  let i = 127;
  for (let len = 2; len <= 128; len <<= 1) {
    for (let start = 0; start < 256; start += 2 * len) {
      const zeta = ZETAS[i--]!;
      for (let j = start; j < start + len; j++) {
        const t = f[j]!;
        f[j] = (t + f[j + len]!) % Q;
        f[j + len] = (zeta * ((f[j + len]! - t + Q) % Q)) % Q;
      }
    }
  }
  for (let j = 0; j < 256; j++) f[j] = (f[j]! * 3303) % Q;
  return f;
}

/** acc += f ∘ g in the NTT domain (Algorithms 11 and 12). */
function multiplyAdd(acc: Poly, f: Poly, g: Poly): void {
  for (let i = 0; i < 128; i++) {
    const a0 = f[2 * i]!,
      a1 = f[2 * i + 1]!,
      b0 = g[2 * i]!,
      b1 = g[2 * i + 1]!;
    acc[2 * i] = (acc[2 * i]! + a0 * b0 + ((a1 * b1) % Q) * GAMMAS[i]!) % Q;
    acc[2 * i + 1] = (acc[2 * i + 1]! + a0 * b1 + a1 * b0) % Q;
  }
}

/** Algorithm 7: rejection sampling of an NTT-domain polynomial from SHAKE128(ρ ‖ j ‖ i). */
function sampleNtt(rho: Uint8Array, j: number, i: number): Poly {
  const a = new Int32Array(256);
  for (let len = 840; ; len += 168) {
    const b = shake('shake128', len, rho, Uint8Array.of(j, i));
    let n = 0;
    for (let p = 0; p + 3 <= b.length && n < 256; p += 3) {
      const d1 = b[p]! | ((b[p + 1]! & 15) << 8);
      const d2 = (b[p + 1]! >> 4) | (b[p + 2]! << 4);
      if (d1 < Q) a[n++] = d1;
      if (d2 < Q && n < 256) a[n++] = d2;
    }
    if (n === 256) return a;
  }
}

/** Algorithm 8 with η = 2 over PRF(s, b) = SHAKE256(s ‖ b, 128). */
function sampleCbd(seed: Uint8Array, nonce: number): Poly {
  const b = shake('shake256', 64 * ETA, seed, Uint8Array.of(nonce));
  const f = new Int32Array(256);
  for (let i = 0; i < 128; i++) {
    const byte = b[i]!;
    for (let h = 0; h < 2; h++) {
      const x = ((byte >> (4 * h)) & 1) + ((byte >> (4 * h + 1)) & 1);
      const y = ((byte >> (4 * h + 2)) & 1) + ((byte >> (4 * h + 3)) & 1);
      f[2 * i + h] = (x - y + Q) % Q;
    }
  }
  return f;
}

/** Algorithm 5: d bits per coefficient, little-endian. */
function encode(polys: Poly[], d: number): Buffer {
  const out = Buffer.alloc(32 * d * polys.length);
  let bit = 0;
  for (const f of polys) {
    for (let i = 0; i < 256; i++) {
      const v = f[i]!;
      for (let b = 0; b < d; b++, bit++) out[bit >> 3]! |= ((v >> b) & 1) << (bit & 7);
    }
  }
  return out;
}

/** Algorithm 6: `count` polynomials of d bits per coefficient (mod q for d = 12). */
function decode(bytes: Uint8Array, d: number, count: number): Poly[] {
  const out: Poly[] = [];
  let bit = 0;
  for (let k = 0; k < count; k++) {
    const f = new Int32Array(256);
    for (let i = 0; i < 256; i++) {
      let v = 0;
      for (let b = 0; b < d; b++, bit++) v |= ((bytes[bit >> 3]! >> (bit & 7)) & 1) << b;
      f[i] = d === 12 ? v % Q : v;
    }
    out.push(f);
  }
  return out;
}

const compress = (f: Poly, d: number): Poly => f.map((x) => Math.floor(((x << d) + (Q >> 1)) / Q) & ((1 << d) - 1));
const decompress = (f: Poly, d: number): Poly => f.map((y) => (y * Q + (1 << (d - 1))) >> d);

function matrix(rho: Uint8Array): Poly[][] {
  return Array.from({ length: K }, (_, i) => Array.from({ length: K }, (_, j) => sampleNtt(rho, j, i)));
}

interface PublicKey {
  ek: Buffer;
  tHat: Poly[];
  a: Poly[][];
}

/** A decapsulation key, expanded. */
export interface MlKemPrivateKey extends PublicKey {
  sHat: Poly[];
  h: Buffer;
  z: Buffer;
}

/** Algorithms 16 and 13: ML-KEM.KeyGen_internal(d, z). */
export function mlkemKeyGen(d: Uint8Array, z: Uint8Array): MlKemPrivateKey {
  const g = sha3('sha3-512', d, Uint8Array.of(K));
  const rho = g.subarray(0, 32),
    sigma = g.subarray(32);
  const a = matrix(rho);
  const s = Array.from({ length: K }, (_, i) => ntt(sampleCbd(sigma, i)));
  const tHat = Array.from({ length: K }, (_, i) => {
    const t = ntt(sampleCbd(sigma, K + i));
    for (let j = 0; j < K; j++) multiplyAdd(t, a[i]![j]!, s[j]!);
    return t;
  });
  const ek = Buffer.concat([encode(tHat, 12), rho]);
  return { ek, tHat, a, sHat: s, h: sha3('sha3-256', ek), z: Buffer.from(z) };
}

/** Parses an encapsulation key; null when it fails the modulus check (FIPS 203 §7.2). */
export function mlkemPublicKey(ek: Buffer): PublicKey | null {
  if (ek.length !== MLKEM_PUBLIC_SIZE) return null;
  const tHat = decode(ek, 12, K);
  if (!encode(tHat, 12).equals(ek.subarray(0, 384 * K))) return null;
  return { ek, tHat, a: matrix(ek.subarray(384 * K)) };
}

/** Algorithm 14: K-PKE.Encrypt. */
function pkeEncrypt(key: PublicKey, m: Uint8Array, r: Uint8Array): Buffer {
  const y = Array.from({ length: K }, (_, i) => ntt(sampleCbd(r, i)));
  const u = Array.from({ length: K }, (_, i) => {
    const acc = new Int32Array(256);
    for (let j = 0; j < K; j++) multiplyAdd(acc, key.a[j]![i]!, y[j]!);
    const e1 = sampleCbd(r, K + i);
    return inverseNtt(acc).map((c, n) => (c + e1[n]!) % Q);
  });
  const acc = new Int32Array(256);
  for (let i = 0; i < K; i++) multiplyAdd(acc, key.tHat[i]!, y[i]!);
  const e2 = sampleCbd(r, 2 * K);
  const mu = decompress(decode(m, 1, 1)[0]!, 1);
  const v = inverseNtt(acc).map((c, n) => (c + e2[n]! + mu[n]!) % Q);
  return Buffer.concat([
    encode(
      u.map((p) => compress(p, DU)),
      DU,
    ),
    encode([compress(v, DV)], DV),
  ]);
}

/** Algorithm 15: K-PKE.Decrypt. */
function pkeDecrypt(key: MlKemPrivateKey, c: Uint8Array): Buffer {
  const u = decode(c, DU, K).map((p) => ntt(decompress(p, DU)));
  const v = decompress(decode(c.subarray(32 * DU * K), DV, 1)[0]!, DV);
  const acc = new Int32Array(256);
  for (let i = 0; i < K; i++) multiplyAdd(acc, key.sHat[i]!, u[i]!);
  const w = inverseNtt(acc).map((x, n) => (v[n]! - x + Q) % Q);
  return encode([compress(w, 1)], 1);
}

/** Algorithm 17: encapsulation to a parsed key; returns the shared secret and ciphertext. */
export function mlkemEncapsulate(key: PublicKey): { sharedSecret: Buffer; ciphertext: Buffer } {
  const m = randomBytes(32);
  const g = sha3('sha3-512', m, sha3('sha3-256', key.ek));
  return { sharedSecret: g.subarray(0, 32), ciphertext: pkeEncrypt(key, m, g.subarray(32)) };
}

/** Algorithm 18: decapsulation with implicit rejection. `c` must be MLKEM_CIPHERTEXT_SIZE bytes. */
export function mlkemDecapsulate(key: MlKemPrivateKey, c: Uint8Array): Buffer {
  const m = pkeDecrypt(key, c);
  const g = sha3('sha3-512', m, key.h);
  const reencrypted = pkeEncrypt(key, m, g.subarray(32));
  const rejected = shake('shake256', 32, key.z, c);
  return timingSafeEqual(reencrypted, c) ? g.subarray(0, 32) : rejected;
}
