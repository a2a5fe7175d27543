import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { frame as zframe } from '@brickpost/manifest';
import { CHUNK_PARAMS_V1, chunkId, chunkKey, decodeChunk, encodeChunk } from '../src/chunk/index.js';

const noZstd = spawnSync('zstd', ['--version']).status === 0 ? false : 'zstd binary not installed';
const key = chunkKey(Buffer.alloc(32, 1));

function text(n: number): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'sensor', '21.5', 'ok', 'fail', '\n'];
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const w = words[(i * 7 + (i >> 3)) % words.length]! + ' ' + (i % 1000) + ',';
    parts.push(w);
    len += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

function rejects(fn: () => unknown, code: string, pattern?: RegExp): void {
  assert.throws(fn, (e: Error & { code?: string }) => {
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('chunkKey is HKDF-SHA256(secret, salt = empty, info = "brickpost chunk id v1")', () => {
  const secret = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
  // RFC 5869 by hand: PRK = HMAC(salt = 32 zero bytes, IKM); T(1) = HMAC(PRK, info ‖ 0x01).
  const prk = createHmac('sha256', Buffer.alloc(32)).update(secret).digest();
  const t1 = createHmac('sha256', prk)
    .update(Buffer.concat([Buffer.from('brickpost chunk id v1'), Buffer.from([1])]))
    .digest();
  assert.ok(chunkKey(secret).equals(t1));
  assert.throws(() => chunkKey(Buffer.alloc(8)), { code: 'BAD_KEY' });
  const raw = Buffer.from('some bytes');
  assert.ok(chunkId(t1, raw).equals(createHmac('sha256', t1).update(raw).digest()));
});

test('encode/decode round trip: compressible data becomes a zstd frame', () => {
  const raw = text(1_500_000);
  const { frame, stored } = encodeChunk(raw, 3);
  assert.equal(stored, 'zstd');
  assert.ok(frame.length < raw.length / 2, `frame ${frame.length} for ${raw.length}`);
  const h = zframe.parseFrameHeader(frame);
  assert.equal(h.contentSize, raw.length);
  assert.equal(h.hasChecksum, false);
  assert.ok(decodeChunk(frame, raw.length, chunkId(key, raw), key).equals(raw));
});

test('encode/decode round trip: random data is stored raw (sampled or after trying)', () => {
  for (const n of [1, 1000, 60_000, 300_000, CHUNK_PARAMS_V1.max]) {
    const raw = randomBytes(n);
    const { frame, stored } = encodeChunk(raw, 3);
    assert.equal(stored, 'raw', `${n} bytes`);
    assert.equal(frame.length, zframe.rawFrameSize(n));
    assert.ok(decodeChunk(frame, n, chunkId(key, raw), key).equals(raw));
  }
  const empty = Buffer.alloc(0);
  const e = encodeChunk(empty, 3);
  assert.equal(decodeChunk(e.frame, 0, chunkId(key, empty), key).length, 0);
});

test('a chunk that is mostly random but partly text is still compressed', () => {
  // Samples land in the random part and in the text part: not "incompressible".
  const raw = Buffer.concat([randomBytes(400_000), text(600_000)]);
  const { frame, stored } = encodeChunk(raw, 3);
  assert.equal(stored, 'zstd');
  assert.ok(frame.length < 0.8 * raw.length);
});

test('encodeChunk rejects a level zstd does not have', () => {
  rejects(() => encodeChunk(Buffer.from('x'), 99), 'USAGE');
  rejects(() => encodeChunk(Buffer.from('x'), 1.5), 'USAGE');
});

test.skipIf(noZstd)(`zstd -d decodes a skippable frame followed by our frames into the raw chunks${noZstd ? ` [skipped: ${noZstd}]` : ''}`, () => {
  const raws = [text(1_000_000), randomBytes(700_000), text(5000), randomBytes(10), Buffer.alloc(0), text(300_000)];
  const frames = raws.map((r) => encodeChunk(r, 3));
  assert.ok(frames.some((f) => f.stored === 'raw') && frames.some((f) => f.stored === 'zstd'));
  const pack = Buffer.concat([zframe.skippableFrame(0, Buffer.from('pack header')), ...frames.map((f) => f.frame)]);
  const r = spawnSync('zstd', ['-d', '-c', '-q'], { input: pack, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.ok(r.stdout.equals(Buffer.concat(raws)));
});

test('decodeChunk: a frame whose content size lies is rejected', () => {
  const raw = randomBytes(1000);
  const good = zframe.rawFrame(raw);
  // Single-segment raw frame of 1000 bytes: 2-byte FCS at offset 5 holds size − 256.
  const fewer = Buffer.from(good);
  fewer.writeUInt16LE(999 - 256, 5);
  rejects(() => decodeChunk(fewer, 999, chunkId(key, raw.subarray(0, 999)), key), 'MALFORMED', /does not decode/);
  const more = Buffer.from(good);
  more.writeUInt16LE(1001 - 256, 5);
  rejects(() => decodeChunk(more, 1001, chunkId(key, raw), key), 'MALFORMED');
  // The header agrees with itself but not with the manifest.
  rejects(() => decodeChunk(good, 1001, chunkId(key, raw), key), 'CHUNK_MISMATCH', /holds 1000 bytes, the manifest says 1001/);
});

test('decodeChunk: trailing bytes, a second frame, a skippable frame, a dictionary', () => {
  const raw = text(10_000);
  const { frame } = encodeChunk(raw, 3);
  const id = chunkId(key, raw);
  rejects(() => decodeChunk(Buffer.concat([frame, Buffer.from([0])]), raw.length, id, key), 'MALFORMED', /1 more bytes follow/);
  rejects(() => decodeChunk(Buffer.concat([frame, frame]), raw.length, id, key), 'MALFORMED', /more bytes follow/);
  rejects(() => decodeChunk(zframe.skippableFrame(0, raw), raw.length, id, key), 'MALFORMED', /skippable/);
  rejects(() => decodeChunk(frame.subarray(0, frame.length - 5), raw.length, id, key), 'MALFORMED');
  const withDict = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x21, 7, 5, 1, 0, 0]);
  rejects(() => decodeChunk(withDict, 5, id, key), 'MALFORMED', /dictionary 7/);
  rejects(() => decodeChunk(Buffer.from('not a frame'), 5, id, key), 'MALFORMED');
});

test('decodeChunk: bombs are refused before any decoding', () => {
  // A 20-byte frame declaring 2^40 bytes of content.
  const bomb = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0, 1, 0, 0, 0x03, 0, 0, 0x42, 0, 0, 0]);
  rejects(() => decodeChunk(bomb, 100, Buffer.alloc(32), key), 'LIMIT_EXCEEDED', /declares 1099511627776 bytes/);
  // A real zstd frame of 64 MiB of zeros is a few KB; its declared size is over the chunk limit.
  const zeros = encodeChunk(Buffer.alloc(64 << 20), 3).frame;
  assert.ok(zeros.length < 100_000);
  rejects(() => decodeChunk(zeros, 1 << 20, Buffer.alloc(32), key), 'LIMIT_EXCEEDED');
  rejects(() => decodeChunk(zeros, 64 << 20, Buffer.alloc(32), key), 'LIMIT_EXCEEDED', /exceeds the limit/);
  // A window of 2^27 bytes, no content size in the way.
  const wide = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x40, 17 << 3, 0, 0, 1, 0, 0]);
  rejects(() => decodeChunk(wide, 256, Buffer.alloc(32), key), 'LIMIT_EXCEEDED', /window/);
  // A frame with no content size at all.
  const unsized = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 1, 0, 0]);
  rejects(() => decodeChunk(unsized, 0, Buffer.alloc(32), key), 'MALFORMED', /content size/);
});

test('decodeChunk: wrong id, wrong key', () => {
  const raw = text(50_000);
  const { frame } = encodeChunk(raw, 3);
  const id = chunkId(key, raw);
  const other = Buffer.from(id);
  other[0]! ^= 1;
  rejects(() => decodeChunk(frame, raw.length, other, key), 'CHUNK_MISMATCH', /another id/);
  rejects(() => decodeChunk(frame, raw.length, id, chunkKey(Buffer.alloc(32, 2))), 'CHUNK_MISMATCH');
  rejects(() => decodeChunk(frame, raw.length, id.subarray(0, 16), key), 'CHUNK_MISMATCH');
});
