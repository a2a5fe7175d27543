import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { SignatureBuilder, strongSum, weakSum } from '../src/delta/index.js';
import { blockWeakSums } from '../src/delta/weak-simd.js';

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

test('SIMD block weak sums equal weakSum for every block size, start offset and byte value', () => {
  const data = Buffer.concat([stream(3 << 20, 1), Buffer.alloc(70_000, 0xff), Buffer.alloc(70_000, 0)]);
  for (const size of [256, 2048, 8192, 65536, 1 << 20]) {
    for (const start of [0, 1, 7, 4093]) {
      const count = Math.floor((data.length - start) / size);
      const out = new Int32Array(count);
      assert.equal(blockWeakSums(data, start, count, size, out), true, 'WebAssembly SIMD is available in Node 20');
      for (let i = 0; i < count; i++) assert.equal(out[i], weakSum(data, start + i * size, size), `block ${i} of ${size} from ${start}`);
    }
  }
  assert.equal(blockWeakSums(data, 0, 1, 24, new Int32Array(1)), false, 'a block size that is not a multiple of 16');
});

test('signatures are those of the reference sums, however the bytes arrive', () => {
  const data = stream(5 * 8192 + 1234, 2);
  const expected: Buffer[] = [];
  for (let at = 0; at < data.length; at += 8192) {
    const len = Math.min(8192, data.length - at);
    const e = Buffer.alloc(12);
    const strong = new Int32Array(2);
    strongSum(data.subarray(at, at + len), strong);
    e.writeInt32BE(weakSum(data, at, len), 0);
    e.writeInt32BE(strong[0]!, 4);
    e.writeInt32BE(strong[1]!, 8);
    expected.push(e);
  }
  for (const piece of [1, 100, 8192, 8193, 20_000, data.length]) {
    const b = new SignatureBuilder(8192);
    for (let at = 0; at < data.length; at += piece) b.update(data.subarray(at, at + piece));
    assert.deepEqual(b.final().subarray(20), Buffer.concat(expected), `reads of ${piece}`);
  }
});
