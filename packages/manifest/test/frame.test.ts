import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isBrickpostError } from '../src/errors.js';
import { parseFrameHeader, rawFrame, rawFrameParts, rawFrameSize, readSkippableFrame, skippableFrame } from '../src/frame/index.js';

const hasZstd = spawnSync('zstd', ['--version']).status === 0;
const noZstd = hasZstd ? false : 'zstd binary not installed';

function zstdDecode(input: Buffer): Buffer {
  const r = spawnSync('zstd', ['-d', '-c', '-q'], { input, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `zstd -d failed: ${r.stderr?.toString()}`);
  return r.stdout;
}

function zstdEncode(input: Buffer, args: string[]): Buffer {
  // --stream-size: from a pipe, zstd only writes Frame_Content_Size when told the size.
  const r = spawnSync('zstd', ['-c', '-q', `--stream-size=${input.length}`, ...args], { input, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `zstd failed: ${r.stderr?.toString()}`);
  return r.stdout;
}

function throwsCode(fn: () => unknown, code: string, pattern?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isBrickpostError(e), `expected a BrickpostError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

// Sizes around every boundary of the FCS field and of the 128 KiB raw block limit.
const SIZES = [0, 1, 255, 256, 65791, 65792, 131071, 131072, 131073, 300_000, 9 * 1024 * 1024];

test.skipIf(noZstd)(`rawFrame: zstd -d decodes it for every size class${noZstd ? ` [skipped: ${noZstd}]` : ''}`, () => {
  for (const n of SIZES) {
    const data = randomBytes(n);
    const frame = rawFrame(data);
    assert.equal(frame.length, rawFrameSize(n), `size of frame for ${n}`);
    assert.ok(zstdDecode(frame).equals(data), `round trip of ${n} bytes`);
  }
});

test('rawFrame: header declares the content size, single segment up to 8 MiB, no checksum', () => {
  for (const n of SIZES) {
    const h = parseFrameHeader(rawFrame(randomBytes(n)));
    assert.equal(h.kind, 'zstd');
    assert.equal(h.contentSize, n);
    assert.equal(h.hasChecksum, false);
    assert.equal(h.dictId, 0);
    assert.equal(h.singleSegment, n <= 8 * 1024 * 1024);
    assert.equal(h.windowSize, n <= 8 * 1024 * 1024 ? n : 128 * 1024);
  }
});

test('rawFrameParts: views of the input, same bytes as rawFrame', () => {
  const data = randomBytes(300_000);
  const parts = rawFrameParts(data);
  assert.ok(Buffer.concat(parts).equals(rawFrame(data)));
  // header, then (block header, block) × 3 blocks
  assert.equal(parts.length, 1 + 2 * 3);
  assert.equal(parts[2]!.buffer, data.buffer, 'blocks are views, not copies');
});

test.skipIf(noZstd)(`skippable frame then raw frames: zstd -d yields the raw bytes only${noZstd ? ` [skipped: ${noZstd}]` : ''}`, () => {
  const a = randomBytes(200_000);
  const b = Buffer.from('second chunk '.repeat(50));
  const stream = Buffer.concat([skippableFrame(0xe, Buffer.from('{"pack":1}')), rawFrame(a), rawFrame(b), skippableFrame(0, Buffer.alloc(0))]);
  assert.ok(zstdDecode(stream).equals(Buffer.concat([a, b])));
});

test('skippableFrame / readSkippableFrame round trip', () => {
  const payload = Buffer.from('hello, skippable');
  const f = skippableFrame(7, payload);
  assert.equal(f.readUInt32LE(0), 0x184d2a57);
  assert.equal(f.readUInt32LE(4), payload.length);
  const next = Buffer.from([1, 2, 3]);
  const r = readSkippableFrame(Buffer.concat([f, next]));
  assert.equal(r.magicNibble, 7);
  assert.ok(r.payload.equals(payload));
  assert.equal(r.length, 8 + payload.length);
  const h = parseFrameHeader(f);
  assert.equal(h.kind, 'skippable');
  assert.equal(h.skippableSize, payload.length);
  assert.equal(h.headerSize, 8);
});

test('skippable frames: bad nibble, wrong magic, truncation', () => {
  throwsCode(() => skippableFrame(16, Buffer.alloc(1)), 'USAGE');
  throwsCode(() => skippableFrame(-1, Buffer.alloc(1)), 'USAGE');
  throwsCode(() => readSkippableFrame(rawFrame(Buffer.from('x'))), 'MALFORMED', /0xfd2fb528/);
  throwsCode(() => readSkippableFrame(skippableFrame(1, Buffer.alloc(10)).subarray(0, 17)), 'TRUNCATED');
  throwsCode(() => readSkippableFrame(Buffer.from([0x50, 0x2a, 0x4d])), 'TRUNCATED');
});

test.skipIf(noZstd)(`parseFrameHeader: frames written by the zstd tool${noZstd ? ` [skipped: ${noZstd}]` : ''}`, () => {
  const text = Buffer.from('the quick brown fox jumps over the lazy dog\n'.repeat(20000));
  const withCheck = parseFrameHeader(zstdEncode(text, ['-3']));
  assert.equal(withCheck.kind, 'zstd');
  assert.equal(withCheck.contentSize, text.length);
  assert.equal(withCheck.hasChecksum, true);
  const noCheck = parseFrameHeader(zstdEncode(text, ['-3', '--no-check']));
  assert.equal(noCheck.hasChecksum, false);
  // A large input gets a window descriptor instead of a single segment.
  const big = Buffer.concat([randomBytes(1 << 20), Buffer.alloc(9 << 20)]);
  const h = parseFrameHeader(zstdEncode(big, ['-1']));
  assert.equal(h.singleSegment, false);
  assert.equal(h.contentSize, big.length);
  assert.ok(h.windowSize! >= 1024 && (h.windowSize! & (h.windowSize! - 1)) === 0, `window ${h.windowSize}`);
});

test('parseFrameHeader: hand-built descriptors (RFC 8878 §3.1.1.1)', () => {
  const magic = [0x28, 0xb5, 0x2f, 0xfd];
  // FCS flag 1 (2 bytes, +256), window descriptor 0x3a (2^17 + 2 × 2^14), dictionary id 1 byte.
  const h1 = parseFrameHeader(Buffer.from([...magic, 0x41, 0x3a, 0x09, 0x10, 0x00]));
  assert.deepEqual(h1, {
    kind: 'zstd',
    headerSize: 9,
    singleSegment: false,
    hasChecksum: false,
    dictId: 9,
    contentSize: 0x10 + 256,
    windowSize: 131072 + 2 * 16384,
  });
  // No FCS, no single segment: content size unknown; checksum flag; 4-byte dictionary id.
  const h2 = parseFrameHeader(Buffer.from([...magic, 0x07, 0x00, 0x04, 0x03, 0x02, 0x01]));
  assert.equal(h2.contentSize, undefined);
  assert.equal(h2.windowSize, 1024);
  assert.equal(h2.hasChecksum, true);
  assert.equal(h2.dictId, 0x01020304);
  assert.equal(h2.headerSize, 10);
  // 8-byte FCS.
  const h3 = parseFrameHeader(Buffer.from([...magic, 0xe0, 1, 0, 0, 0, 2, 0, 0, 0]));
  assert.equal(h3.contentSize, 2 * 2 ** 32 + 1);
  assert.equal(h3.windowSize, h3.contentSize);
  // The unused bit (4) is ignored, as §3.1.1.1.1 requires.
  assert.equal(parseFrameHeader(Buffer.from([...magic, 0x30, 5])).contentSize, 5);
});

test('parseFrameHeader: rejects what is not a well-formed header', () => {
  const magic = [0x28, 0xb5, 0x2f, 0xfd];
  throwsCode(() => parseFrameHeader(Buffer.from('PK\x03\x04zip')), 'MALFORMED', /magic 0x04034b50/);
  throwsCode(() => parseFrameHeader(Buffer.from([...magic, 0x28, 5])), 'MALFORMED', /reserved bit/);
  throwsCode(() => parseFrameHeader(Buffer.from([0x28, 0xb5])), 'TRUNCATED');
  throwsCode(() => parseFrameHeader(Buffer.from(magic)), 'TRUNCATED');
  throwsCode(() => parseFrameHeader(Buffer.from([...magic, 0x80, 1, 2])), 'TRUNCATED', /needs 10 bytes/);
  throwsCode(() => parseFrameHeader(Buffer.from([...magic, 0xe0, 0, 0, 0, 0, 0, 0, 0x20, 0])), 'LIMIT_EXCEEDED');
});
