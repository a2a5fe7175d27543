/**
 * LineBlocks (io/line-blocks.ts), how manifest and signature-file lines
 * become zstd frames: in order, each frame independent, across several
 * blocks while the next one gathers (the native core compresses a block on
 * its pool), and a sink's failure raised by a later add or flush. The real
 * zstd binary reads the frames back. Runs on whichever path the suite runs
 * on: the JavaScript path's run (BRICKPOST_NATIVE=0) compresses on the
 * JavaScript thread.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BrickpostError } from '@brickpost/manifest';
import { LINE_BLOCK, LineBlocks } from '../src/io/line-blocks.js';

/** Lines of about 120 bytes each, numbered, for `bytes` bytes in all. */
function lines(bytes: number): string[] {
  const out: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const line = `{"t":"file","p":"dir/${i}","size":${i * 7},"c":[["${(i * 2654435761).toString(16).padStart(64, '0')}",${i}]]}\n`;
    out.push(line);
    n += line.length;
  }
  return out;
}

function unzstd(frame: Buffer): string {
  const r = spawnSync('zstd', ['-d', '-c', '-q'], { input: frame, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr.toString());
  return r.stdout.toString('utf8');
}

describe('LineBlocks', () => {
  test('several blocks: one frame each, in order, each readable on its own by zstd, with its content size', async () => {
    const frames: Buffer[] = [];
    // A sink slower than the compression: frames must still arrive one at a time, in order.
    let inSink = 0;
    const blocks = new LineBlocks(async (f) => {
      assert.equal(inSink++, 0, 'one frame handed over at a time');
      await new Promise((r) => setImmediate(r));
      frames.push(f);
      inSink--;
    }, 6);
    const all = lines(3 * LINE_BLOCK + 12345);
    for (const l of all) await blocks.add(l);
    await blocks.flush();
    assert.equal(frames.length, 4);
    const texts = frames.map(unzstd);
    assert.equal(texts.join(''), all.join(''));
    for (const t of texts.slice(0, 3)) assert.ok(t.length >= LINE_BLOCK && t.length < LINE_BLOCK + 200, `${t.length} bytes in a block`);
    for (const [i, f] of frames.entries()) {
      // Frame_Header_Descriptor's content size flag (two bits) set: zstd -l would print the decompressed size.
      assert.notEqual(f[4]! >> 6, 0, `frame ${i} carries its content size`);
    }
  });

  test('a sink that fails: the error comes out of a later add or of flush, and nothing after it is handed over', async () => {
    const handed: number[] = [];
    let n = 0;
    const blocks = new LineBlocks(async () => {
      n++;
      if (n === 2) throw new BrickpostError('NO_SPACE', 'the drive is full');
      handed.push(n);
    }, 3);
    let error: unknown = null;
    try {
      for (const l of lines(5 * LINE_BLOCK)) await blocks.add(l);
      await blocks.flush();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof BrickpostError && error.code === 'NO_SPACE', String(error));
    assert.deepEqual(handed, [1]);
    assert.equal(n, 2);
    // idle() after a failure settles quietly (what an abort waits for).
    await blocks.idle();
  });
});
