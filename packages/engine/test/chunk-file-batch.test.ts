/**
 * Small files read in batches by the native core (encodeFiles, through
 * the native pipeline's FileBatcher) give what reading each alone gives:
 * the JavaScript pipeline's ids, frames and digests, in the order asked;
 * a file that cannot be read fails alone, with encodeFile's error.
 */
import { afterAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNative } from '@brickpost/native';
import { chunkKey, createChunkPipeline, type Frame } from '../src/chunk/index.js';
import { FILE_BATCH, FileBatcher } from '../src/chunk/file-batch.js';
import { nativePipeline } from '../src/chunk/native-pipeline.js';
import { isBrickpostError } from '@brickpost/manifest';

const native = loadNative();
// The core is optional where Rust is not installed or switched off on purpose (BRICKPOST_NATIVE=0); one that failed to build fails here.
const absent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const why = absent ? `no native core here (${native.reason})` : null;

const root = mkdtempSync(join(tmpdir(), 'brickpost-file-batch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Files of many sizes: empty, tiny, text, random, and past one chunk. */
function makeFiles(n: number): Array<{ path: string; size: number }> {
  mkdirSync(join(root, 'src'), { recursive: true });
  const files: Array<{ path: string; size: number }> = [];
  for (let i = 0; i < n; i++) {
    const size = [0, 1, 100, 4000, 60_000, 300_000][i % 6]!;
    const bytes =
      i % 2 === 0
        ? createCipheriv('aes-256-ctr', Buffer.alloc(32, i), Buffer.alloc(16)).update(Buffer.alloc(size))
        : Buffer.from(`line ${i} of a table\n`.repeat(Math.ceil(size / 16))).subarray(0, size);
    const path = join(root, 'src', `f${i}`);
    writeFileSync(path, bytes);
    files.push({ path, size });
  }
  return files;
}

const bytesOf = (f: Frame): Buffer => (Buffer.isBuffer(f) ? f : f.toBuffer());

describe.skipIf(why)(`native batched file reads${why ? ` [skipped: ${why}]` : ''}`, () => {
  test('many files at once come back as each alone, in order, with their digests; a missing one fails alone', async () => {
    const files = makeFiles(3 * FILE_BATCH + 5);
    const key = chunkKey(Buffer.alloc(32, 7));
    const js = createChunkPipeline({ key, level: 3, workers: 1 });
    const nat = nativePipeline(native.binding!, { key, level: 3 });
    try {
      const missing = join(root, 'src', 'gone');
      const asked = [...files.slice(0, 10), { path: missing, size: 10 }, ...files.slice(10)];
      // Asked all at once, as pack asks them: they go in batches (the first 30 without digests, the rest with).
      const got = await Promise.allSettled(asked.map((f, i) => nat.encodeFile(f.path, f.size, { sha: i >= 30 })));
      for (let i = 0; i < asked.length; i++) {
        const f = asked[i]!;
        const r = got[i]!;
        if (f.path === missing) {
          assert.equal(r.status, 'rejected');
          const alone = await nat.encodeFile(missing, 10, { signature: 1024 }).then(
            () => null,
            (e: unknown) => e,
          );
          assert.ok(isBrickpostError(r.reason) && isBrickpostError(alone));
          assert.deepEqual([r.reason.code, r.reason.message, r.reason.path], [alone.code, alone.message, alone.path]);
          continue;
        }
        assert.equal(r.status, 'fulfilled', f.path);
        const want = await js.encodeFile(f.path, f.size, { sha: i >= 30 });
        assert.equal(r.value.chunks.length, want.chunks.length, f.path);
        assert.ok(f.size === 0 || want.chunks.length > 0);
        r.value.chunks.forEach((c, k) => {
          const w = want.chunks[k]!;
          assert.deepEqual([c.id, c.length, c.stored, c.sha], [w.id, w.length, w.stored, w.sha], `${f.path} chunk ${k}`);
          assert.deepEqual(bytesOf(c.frame), bytesOf(w.frame), `${f.path} chunk ${k}`);
        });
      }
    } finally {
      await js.close();
      await nat.close();
    }
  });

  test('a batch goes when full or at the next turn of the event loop, and an error of the call fails each of its files', async () => {
    const calls: number[] = [];
    const b = new FileBatcher(async (paths, sizes) => {
      calls.push(sizes.length);
      assert.equal(paths.toString().split('\0').length, sizes.length + 1);
      if (sizes[0] === 99) throw new Error('refused');
      return sizes.map((s) => (s === 13 ? 'IO\u0001cannot open\u0001' : { chunks: [] }));
    }, 4);
    const first = [1, 2, 3, 4, 5].map((s) => b.add(Buffer.from(`p${s}`), s, false));
    assert.deepEqual(calls, [4]);
    await Promise.all(first);
    assert.deepEqual(calls, [4, 1]);
    const [ok, bad] = await Promise.allSettled([b.add(Buffer.from('a'), 12, false), b.add(Buffer.from('b'), 13, false)]);
    assert.equal(ok.status, 'fulfilled');
    assert.ok(bad.status === 'rejected' && (bad.reason as Error).message === 'IO\u0001cannot open\u0001');
    const failed = await Promise.allSettled([b.add(Buffer.from('c'), 99, false), b.add(Buffer.from('d'), 1, false)]);
    assert.deepEqual(
      failed.map((r) => r.status),
      ['rejected', 'rejected'],
    );
  });
});
