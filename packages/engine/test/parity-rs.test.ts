import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { Accumulators, cauchy, combine, encodeParity, gfInv, gfMul, mulAdd, reconstruct, reconstructionMatrix } from '../src/parity/index.js';
import { MAX_ACCUMULATOR_BYTES } from '../src/parity/accumulators.js';
import { mulAddBytes } from '../src/parity/gf.js';
import { dotProductsSimd } from '../src/parity/simd.js';

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Uint8Array {
  return new Uint8Array(createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n)));
}

/** `n` random bytes at an odd offset of a larger buffer. */
function unaligned(n: number, seed: number, offset: number): Uint8Array {
  return stream(n + offset, seed).subarray(offset);
}

/** Carry-less product reduced by 0x11d, bit by bit: independent of the tables. */
function naiveMul(a: number, b: number): number {
  let p = 0;
  for (; b; b >>= 1) {
    if (b & 1) p ^= a;
    a <<= 1;
    if (a & 0x100) a ^= 0x11d;
  }
  return p;
}

function naiveInv(a: number): number {
  for (let x = 1; x < 256; x++) if (naiveMul(a, x) === 1) return x;
  throw new Error(`no inverse of ${a}`);
}

/** Byte-by-byte dot product with the naive field: the expected output of combine. */
function naiveCombine(srcs: Uint8Array[], coefs: number[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  srcs.forEach((s, i) => {
    for (let x = 0; x < length; x++) out[x]! ^= naiveMul(coefs[i]!, s[x]!);
  });
  return out;
}

test('gfMul is the field of 0x11d: all products, hand values, axioms', () => {
  for (let a = 0; a < 256; a++) {
    for (let b = 0; b < 256; b++) {
      assert.equal(gfMul(a, b), naiveMul(a, b), `${a} · ${b}`);
      assert.equal(gfMul(a, b), gfMul(b, a));
    }
  }
  assert.equal(gfMul(2, 0x80), 0x1d);
  assert.equal(gfMul(0x53, 0xca), naiveMul(0x53, 0xca));
  assert.equal(gfInv(2), 0x8e);
  assert.equal(gfInv(1), 1);
  const r = stream(3 * 2000, 9);
  for (let t = 0; t < 2000; t++) {
    const [a, b, c] = [r[3 * t]!, r[3 * t + 1]!, r[3 * t + 2]!];
    assert.equal(gfMul(a, b ^ c), gfMul(a, b) ^ gfMul(a, c), 'distributive');
    assert.equal(gfMul(gfMul(a, b), c), gfMul(a, gfMul(b, c)), 'associative');
  }
  for (let a = 1; a < 256; a++) assert.equal(gfMul(a, gfInv(a)), 1, `inverse of ${a}`);
  assert.throws(() => gfInv(0), RangeError);
  assert.throws(() => gfMul(256, 1), RangeError);
  assert.throws(() => gfMul(1.5, 1), RangeError);
});

test('cauchy coefficients are inv((k + j) XOR i), as ISA-L gf_gen_cauchy1_matrix', () => {
  for (const [k, m] of [
    [1, 1],
    [2, 3],
    [10, 4],
    [200, 4],
    [250, 6],
    [255, 1],
  ] as const) {
    for (let j = 0; j < m; j++) {
      for (let i = 0; i < k; i++) assert.equal(cauchy(k, j, i), naiveInv((k + j) ^ i), `C[${j}][${i}] of k = ${k}`);
    }
  }
  assert.equal(cauchy(2, 0, 0), 0x8e);
  assert.throws(() => cauchy(0, 0, 0), RangeError);
  assert.throws(() => cauchy(4, 252, 0), RangeError);
  assert.throws(() => cauchy(4, 0, 4), RangeError);
});

test('the SIMD kernel runs, and mulAdd / combine equal the reference on any length and offset', () => {
  assert.equal(dotProductsSimd([new Uint8Array(1)], [new Uint8Array(1)], [[1]], 1, false), true, 'WebAssembly SIMD is available in Node 20');
  for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 65535, (1 << 20) + 3]) {
    const srcs = [unaligned(length, 1, 3), unaligned(length, 2, 0), unaligned(length, 3, 5)];
    const coefs = [0x53, 1, 0xff];
    const dst = unaligned(length + 2, 4, 1).subarray(0, length);
    const expected = new Uint8Array(length);
    srcs.forEach((s, i) => mulAddBytes(expected, s, coefs[i]!, length));
    combine(dst, srcs, coefs, length);
    assert.deepEqual(dst, expected, `combine of ${length} bytes`);

    const acc = Uint8Array.from(dst);
    mulAddBytes(acc, srcs[0]!, 0x1d, length);
    mulAdd(dst, srcs[0]!, 0x1d, length);
    assert.deepEqual(dst, acc, `mulAdd of ${length} bytes`);
    mulAdd(dst, srcs[1]!, 0);
    assert.deepEqual(dst, acc, 'coefficient 0 changes nothing');
  }
  const mid = unaligned(1000, 5, 7);
  const dst = new Uint8Array(1000);
  combine(dst, [mid], [1], 999);
  assert.deepEqual(dst.subarray(0, 999), mid.subarray(0, 999), 'coefficient 1 copies');
  assert.equal(dst[999], 0, 'bytes past length are left alone');
  combine(dst, [mid, mid], [0, 0], 1000);
  assert.deepEqual(dst, new Uint8Array(1000), 'all-zero coefficients zero the output');
});

test('combine with many sources (blocks of several sizes, more sources than one kernel call) equals the naive field', () => {
  for (const [n, length] of [
    [16, 70_001],
    [200, 12_345],
    [300, 5_000],
  ] as const) {
    const srcs = Array.from({ length: n }, (_, i) => unaligned(length, 10 + i, i % 7));
    const coefs = srcs.map((_, i) => (i * 73 + 11) & 0xff);
    const dst = new Uint8Array(length);
    combine(dst, srcs, coefs, length);
    assert.deepEqual(dst, naiveCombine(srcs, coefs, length), `${n} sources of ${length} bytes`);
  }
});

test('Accumulators (kernel and byte loop) equal mulAdd row by row: several groups, partial and odd-length blocks, two windows', () => {
  for (const [size, groups, r] of [
    [64, 2, 3],
    [4096, 3, 4],
    [65536, 5, 4],
  ] as const) {
    for (const simd of [true, false]) {
      const acc = new Accumulators(groups * r, size, { simd });
      for (const window of [0, 1]) {
        const expected = Array.from({ length: groups * r }, () => new Uint8Array(size));
        const lengths = [size, 1, size - 1, 63, 64, 65, size, Math.floor(size / 3), 17, size].map((n) => Math.min(n, size));
        lengths.forEach((length, b) => {
          const q = b % groups;
          const m = Math.floor(b / groups);
          const src = unaligned(length + 5, 100 * window + b, b % 7).subarray(0, length + (b % 3));
          const coefs = Array.from({ length: r }, (_, j) => (b === 4 && j === 1 ? 0 : b === 5 && j === 2 ? 1 : cauchy(200, j, m)));
          const slots = coefs.map((_, j) => q * r + j);
          acc.mulAdd(slots, src, coefs, length);
          slots.forEach((slot, j) => mulAdd(expected[slot]!, src, coefs[j]!, length));
        });
        expected.forEach((e, slot) => assert.deepEqual(acc.view(slot), e, `slot ${slot} of ${groups} × ${r} × ${size} (simd ${simd}, window ${window})`));
        acc.clear();
        for (let slot = 0; slot < groups * r; slot++)
          assert.ok(
            acc.view(slot).every((x) => x === 0),
            'clear zeroes',
          );
      }
    }
  }
});

test('argument errors of Accumulators, which change nothing', () => {
  assert.throws(() => new Accumulators(4, 100), /size 100 is not a positive multiple of 64/);
  assert.throws(() => new Accumulators(0, 64), /count 0/);
  assert.throws(() => new Accumulators(MAX_ACCUMULATOR_BYTES / 4096 + 1, 4096), /exceed 1073741824 bytes/);
  const acc = new Accumulators(2, 128);
  const src = stream(128, 1);
  acc.mulAdd([0], src, [3]);
  const before = Uint8Array.from(acc.view(0));
  assert.throws(() => acc.mulAdd([0, 2], src, [1, 1]), /slot 2 is not in 0 … 1/);
  assert.throws(() => acc.mulAdd([0, 1], src, [1, 256]), /coefficient 1 is not a byte: 256/);
  assert.throws(() => acc.mulAdd([0], src, [1, 2]), /1 slots and 2 coefficients/);
  assert.throws(() => acc.mulAdd([0, 1, 0], src, [1, 1, 1]), /for 2 accumulators/);
  assert.throws(() => acc.mulAdd([0], stream(200, 2), [1], 129), /length 129/);
  assert.throws(() => acc.mulAdd([0], acc.view(1), [1]), /lies in the accumulators' memory/);
  assert.deepEqual(acc.view(0), before);
  assert.throws(() => acc.view(-1), /slot -1/);
});

/** Every subset of 0 … n−1 with at most `max` members. */
function* subsets(n: number, max: number): Generator<number[]> {
  for (let mask = 0; mask < 1 << n; mask++) {
    const s = [...Array(n).keys()].filter((i) => mask & (1 << i));
    if (s.length <= max) yield s;
  }
}

/** A random stripe of a (k, m) code: data shares, parity from encodeParity (checked against the naive field). */
function stripe(k: number, m: number, length: number, seed: number): Uint8Array[] {
  const data = Array.from({ length: k }, (_, i) => stream(length, seed + i));
  const parity = Array.from({ length: m }, () => new Uint8Array(length));
  encodeParity(k, data, parity, length);
  for (let j = 0; j < m; j++) {
    const row = data.map((_, i) => naiveInv((k + j) ^ i));
    assert.deepEqual(parity[j], naiveCombine(data, row, length), `parity row ${j} of (${k}, ${m})`);
  }
  return [...data, ...parity];
}

test('reconstruct rebuilds every erasure pattern of small codes', () => {
  for (const [k, m] of [
    [1, 1],
    [2, 1],
    [3, 2],
    [4, 2],
    [2, 3],
  ] as const) {
    const length = 1001;
    const shares = stripe(k, m, length, 40 + k * 8 + m);
    for (const lost of subsets(k + m, m)) {
      const got: Array<Uint8Array | null> = shares.map((s, i) => (lost.includes(i) ? null : s));
      reconstruct(k, m, got, length);
      assert.deepEqual(got, shares, `(${k}, ${m}) without shares ${lost.join(', ')}`);
    }
    const tooMany: Array<Uint8Array | null> = shares.map((s, i) => (i <= m ? null : s));
    assert.throws(() => reconstruct(k, m, tooMany, length), /are needed/);
  }
});

test('reconstruct rebuilds random erasure patterns of wide codes, and of their first parity rows', () => {
  let seed = 1;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const [k, m] of [
    [200, 4],
    [250, 6],
  ] as const) {
    const length = 333;
    const shares = stripe(k, m, length, 100 + k);
    for (let t = 0; t < 6; t++) {
      const lost = new Set<number>();
      while (lost.size < m - (t % 2)) lost.add(t === 0 ? rand(m) + k - m : rand(k + m));
      const got: Array<Uint8Array | null> = shares.map((s, i) => (lost.has(i) ? null : s));
      reconstruct(k, m, got, length);
      assert.deepEqual(got, shares, `(${k}, ${m}) without shares ${[...lost].join(', ')}`);
    }
    const given = 150;
    const zeros = Array.from({ length: k - given }, () => new Uint8Array(length));
    const full = Array.from({ length: m }, () => new Uint8Array(length));
    const part = Array.from({ length: m }, () => new Uint8Array(length));
    encodeParity(k, [...shares.slice(0, given), ...zeros], full, length);
    encodeParity(k, shares.slice(0, given), part, length);
    assert.deepEqual(part, full, 'data shares left out are zero');
    const r = 2;
    const short = [...shares.slice(0, k), ...shares.slice(k, k + r)];
    const got: Array<Uint8Array | null> = short.map((s, i) => (i === 3 || i === k - 1 ? null : s));
    reconstruct(k, r, got, length);
    assert.deepEqual(got, short, `(${k}, ${r}): the first ${r} parity rows of (${k}, ${m})`);
  }
});

test('reconstructionMatrix: rows that rebuild data and parity, and its errors', () => {
  const [k, m] = [3, 2];
  const rows = reconstructionMatrix(k, m, [0, 3, 4], [0, 1, 2, 3, 4]);
  assert.deepEqual(rows[0], [1, 0, 0], 'a present share is copied');
  assert.deepEqual(rows[3], [0, 1, 0]);
  const shares = stripe(k, m, 64, 7);
  rows.forEach((row, w) => {
    const out = new Uint8Array(64);
    combine(out, [shares[0]!, shares[3]!, shares[4]!], row, 64);
    assert.deepEqual(out, shares[w], `share ${w}`);
  });
  assert.throws(() => reconstructionMatrix(k, m, [0, 1], [2]), /exactly k = 3 present shares, got 2/);
  assert.throws(() => reconstructionMatrix(k, m, [0, 1, 1], [2]), /present share 1 is listed twice/);
  assert.throws(() => reconstructionMatrix(k, m, [0, 1, 5], [2]), /present share 5 is not in 0 … 4/);
  assert.throws(() => reconstructionMatrix(k, m, [0, 1, 2], [-1]), /wanted share -1/);
  assert.throws(() => reconstructionMatrix(k, m, [0, 1, 2.5], [2]), RangeError);
  assert.throws(() => reconstructionMatrix(0, 1, [], []), RangeError);
  assert.throws(() => reconstructionMatrix(250, 7, [], []), /is not a code/);
});

test('argument errors of the byte functions', () => {
  const a = new Uint8Array(100);
  assert.throws(() => combine(a, [a.subarray(25)], [1], 50), /overlaps/);
  assert.throws(() => mulAdd(a.subarray(0, 10), a.subarray(5, 15), 3), /overlaps/);
  assert.throws(() => combine(a, [new Uint8Array(10)], [1], 11), /shorter than length 11/);
  assert.throws(() => combine(a, [new Uint8Array(10)], [1, 2], 10), /2 coefficients/);
  assert.throws(() => mulAdd(a, new Uint8Array(10), 256), /coefficient 0 is not a byte: 256/);
  assert.throws(() => encodeParity(2, [a, a, a], [], 10), /3 data shares for k = 2/);
  assert.throws(() => encodeParity(2, [], [], 10), /0 data shares for k = 2/);
  assert.throws(() => encodeParity(250, Array(250).fill(a), Array(7).fill(new Uint8Array(10)), 10), /exceeds 256/);
  assert.throws(() => reconstruct(2, 1, [a, null], 10), /got 2 shares for a \(2, 1\) code/);
});
