import { test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkId, chunkKey, createChunkPipeline, decodeChunk, encodeChunk } from '../src/chunk/index.js';

const key = chunkKey(randomBytes(32));

function textChunk(i: number, n: number): Buffer {
  return Buffer.from(`record ${i} `.repeat(Math.ceil(n / 8))).subarray(0, n);
}

/** Owned copies, as chunkFile yields them. */
function owned(b: Buffer): Buffer {
  const o = Buffer.allocUnsafeSlow(b.length);
  b.copy(o);
  return o;
}

test('pipeline: same ids and frames as in-thread, in submission order', async () => {
  const p = createChunkPipeline({ key, level: 3, workers: 2 });
  try {
    // Mixed sizes make later jobs finish before earlier ones on the workers.
    const raws = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? randomBytes(2_000_000) : textChunk(i, 1000 + i * 997)));
    const expected = raws.map((r) => ({ id: chunkId(key, r), ...encodeChunk(r, 3), length: r.length }));
    const jobs = raws.map((r) => p.encode(owned(r)));
    for (let i = 0; i < jobs.length; i++) {
      const got = await jobs[i]!;
      assert.ok(got.id.equals(expected[i]!.id), `id ${i}`);
      assert.ok(got.frame.equals(expected[i]!.frame), `frame ${i}`);
      assert.equal(got.stored, expected[i]!.stored);
      assert.equal(got.length, raws[i]!.length);
      assert.ok(Buffer.isBuffer(got.frame) && Buffer.isBuffer(got.id));
    }
    assert.equal(p.pending, 0);
  } finally {
    await p.close();
  }
});

test('pipeline: transfer moves owned buffers, copies views; copy mode leaves them', async () => {
  const big = randomBytes(3_000_000);
  const view = big.subarray(1_000_000, 2_000_000);
  const moving = createChunkPipeline({ key, level: 3, workers: 1 });
  const copying = createChunkPipeline({ key, level: 3, workers: 1, transfer: false });
  try {
    const a = owned(view);
    const ra = await moving.encode(a);
    assert.equal(a.length, 0, 'owned buffer was moved to the worker');
    assert.ok(ra.id.equals(chunkId(key, view)));
    const rv = await moving.encode(view);
    assert.equal(view.length, 1_000_000, 'a view is copied, never detached');
    assert.ok(rv.id.equals(ra.id));
    const b = owned(view);
    await copying.encode(b);
    assert.equal(b.length, 1_000_000);
    await assert.rejects(moving.encode(a), { code: 'USAGE', message: /already moved/ });
  } finally {
    await Promise.all([moving.close(), copying.close()]);
  }
});

test('pipeline: decode on a worker, errors keep their codes', async () => {
  const p = createChunkPipeline({ key, level: 3 });
  try {
    const raw = textChunk(1, 500_000);
    const enc = encodeChunk(raw, 3);
    const id = chunkId(key, raw);
    // The frame as a view into a larger buffer, as a pack reader would pass it.
    const packBuf = Buffer.concat([randomBytes(100), enc.frame, randomBytes(100)]);
    const frameView = packBuf.subarray(100, 100 + enc.frame.length);
    assert.ok((await p.decode(frameView, raw.length, id)).equals(raw));
    assert.equal(frameView.length, enc.frame.length, "decode never detaches the caller's frame");
    await assert.rejects(p.decode(enc.frame, raw.length, randomBytes(32)), { code: 'CHUNK_MISMATCH', name: 'BrickpostError' });
    await assert.rejects(p.decode(enc.frame, raw.length + 1, id), { code: 'CHUNK_MISMATCH' });
    await assert.rejects(p.decode(randomBytes(64), 10, id), { code: 'MALFORMED' });
    assert.throws(() => decodeChunk(enc.frame, raw.length, randomBytes(32), key), { code: 'CHUNK_MISMATCH' });
  } finally {
    await p.close();
  }
});

test('pipeline: encodeAll keeps order and bounds work in flight', async () => {
  const p = createChunkPipeline({ key, level: 3, workers: 2 });
  try {
    const raws = Array.from({ length: 40 }, (_, i) => (i % 2 ? randomBytes(300_000 + i) : textChunk(i, 200_000 + i)));
    let maxPending = 0;
    async function* source(): AsyncGenerator<Buffer> {
      for (const r of raws) {
        maxPending = Math.max(maxPending, p.pending);
        yield owned(r);
      }
    }
    let i = 0;
    for await (const e of p.encodeAll(source(), 5)) {
      assert.ok(e.id.equals(chunkId(key, raws[i]!)), `result ${i} in order`);
      i++;
    }
    assert.equal(i, raws.length);
    assert.ok(maxPending <= 5, `pending reached ${maxPending}`);
  } finally {
    await p.close();
  }
});

test('pipeline: close waits for submitted jobs, then refuses new ones', async () => {
  const p = createChunkPipeline({ key, level: 3, workers: 1 });
  const job = p.encode(textChunk(0, 2_000_000));
  await p.close();
  assert.equal((await job).length, 2_000_000);
  await assert.rejects(p.encode(Buffer.from('late')), { code: 'USAGE' });
  assert.throws(() => createChunkPipeline({ key, level: 3, workers: 0 }), { code: 'USAGE' });
});

test('pipeline: a bad level fails each job with USAGE, pipeline stays usable', async () => {
  const p = createChunkPipeline({ key, level: 99, workers: 1 });
  try {
    await assert.rejects(p.encode(Buffer.from('x')), { code: 'USAGE' });
    await assert.rejects(p.encode(Buffer.from('y')), { code: 'USAGE' });
    const raw = textChunk(3, 1000);
    assert.ok((await p.decode(encodeChunk(raw, 3).frame, raw.length, chunkId(key, raw))).equals(raw));
  } finally {
    await p.close();
  }
});

test('pipeline: closed in the middle of a large file, the rest of its read fails rather than waiting forever', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bp-cut-close-'));
  const path = join(dir, 'large.bin');
  const size = 40 << 20;
  writeFileSync(path, randomBytes(size));
  const p = createChunkPipeline({ key, level: 3, workers: 1 });
  try {
    const ignore = (): void => undefined;
    const parts = p.encodeLarge(path, size, {}, ignore, ignore)[Symbol.asyncIterator]();
    const first = await parts.next();
    assert.equal(first.done, false);
    first.value.job.catch(() => undefined);
    // A pack that failed elsewhere closes the pipeline while the cutter thread holds the file's next batch.
    await p.close();
    // What is left of the file either fails (its thread has ended) or, before the fix, never settled at all;
    // the file is 40 MiB, so it cannot simply end.
    await assert.rejects(
      (async () => {
        for (let r = await parts.next(); !r.done; r = await parts.next()) r.value.job.catch(() => undefined);
      })(),
      (e: Error & { code?: string }) => e.code === 'IO' && /cutter thread ended/.test(e.message),
    );
  } finally {
    await p.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
