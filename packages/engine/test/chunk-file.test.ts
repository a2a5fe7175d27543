import { test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkFile, findCut } from '../src/chunk/index.js';

async function collect(path: string, blockSize?: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of chunkFile(path, blockSize === undefined ? {} : { blockSize })) out.push(c);
  return out;
}

function wholeCuts(data: Buffer): number[] {
  const out: number[] = [];
  for (let s = 0; s < data.length;) {
    const n = findCut(data, s, data.length, true);
    out.push(n);
    s += n;
  }
  return out;
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'brickpost-chunk-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('chunkFile equals findCut over the whole file, for any read size', async () => {
  await withDir(async (dir) => {
    // Random data, a long run of zeros (forced max cuts) and text.
    const data = Buffer.concat([randomBytes(13 << 20), Buffer.alloc(9 << 20), Buffer.from('line of text\n'.repeat(400_000)), randomBytes(777)]);
    const path = join(dir, 'f.bin');
    await writeFile(path, data);
    const expected = wholeCuts(data);
    for (const block of [undefined, 1 << 20, 3 << 20, 64 << 20]) {
      const chunks = await collect(path, block);
      assert.deepEqual(
        chunks.map((c) => c.length),
        expected,
        `blockSize ${block}`,
      );
      assert.ok(Buffer.concat(chunks).equals(data), `bytes, blockSize ${block}`);
    }
  });
});

test('chunkFile: each chunk owns its memory (transferable to a worker)', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'f.bin');
    await writeFile(path, randomBytes(6 << 20));
    for (const c of await collect(path)) {
      assert.equal(c.byteOffset, 0);
      assert.equal(c.byteLength, c.buffer.byteLength);
    }
  });
});

test('chunkFile: empty, tiny, small and exact-block-size files', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, 'empty'), Buffer.alloc(0));
    assert.deepEqual(await collect(join(dir, 'empty')), []);
    const tiny = Buffer.from('hello');
    await writeFile(join(dir, 'tiny'), tiny);
    const t = await collect(join(dir, 'tiny'));
    assert.equal(t.length, 1);
    assert.ok(t[0]!.equals(tiny));
    // Under 1 MiB: the synchronous whole-file read.
    const small = randomBytes(900_000);
    await writeFile(join(dir, 'small'), small);
    const sm = await collect(join(dir, 'small'));
    assert.deepEqual(
      sm.map((c) => c.length),
      wholeCuts(small),
    );
    assert.ok(Buffer.concat(sm).equals(small));
    const exact = randomBytes(2 << 20);
    await writeFile(join(dir, 'exact'), exact);
    const e = await collect(join(dir, 'exact'), 1 << 20);
    assert.deepEqual(
      e.map((c) => c.length),
      wholeCuts(exact),
    );
  });
});

test('chunkFile: missing file, unreadable file, directory', async () => {
  await withDir(async (dir) => {
    await assert.rejects(collect(join(dir, 'nope')), { code: 'NOT_FOUND' });
    await assert.rejects(collect(dir), { code: 'IO' });
    if (process.getuid?.() !== 0) {
      const p = join(dir, 'secret');
      await writeFile(p, 'x');
      await chmod(p, 0);
      await assert.rejects(collect(p), { code: 'PERMISSION' });
    }
  });
});

test('chunkFile: stopping early closes the file and stops reading', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'f.bin');
    await writeFile(path, randomBytes(20 << 20));
    let n = 0;
    for await (const c of chunkFile(path, { blockSize: 1 << 20 })) {
      n += c.length;
      break;
    }
    assert.ok(n > 0);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(collect2(path, ac.signal), { code: 'CANCELLED' });
  });
});

async function collect2(path: string, signal: AbortSignal): Promise<void> {
  for await (const c of chunkFile(path, { signal })) c;
}
