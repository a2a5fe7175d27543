/**
 * The recovery rows the native core codes (on a thread of its own, in
 * batches) equal the WebAssembly accumulators' and the byte loop of gf.ts,
 * block for block: the same rows and the same CRC-32s, with blocks of any
 * length, any count of rows per block, coefficients 0 and 1 included, and
 * rows cleared between windows.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { loadNative } from '@brickpost/native';
import { mulAddBytes } from '../src/parity/gf.js';
import { LocalRows, rowCoder, type RowCoder } from '../src/recovery/rows.js';

const native = loadNative();
// The core is optional where Rust is not installed or switched off on purpose; a core that failed to build fails here.
const optionalAbsent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);

/** A deterministic byte stream. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** Adds `blocks` random blocks into coders and the byte loop alike; returns the reference rows and CRCs. */
async function feed(coders: RowCoder[], count: number, size: number, blocks: number, seed: number): Promise<{ rows: Uint8Array[]; crcs: number[][] }> {
  const rows = Array.from({ length: count }, () => new Uint8Array(size));
  const crcs: number[][] = coders.map(() => []);
  const want: number[] = [];
  for (let i = 0; i < blocks; i++) {
    const rnd = bytes(8, seed * 1000 + i);
    const len = i % 7 === 3 ? (rnd[0]! * 5) % (size + 1) : Math.max(0, size - (rnd[1]! % 3) * 64);
    const data = bytes(len, seed * 7919 + i);
    const r = 1 + (rnd[2]! % Math.min(4, count));
    const slots = Array.from({ length: r }, (_, j) => (rnd[3]! + j * 3) % count);
    const unique = [...new Set(slots)];
    const coefs = unique.map((_, j) => (j === 0 ? rnd[4]! % 3 : rnd[5 + (j % 3)]!));
    unique.forEach((s, j) => mulAddBytes(rows[s]!, data, coefs[j]!, data.length));
    want.push(crc32(data));
    // Batches may be answered in any order: each block's CRC-32 comes to its own callback.
    for (const [k, c] of coders.entries()) await c.add(data, unique, coefs, (v) => (crcs[k]![i] = v));
  }
  for (const [k, c] of coders.entries()) {
    const got = await c.take(Array.from({ length: count }, (_, s) => s));
    got.forEach((row, s) => assert.ok(Buffer.from(row).equals(Buffer.from(rows[s]!)), `coder ${k}: row ${s} differs`));
    assert.deepEqual(crcs[k], want, `coder ${k}: CRC-32s differ`);
  }
  return { rows, crcs: [want] };
}

describe('recovery rows', () => {
  test.skipIf(optionalAbsent)(
    `the native core codes as the accumulators and the byte loop${optionalAbsent ? ` (skipped: no native core here, ${native.reason})` : ''}`,
    async () => {
      assert.ok(native.binding, `the native core did not load: ${native.reason}`);
      for (const [count, size, blocks] of [
        [1, 64, 5],
        [12, 4096, 150],
        [128, 65536, 70],
      ] as const) {
        const coders = [rowCoder(count, size), new LocalRows(count, size)];
        assert.notEqual(coders[0]!.constructor, LocalRows, 'rowCoder picks the native core where it is built');
        await feed(coders, count, size, blocks, count);
        // A cleared window starts from zero.
        for (const c of coders) await c.clear();
        await feed(coders, count, size, blocks, count + 1);
      }
    },
  );

  test('the accumulators alone code as the byte loop', async () => {
    await feed([new LocalRows(12, 4096)], 12, 4096, 100, 9);
  });
});
