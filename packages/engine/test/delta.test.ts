import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { isBrickpostError } from '@brickpost/manifest/errors';
import {
  SignatureBuilder,
  applyDelta,
  blockSizeFor,
  computeDelta,
  decodeDelta,
  deltaChunk,
  encodeDelta,
  parseSignature,
  rollWeak,
  weakSum,
  type DeltaOp,
  type ParsedSignature,
} from '../src/delta/index.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A reproducible pseudo-random byte stream (AES-256-CTR of zeros). */
function stream(n: number, seed: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, seed), Buffer.alloc(16)).update(Buffer.alloc(n));
}

/** `data` cut into reads of `size` bytes (the last may be shorter). */
function* reads(data: Buffer, size: number): Generator<Buffer> {
  for (let o = 0; o < data.length; o += size) yield data.subarray(o, o + size);
}

function signature(old: Buffer, blockSize: number, readSize = 64 * KiB): Buffer {
  const b = new SignatureBuilder(blockSize);
  for (const r of reads(old, readSize)) b.update(r);
  return b.final();
}

async function delta(sig: ParsedSignature, data: Buffer, readSize = 64 * KiB, maxLiteral?: number): Promise<DeltaOp[]> {
  const ops: DeltaOp[] = [];
  for await (const op of computeDelta(sig, reads(data, readSize), maxLiteral === undefined ? {} : { maxLiteral })) ops.push(op);
  return ops;
}

async function patch(old: Buffer, blockSize: number, ops: Iterable<DeltaOp>): Promise<Buffer> {
  const out: Buffer[] = [];
  const n = await applyDelta(
    async (off, len) => old.subarray(off, off + len),
    old.length,
    blockSize,
    ops,
    async (b) => {
      out.push(Buffer.from(b));
    },
  );
  const result = Buffer.concat(out);
  assert.equal(n, result.length);
  return result;
}

function literalBytes(ops: DeltaOp[]): number {
  return ops.reduce((a, op) => a + (op.op === 'literal' ? op.data.length : 0), 0);
}

/** Full round trip: signature, delta, encode, decode, patch; returns the ops and encoded size. */
async function roundTrip(old: Buffer, neu: Buffer, blockSize: number, readSize = 64 * KiB): Promise<{ ops: DeltaOp[]; size: number }> {
  const sig = parseSignature(signature(old, blockSize));
  const ops = await delta(sig, neu, readSize);
  const enc = encodeDelta(ops);
  const back = decodeDelta(enc);
  assert.deepEqual(back, ops);
  const rebuilt = await patch(old, blockSize, back);
  assert.ok(rebuilt.equals(neu), `rebuilt file differs (${rebuilt.length} vs ${neu.length} bytes)`);
  return { ops, size: enc.length };
}

function expectCode(code: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(isBrickpostError(e), `expected a BrickpostError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  };
}

test('weak sum: the librsync rollsum formula, and rolling equals summing afresh at every offset', () => {
  const data = stream(5000, 1);
  for (const len of [1, 3, 256, 1000, 4096]) {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < len; i++) {
      s1 += data[i]! + 31;
      s2 += (len - i) * (data[i]! + 31);
    }
    assert.equal(weakSum(data, 0, len) >>> 0, (((s2 % 65536) << 16) >>> 0) + (s1 % 65536), `length ${len}`);
  }
  const B = 256;
  let w = weakSum(data, 0, B);
  for (let p = 0; p + B < data.length; p++) {
    w = rollWeak(w, data[p]!, data[p + B]!, B);
    assert.equal(w, weakSum(data, p + 1, B), `offset ${p + 1}`);
  }
});

test('blockSizeFor: √size in powers of two, clamped to [2 KiB, 64 KiB]', () => {
  assert.equal(blockSizeFor(0), 2 * KiB);
  assert.equal(blockSizeFor(1 * MiB), 2 * KiB);
  assert.equal(blockSizeFor(20 * MiB), 4 * KiB);
  assert.equal(blockSizeFor(64 * MiB), 8 * KiB);
  assert.equal(blockSizeFor(256 * MiB), 16 * KiB);
  assert.equal(blockSizeFor(1024 * MiB), 32 * KiB);
  assert.equal(blockSizeFor(2 ** 40), 64 * KiB);
  assert.throws(() => blockSizeFor(-1), expectCode('USAGE'));
  assert.throws(() => blockSizeFor(1.5), expectCode('USAGE'));
});

test('signature: bpsig1 layout, the same whatever the read sizes', () => {
  const old = stream(10_000, 2);
  const sig = signature(old, 1024);
  assert.equal(sig.subarray(0, 6).toString('latin1'), 'bpsig1');
  assert.equal(sig[6], 1);
  assert.equal(sig[7], 8);
  assert.equal(sig.readUInt32BE(8), 1024);
  assert.equal(sig.readBigUInt64BE(12), 10_000n);
  assert.equal(sig.length, 20 + 10 * 12);
  // The last, short block (10 000 − 9·1024 = 784 bytes).
  const last = old.subarray(9 * 1024);
  assert.equal(sig.readInt32BE(20 + 9 * 12), weakSum(last, 0, last.length));
  assert.ok(sig.subarray(20 + 9 * 12 + 4, 20 + 10 * 12).equals(createHash('sha256').update(last).digest().subarray(0, 8)));
  for (const rs of [1, 7, 1023, 1025, 10_000]) assert.ok(signature(old, 1024, rs).equals(sig), `reads of ${rs}`);
  const p = parseSignature(sig);
  assert.equal(p.blockCount, 10);
  assert.equal(p.fileLength, 10_000);
  assert.equal(signature(Buffer.alloc(0), 1024).length, 20);
  assert.throws(() => new SignatureBuilder(1000), expectCode('USAGE'));
  assert.throws(() => new SignatureBuilder(128), expectCode('USAGE'));
});

test('round trips: edits at start, middle and end, with odd read sizes', async () => {
  const B = 1024;
  const old = Buffer.concat([stream(200 * KiB, 3), Buffer.from('a plain text line\n'.repeat(3000))]);
  const n = old.length;
  const ins = stream(100, 9);
  const cases: [string, Buffer][] = [
    ['identical', old],
    ['insert at start', Buffer.concat([ins, old])],
    ['insert in the middle', Buffer.concat([old.subarray(0, n >> 1), ins, old.subarray(n >> 1)])],
    ['insert at end', Buffer.concat([old, ins])],
    ['delete at start', old.subarray(5000)],
    ['delete in the middle', Buffer.concat([old.subarray(0, 100_000), old.subarray(103_333)])],
    ['overwrite', Buffer.concat([old.subarray(0, 50_000), stream(3000, 10), old.subarray(53_000)])],
    ['append', Buffer.concat([old, stream(70_000, 11)])],
    ['truncate', old.subarray(0, 150_001)],
    ['shuffled halves', Buffer.concat([old.subarray(n >> 1), old.subarray(0, n >> 1)])],
    ['unrelated', stream(n, 12)],
    ['empty new', Buffer.alloc(0)],
  ];
  for (const [name, neu] of cases) {
    for (const rs of [64 * KiB, 4093, 1]) {
      if (rs === 1 && neu.length > 60_000 && name !== 'insert in the middle') continue;
      const { ops } = await roundTrip(old, neu, B, rs);
      const lit = literalBytes(ops);
      const changed = name === 'unrelated' ? n : name === 'append' ? 70_000 : name === 'overwrite' ? 3000 : name === 'empty new' ? 0 : 100;
      if (name !== 'identical' && !name.startsWith('delete') && name !== 'truncate' && name !== 'shuffled halves') {
        assert.ok(lit <= changed + 2 * B, `${name}: ${lit} literal bytes for ${changed} changed`);
      } else {
        assert.ok(lit <= 2 * B, `${name}: ${lit} literal bytes`);
      }
    }
  }
  const same = await delta(parseSignature(signature(old, B)), old);
  assert.deepEqual(same, [{ op: 'copy', block: 0, count: Math.ceil(n / B) }], 'an unchanged file is one copy op');
});

test('deltaChunk: rebuilds a chunk in a buffer of its own, or in the one given when it is large enough', async () => {
  const B = 2048;
  const old = stream(300 * KiB, 21);
  const neu = Buffer.concat([old.subarray(0, 100 * KiB), stream(500, 22), old.subarray(100 * KiB)]);
  const frame = encodeDelta(await delta(parseSignature(signature(old, B)), neu));
  // The old file's pieces come in a reused buffer too, as the stager gives them: each must be copied before the next read.
  const scratch = Buffer.alloc(1 * MiB);
  const readOld = (offset: number, length: number): Promise<Uint8Array> => {
    old.copy(scratch, 0, offset, offset + length);
    scratch.fill(0xee, length, length + 16);
    return Promise.resolve(scratch.subarray(0, length));
  };
  const own = await deltaChunk(readOld, old.length, B, frame, neu.length, 'f');
  assert.ok(own.equals(neu));
  const into = Buffer.alloc(neu.length + 1000, 0xaa);
  const inGiven = await deltaChunk(readOld, old.length, B, frame, neu.length, 'f', into);
  assert.ok(inGiven.equals(neu));
  assert.equal(inGiven.buffer, into.buffer, 'the result is a view of the buffer given');
  assert.equal(inGiven.byteOffset, into.byteOffset);
  // Too small a buffer is not written to: the chunk gets its own.
  const small = Buffer.alloc(neu.length - 1, 0xbb);
  const inOwn = await deltaChunk(readOld, old.length, B, frame, neu.length, 'f', small);
  assert.ok(inOwn.equals(neu));
  assert.ok(small.every((b) => b === 0xbb));
  // A delta that rebuilds more than the chunk's length is refused, whatever buffer it is given.
  await assert.rejects(
    deltaChunk(readOld, old.length, B, frame, neu.length - 1, 'f', into),
    (e: unknown) => isBrickpostError(e) && e.code === 'CHUNK_MISMATCH',
  );
});

test('round trips: empty old, old smaller than one block, both empty, runs of zeros', async () => {
  const B = 4096;
  await roundTrip(Buffer.alloc(0), stream(10_000, 4), B);
  await roundTrip(Buffer.alloc(0), Buffer.alloc(0), B);
  const small = stream(300, 5);
  const ext = stream(50, 6);
  const { ops: suffixed } = await roundTrip(small, Buffer.concat([ext, small]), B);
  assert.deepEqual(suffixed.at(-1), { op: 'copy', block: 0, count: 1 }, 'the short old file matches at the end of the new one');
  await roundTrip(small, Buffer.concat([small, ext]), B);
  await roundTrip(small, small.subarray(0, 299), B);
  await roundTrip(small, Buffer.alloc(0), B);
  const zeros = Buffer.alloc(1 * MiB);
  const { ops } = await roundTrip(zeros, Buffer.concat([zeros, Buffer.from('x'), zeros]), B);
  assert.ok(ops.length <= 5, `zeros: ${ops.length} ops, copies of a repeated block should merge`);
});

test('a 100-byte insert into a 20 MiB file costs under 64 KiB of literals', async () => {
  const old = stream(20 * MiB, 7);
  const B = blockSizeFor(old.length);
  const at = 12_345_678;
  const neu = Buffer.concat([old.subarray(0, at), stream(100, 8), old.subarray(at)]);
  const { ops, size } = await roundTrip(old, neu, B, 1 * MiB);
  const lit = literalBytes(ops);
  assert.ok(lit < 64 * KiB, `${lit} literal bytes`);
  assert.ok(size < 64 * KiB, `encoded delta of ${size} bytes`);
  assert.equal(ops.length, 3);
});

test('literals are flushed at maxLiteral, and memory does not grow with a long mismatch', async () => {
  const old = stream(64 * KiB, 1);
  const sig = parseSignature(signature(old, 1024));
  const neu = stream(3 * MiB + 17, 2);
  const ops = await delta(sig, neu, 5 * MiB, 64 * KiB);
  assert.ok(ops.every((op) => op.op === 'literal' && op.data.length <= 64 * KiB));
  assert.equal(literalBytes(ops), neu.length);
  assert.ok((await patch(old, 1024, ops)).equals(neu));
  await assert.rejects(async () => delta(sig, neu, 1 * MiB, 10), expectCode('USAGE'));
});

test('a cancelled delta stops with CANCELLED', async () => {
  const ac = new AbortController();
  ac.abort();
  const sig = parseSignature(signature(stream(10_000, 1), 1024));
  const gen = computeDelta(sig, reads(stream(10 * MiB, 2), 1 * MiB), { signal: ac.signal });
  await assert.rejects(async () => {
    for await (const _ of gen);
  }, expectCode('CANCELLED'));
});

test('parseSignature refuses hostile input', () => {
  const good = signature(stream(5000, 1), 1024);
  const edit = (f: (b: Buffer) => void, buf = good): Buffer => {
    const b = Buffer.from(buf);
    f(b);
    return b;
  };
  const malformed: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['header only, cut short', good.subarray(0, 19)],
    ['bad magic', edit((b) => b.write('bpsig2', 0, 'latin1'))],
    ['unknown weak sum', edit((b) => (b[6] = 2))],
    ['other strong length', edit((b) => (b[7] = 16))],
    ['block size not a power of two', edit((b) => b.writeUInt32BE(1000, 8))],
    ['block size too small', edit((b) => b.writeUInt32BE(128, 8))],
    ['block size too large', edit((b) => b.writeUInt32BE(1 << 21, 8))],
    ['block size zero', edit((b) => b.writeUInt32BE(0, 8))],
    ['length over 2^53', edit((b) => b.writeBigUInt64BE(1n << 60n, 12))],
    ['length claims more blocks', edit((b) => b.writeBigUInt64BE(6000n, 12))],
    ['length claims fewer blocks', edit((b) => b.writeBigUInt64BE(4000n, 12))],
    ['one byte missing', good.subarray(0, good.length - 1)],
    ['one byte extra', Buffer.concat([good, Buffer.alloc(1)])],
    ['huge length, tiny body', edit((b) => b.writeBigUInt64BE(2n ** 52n, 12), good.subarray(0, 20))],
  ];
  for (const [name, buf] of malformed) assert.throws(() => parseSignature(buf), expectCode('MALFORMED'), name);
  assert.throws(() => parseSignature(good, { maxBlocks: 4 }), expectCode('LIMIT_EXCEEDED'));
  assert.equal(parseSignature(good, { maxBlocks: 5 }).blockCount, 5);
});

test('a forged signature (weak sums that match everywhere) costs literals, not quadratic time', async () => {
  const B = 4096;
  const old = stream(4 * MiB, 3);
  const sig = signature(old, B);
  const n = (sig.length - 20) / 12;
  // Every block claims the weak sum of a block of zeros, and the new file is all zeros: the weak sum matches at
  // every offset, the strong sum never.
  const weak = weakSum(Buffer.alloc(B), 0, B);
  for (let i = 0; i < n; i++) sig.writeInt32BE(weak, 20 + i * 12);
  const zeros = Buffer.alloc(8 * MiB);
  const t = performance.now();
  const ops = await delta(parseSignature(sig), zeros);
  const ms = performance.now() - t;
  assert.equal(literalBytes(ops), zeros.length);
  assert.ok((await patch(old, B, ops)).equals(zeros));
  // Unbounded, this is 8 Mi strong sums of 4 KiB (32 GiB of hashing); the miss budget allows about 36 MiB of it.
  assert.ok(ms < 10_000, `delta against a forged signature took ${Math.round(ms)} ms`);
});

test('decodeDelta refuses hostile input; encodeDelta refuses invalid ops', () => {
  const ops: DeltaOp[] = [
    { op: 'copy', block: 300, count: 2 },
    { op: 'literal', data: Buffer.from('hello') },
    { op: 'copy', block: 0, count: 1 },
  ];
  const enc = encodeDelta(ops);
  assert.equal(enc.subarray(0, 8).toString('latin1'), 'bpdelta1');
  assert.deepEqual(enc.subarray(8), Buffer.from([1, 0xac, 0x02, 2, 2, 5, ...Buffer.from('hello'), 1, 0, 1, 0]));
  assert.deepEqual(decodeDelta(enc), ops);
  assert.deepEqual(decodeDelta(encodeDelta([])), []);
  assert.deepEqual(decodeDelta(encodeDelta([{ op: 'copy', block: 2 ** 53 - 2, count: 1 }])), [{ op: 'copy', block: 2 ** 53 - 2, count: 1 }]);
  const m = Buffer.from('bpdelta1', 'latin1');
  const d = (...bytes: number[]): Buffer => Buffer.concat([m, Buffer.from(bytes)]);
  const malformed: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['magic only', m],
    ['bad magic', Buffer.from('bpdelta2\x00', 'latin1')],
    ['unknown tag', d(3, 0)],
    ['no end tag', d(1, 0, 1)],
    ['bytes after end', d(0, 0)],
    ['zero count', d(1, 5, 0, 0)],
    ['empty literal', d(2, 0, 0)],
    ['literal past the end', d(2, 10, 1, 2, 3, 0)],
    ['non-minimal varint', d(1, 0x80, 0x00, 1, 0)],
    ['varint over 8 bytes', d(1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 0)],
    ['varint over 2^53', d(1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0)],
    ['varint cut short', d(1, 0x80)],
    ['copy past 2^53', d(1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 2, 0)],
  ];
  for (const [name, buf] of malformed) assert.throws(() => decodeDelta(buf), expectCode('MALFORMED'), name);
  assert.throws(() => encodeDelta([{ op: 'copy', block: -1, count: 1 }]), expectCode('USAGE'));
  assert.throws(() => encodeDelta([{ op: 'copy', block: 0, count: 0 }]), expectCode('USAGE'));
  assert.throws(() => encodeDelta([{ op: 'literal', data: Buffer.alloc(0) }]), expectCode('USAGE'));
});

test('applyDelta refuses copies outside the old file and a basis that does not match', async () => {
  const old = stream(10_000, 1);
  const B = 1024;
  const bad: DeltaOp[][] = [
    [{ op: 'copy', block: 10, count: 1 }],
    [{ op: 'copy', block: 9, count: 2 }],
    [{ op: 'copy', block: -1, count: 1 }],
    [{ op: 'copy', block: 0, count: 0 }],
    [{ op: 'copy', block: 0.5, count: 1 }],
    [{ op: 'copy', block: 2 ** 53, count: 1 }],
    [{ op: 'literal', data: Buffer.alloc(0) }],
  ];
  for (const ops of bad) await assert.rejects(patch(old, B, ops), expectCode('MALFORMED'), JSON.stringify(ops));
  assert.equal((await patch(old, B, [{ op: 'copy', block: 9, count: 1 }])).length, 10_000 - 9 * B);
  await assert.rejects(patch(old, 1000, []), expectCode('USAGE'));
  const short = applyDelta(
    async (o, l) => old.subarray(o, o + l - 1),
    old.length,
    B,
    [{ op: 'copy', block: 0, count: 2 }],
    async () => {},
  );
  await assert.rejects(short, expectCode('BASIS_MISSING'));
  await assert.rejects(
    applyDelta(
      async () => Buffer.alloc(0),
      -1,
      B,
      [],
      async () => {},
    ),
    expectCode('USAGE'),
  );
});

test('a copy run longer than 1 MiB is read from the old file in bounded pieces', async () => {
  const old = stream(5 * MiB, 2);
  let largest = 0;
  const out: Buffer[] = [];
  await applyDelta(
    async (o, l) => {
      largest = Math.max(largest, l);
      return old.subarray(o, o + l);
    },
    old.length,
    4096,
    [{ op: 'copy', block: 0, count: 5 * 256 }],
    async (b) => {
      out.push(Buffer.from(b));
    },
  );
  assert.ok(Buffer.concat(out).equals(old));
  assert.ok(largest <= 1 * MiB, `read of ${largest} bytes`);
});
