/**
 * The native core's deltas are deltaFrame's, byte for byte: the same
 * frame (or null) for many seeded bases and edits, block sizes, levels and
 * limits; the same answer against a forged signature; the same refusals of
 * malformed signature bytes; and through the native pipeline, no worker
 * thread.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { loadNative, nativeErrorParts, type BasisSignature } from '@brickpost/native';
import { deltaFrame } from '../src/chunk/delta-frame.js';
import { nativePipeline } from '../src/chunk/native-pipeline.js';
import { SignatureBuilder, parseSignature, weakSum } from '../src/delta/index.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const native = loadNative();
// The core is optional where Rust is not installed (build.mjs says `cargo not found`) or switched off on
// purpose (BRICKPOST_NATIVE=0); a core that failed to build or to load fails these tests instead.
const absent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const why = absent ? `no native core here (${native.reason})` : null;

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed & 0xff), Buffer.alloc(16, seed >>> 8)).update(Buffer.alloc(n));
}

/** Compressible bytes: numbered lines of a table. */
function text(n: number, seed: number): Buffer {
  const rows: string[] = [];
  for (let i = 0, size = 0; size < n; i++) {
    const row = `${i},station-${(i * seed) % 977},${(i * 7919 + seed) % 100003}\n`;
    rows.push(row);
    size += row.length;
  }
  return Buffer.from(rows.join('')).subarray(0, n);
}

/** mulberry32: reproducible choices. */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function signature(old: Buffer, blockSize: number): Buffer {
  return new SignatureBuilder(blockSize).update(old).final();
}

/** `old` after `edits` random edits: inserts, overwrites, deletes, appends, moved and repeated pieces. */
function edit(old: Buffer, edits: number, r: (n: number) => number, seed: number): Buffer {
  let b = old;
  for (let k = 0; k < edits; k++) {
    const at = r(b.length + 1);
    const n = 1 + r(r(2) === 0 ? 64 : 40 * KiB);
    const fresh = r(2) === 0 ? stream(n, seed * 31 + k) : text(n, seed + k);
    switch (r(6)) {
      case 0:
        b = Buffer.concat([b.subarray(0, at), fresh, b.subarray(at)]);
        break;
      case 1:
        b = Buffer.concat([b.subarray(0, at), fresh, b.subarray(Math.min(b.length, at + n))]);
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + n))]);
        break;
      case 3:
        b = Buffer.concat([b, fresh]);
        break;
      case 4:
        b = Buffer.concat([b.subarray(0, at), b.subarray(r(b.length + 1)).subarray(0, n), b.subarray(at)]);
        break;
      default:
        b = b.subarray(r(Math.max(1, b.length >>> 3)), b.length - r(Math.max(1, b.length >>> 3)));
    }
  }
  return b;
}

type Frame = { frame: Buffer; deltaLength: number } | null;

/** Both paths' answers for one chunk, asserted equal; returns the reference's. */
async function same(sig: Buffer, basis: BasisSignature, raw: Buffer, level: number, limit: number, what: string): Promise<Frame> {
  const js = await deltaFrame(parseSignature(sig), raw, level, limit);
  const nat = await basis.delta(raw, level, limit);
  if (js === null) assert.equal(nat, null, `${what}: the reference gives null`);
  else {
    assert.ok(nat, `${what}: the reference gives a frame of ${js.frame.length} bytes`);
    assert.equal(nat.deltaLength, js.deltaLength, `${what}: delta length`);
    assert.ok(nat.frame.equals(js.frame), `${what}: frame bytes`);
  }
  return js;
}

describe.skipIf(why)(`native deltas${why ? ` [skipped: ${why}]` : ''}`, () => {
  const n = native.binding!;

  test('frames equal deltaFrame over seeded random bases and edits, block sizes and levels', async () => {
    let frames = 0;
    for (let seed = 1; seed <= 48; seed++) {
      const r = rng(seed);
      const B = [256, 512, 1024, 2048, 4096, 65536][seed % 6]!;
      const len = [0, 1, B - 1, B, B + 1, 3 * B, 7 * B + 13, 100 * KiB + r(300 * KiB), 600 * KiB + r(MiB)][r(9)]!;
      const old = seed % 3 === 0 ? text(len, seed) : stream(len, seed);
      const sig = signature(old, B);
      const basis = new n.BasisSignature(sig);
      assert.equal(basis.blockCount, Math.ceil(len / B));
      const level = [1, 3, 9][seed % 3]!;
      const news: [string, Buffer][] = [
        ['same', old],
        ['empty', Buffer.alloc(0)],
        ['tiny', old.subarray(0, 5)],
        ['last block only', old.subarray(old.length - (len % B || B))],
        ['one block short', old.subarray(0, Math.max(0, old.length - B))],
        ['a byte on', Buffer.concat([old, Buffer.from([seed])])],
        ['one edit', edit(old, 1, r, seed)],
        ['a few edits', edit(old, 2 + r(4), r, seed)],
        ['many edits', edit(old, 10 + r(20), r, seed)],
      ];
      for (const [name, raw] of news) {
        const what = `seed ${seed}, ${B}-byte blocks, ${len}-byte basis, ${name} (${raw.length} bytes)`;
        const js = await same(sig, basis, raw, level, 2 ** 31, what);
        if (js) {
          frames++;
          // The frame must be shorter than the chunk's own: at its length it is not.
          await same(sig, basis, raw, level, js.frame.length, `${what}, limit at the frame`);
          await same(sig, basis, raw, level, js.frame.length + 1, `${what}, limit past the frame`);
        }
      }
      basis.release();
      assert.equal(basis.blockCount, 0);
    }
    assert.ok(frames > 150, `${frames} frames compared`);
  });

  test('long literals, 1 MiB slices, chunk-sized inputs and deltas too long for a frame', async () => {
    const B = 2048;
    const old = Buffer.concat([stream(3 * MiB, 7), text(MiB, 7)]);
    const sig = signature(old, B);
    const basis = new n.BasisSignature(sig);
    const cases: [string, Buffer][] = [
      // 1.5 MiB of new bytes between copies: literals flushed at 1 MiB, windows across slice ends.
      ['a long insert', Buffer.concat([old.subarray(0, MiB + 333), stream(1536 * KiB, 8), old.subarray(MiB + 333, 3 * MiB)])],
      ['shifted by one byte', Buffer.concat([Buffer.from([1]), old.subarray(0, 4 * MiB - 1)])],
      ['blocks out of order', Buffer.concat([old.subarray(2 * MiB, 3 * MiB), old.subarray(0, MiB), text(MiB, 9), old.subarray(MiB - 77, 2 * MiB)])],
      ['a copy after 4 MiB of new bytes', Buffer.concat([stream(4 * MiB + 100 * KiB, 10), old.subarray(0, 4 * B)])],
      ['a copy then 4 MiB of new bytes', Buffer.concat([old.subarray(0, 4 * B), stream(4 * MiB + 100 * KiB, 11)])],
    ];
    for (const [name, raw] of cases) for (const level of [1, 3]) await same(sig, basis, raw, level, 2 ** 31, `${name}, level ${level}`);
    basis.release();
  });

  test('a forged signature (weak sums that match everywhere) costs bounded work and gives the reference answer', async () => {
    const B = 4096;
    const old = stream(4 * MiB, 3);
    // Block 600 is zeros but for its last byte: every window of zeros before it passes the weak test.
    old.fill(0, 600 * B, 601 * B - 1);
    old[601 * B - 1] = 1;
    const sig = signature(old, B);
    const blocks = (sig.length - 20) / 12;
    // The first half of the blocks claims the weak sum of a block of zeros; the rest is honest. Zeros make the weak
    // sum match at every offset and the strong sum never, until the miss budget turns them away; an honest block
    // right after them matches only where the budget lets its strong sum be computed, which depends on exactly
    // where the budget stands (block 600 is copied after 3 MiB of zeros, only from block 601 on after 3 MiB + 1).
    const weak = weakSum(Buffer.alloc(B), 0, B);
    for (let i = 0; i < blocks / 2; i++) sig.writeInt32BE(weak, 20 + i * 12);
    const basis = new n.BasisSignature(sig);
    const tail = old.subarray(600 * B, 610 * B);
    const cases: [string, Buffer][] = [['zeros', Buffer.alloc(4 * MiB)]];
    for (const k of [0, 1, 1000]) cases.push([`3 MiB + ${k} of zeros, then honest blocks`, Buffer.concat([Buffer.alloc(3 * MiB + k), tail])]);
    cases.push(['honest blocks between zeros', Buffer.concat([Buffer.alloc(64 * KiB), tail, Buffer.alloc(2 * MiB), tail])]);
    for (const [name, raw] of cases) {
      const before = basis.strongSums;
      await same(sig, basis, raw, 3, 2 ** 31, name);
      // Unbounded, zeros cost a strong sum of 4 KiB at every offset (4 Mi of them); the budget allows 1024, then 4
      // per block of input, plus those of the honest blocks.
      const bound = 1024 + (4 * raw.length) / B + (2 * tail.length) / B + 16;
      const spent = basis.strongSums - before;
      assert.ok(spent > 1024 && spent <= bound, `${name}: ${spent} strong sums, at most ${bound}`);
    }
    basis.release();
  });

  const noProc = existsSync('/proc/self/task') ? null : 'no /proc/self/task to count threads (not Linux)';
  test.skipIf(noProc)(
    `the native pipeline codes deltas with no worker thread, against a basis parsed once${noProc ? ` [skipped: ${noProc}]` : ''}`,
    async () => {
      const threads = (): number => readdirSync('/proc/self/task').length;
      const pipeline = nativePipeline(n, { key: Buffer.alloc(32, 1), level: 3 });
      const B = 1024;
      const olds = [stream(300 * KiB, 21), text(200 * KiB, 22)];
      const sigs = olds.map((o) => signature(o, B));
      let loads = 0;
      const bases = sigs.map((sig, id) => ({ id, bytes: () => (loads++, sig) }));
      // The core's pool is up before counting.
      n.threads();
      const before = threads();
      try {
        const r = rng(5);
        const jobs = [];
        for (let i = 0; i < 24; i++) {
          const k = i % 2;
          const raw = edit(olds[k]!, 3, r, 100 + i);
          const js = await deltaFrame(parseSignature(sigs[k]!), raw, 3, 2 ** 31);
          jobs.push(pipeline.delta(raw, bases[k]!, 2 ** 31).then((nat) => [nat, js] as const));
        }
        const answers = await Promise.all(jobs);
        assert.equal(threads(), before, 'threads of the process');
        for (const [i, [nat, js]] of answers.entries()) {
          assert.ok(js, `edit ${i} gives a delta`);
          assert.ok(nat?.frame.equals(js.frame) && nat.deltaLength === js.deltaLength, `edit ${i}: the reference's frame`);
        }
        assert.equal(loads, 2, 'each basis signature read once');
        await assert.rejects(
          pipeline.delta(stream(5000, 1), { id: 9, bytes: () => Buffer.from('bpsig2') }, 2 ** 31),
          (e: unknown) => (e as { code?: string }).code === 'MALFORMED',
        );
      } finally {
        await pipeline.close();
      }
    },
  );

  test('malformed signatures are refused with the reference error codes', () => {
    const good = signature(stream(5000, 1), 1024);
    const edited = (f: (b: Buffer) => void, buf = good): Buffer => {
      const b = Buffer.from(buf);
      f(b);
      return b;
    };
    const cases: [string, Buffer, number?][] = [
      ['empty', Buffer.alloc(0)],
      ['header only, cut short', good.subarray(0, 19)],
      ['bad magic', edited((b) => b.write('bpsig2', 0, 'latin1'))],
      ['unknown weak sum', edited((b) => (b[6] = 2))],
      ['other strong length', edited((b) => (b[7] = 16))],
      ['block size not a power of two', edited((b) => b.writeUInt32BE(1000, 8))],
      ['block size too small', edited((b) => b.writeUInt32BE(128, 8))],
      ['block size too large', edited((b) => b.writeUInt32BE(1 << 21, 8))],
      ['block size zero', edited((b) => b.writeUInt32BE(0, 8))],
      ['length over 2^53', edited((b) => b.writeBigUInt64BE(1n << 60n, 12))],
      ['length claims more blocks', edited((b) => b.writeBigUInt64BE(6000n, 12))],
      ['length claims fewer blocks', edited((b) => b.writeBigUInt64BE(4000n, 12))],
      ['one byte missing', good.subarray(0, good.length - 1)],
      ['one byte extra', Buffer.concat([good, Buffer.alloc(1)])],
      ['huge length, tiny body', edited((b) => b.writeBigUInt64BE(2n ** 52n, 12), good.subarray(0, 20))],
      ['more blocks than allowed', good, 4],
    ];
    for (const [name, buf, maxBlocks] of cases) {
      const limits = maxBlocks === undefined ? {} : { maxBlocks };
      let expected = '';
      try {
        parseSignature(buf, limits);
      } catch (e) {
        expected = (e as { code: string }).code;
      }
      assert.ok(expected === 'MALFORMED' || expected === 'LIMIT_EXCEEDED', `${name}: the reference refuses it (${expected})`);
      assert.throws(
        () => new n.BasisSignature(buf, maxBlocks),
        (e: unknown) => nativeErrorParts(e).code === expected,
        name,
      );
    }
    assert.equal(new n.BasisSignature(good, 5).blockCount, 5);
  });
});
