/**
 * Limits enforced while reading: inflate decodes only what is pulled, in
 * pieces of at most 128 KiB, and refuses past its limit as soon as it is
 * passed; textLines refuses a long line before the rest of it is read.
 * The inputs are frames of RLE blocks that expand a few bytes per 128 KiB,
 * so a gibibyte of text costs kilobytes: what the test measures is how much
 * of it the reader had to decode, and how much memory grew.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { Compressor } from 'zstd-napi';
import { BrickpostError } from '@brickpost/manifest';
import { handmadeFrame, type FrameBlock } from '../src/testing.js';
import { INFLATE_PIECE, inflate } from '../src/io/inflate.js';
import { textLines } from '../src/io/lines.js';

const GIB = 1 << 30;

function rle(byte: number, n: number): Buffer {
  const blocks: FrameBlock[] = [];
  for (let left = n; left > 0; left -= 128 << 10) blocks.push({ type: 'rle', byte, size: Math.min(128 << 10, left) });
  return handmadeFrame(blocks, n);
}

function zstd(text: string): Buffer {
  const z = new Compressor();
  z.setParameters({ compressionLevel: 3, contentSizeFlag: true });
  return z.compress(Buffer.from(text));
}

async function* once(...blocks: Buffer[]): AsyncGenerator<Buffer> {
  for (const b of blocks) yield b;
}

/** Counts what a consumer pulled from `it` before it threw, and what it threw. */
async function drain(it: AsyncIterable<Uint8Array | string>): Promise<{ pulled: number; error: unknown }> {
  let pulled = 0;
  try {
    for await (const x of it) pulled += x.length;
  } catch (e) {
    return { pulled, error: e };
  }
  return { pulled, error: null };
}

test('inflate decodes a gibibyte frame only as far as it is pulled, in pieces of at most 128 KiB', async () => {
  const rss = process.memoryUsage().rss;
  let pieces = 0;
  for await (const p of inflate(once(rle(0x20, GIB)), 'bomb')) {
    assert.ok(p.length <= INFLATE_PIECE);
    if (++pieces === 16) break;
  }
  assert.ok(process.memoryUsage().rss - rss < 64 << 20, 'memory grew by less than 64 MiB');
});

test('inflate yields every piece in one buffer, each whole until the next is pulled', async () => {
  const text = Array.from({ length: 40_000 }, (_, i) => `{"t":"file","p":"dir/${i.toString(36)}"}\n`).join('');
  const copies: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  for await (const p of inflate(once(zstd(text)), 'm')) {
    copies.push(Buffer.from(p));
    buffers.add(p.buffer);
  }
  assert.ok(copies.length > 4, `${copies.length} pieces`);
  assert.equal(buffers.size, 1);
  assert.equal(Buffer.concat(copies).toString(), text);
});

test('inflate refuses past its limit as soon as it is passed, naming the offset', async () => {
  const limit = { bytes: 10 << 20, error: (at: number) => new BrickpostError('LIMIT_EXCEEDED', `bomb: past the limit at compressed offset ${at}`) };
  const r = await drain(inflate(once(rle(0x61, GIB)), 'bomb', limit));
  assert.ok(r.error instanceof BrickpostError && r.error.code === 'LIMIT_EXCEEDED', String(r.error));
  assert.ok(r.pulled <= limit.bytes, `${r.pulled} bytes passed on`);
  assert.match((r.error as Error).message, /at compressed offset [0-9]+/);
});

test('inflate: a window over 8 MiB is LIMIT_EXCEEDED, a cut frame TRUNCATED, garbage MALFORMED, each naming where', async () => {
  const wide = handmadeFrame([{ type: 'raw', data: Buffer.from('x\n') }], undefined, 24);
  const cases: Array<[Buffer, string, RegExp]> = [
    [wide, 'LIMIT_EXCEEDED', /^m: the zstd frame at compressed offset 0 needs a window larger than the 8 MiB limit/],
    [zstd('hello\n'.repeat(1000)).subarray(0, 20), 'TRUNCATED', /^m ends inside a zstd frame/],
    [Buffer.from('not zstd at all'), 'MALFORMED', /^m: not a valid zstd stream at compressed offset 0/],
  ];
  for (const [input, code, message] of cases) {
    const r = await drain(inflate(once(input), 'm'));
    assert.ok(r.error instanceof BrickpostError && r.error.code === code, `${code}: ${String(r.error)}`);
    assert.match((r.error as Error).message, message);
  }
});

test('textLines: a line past the limit is refused after reading little more than the limit, whatever the pieces', async () => {
  const max = 1 << 20;
  for (const [byte, what] of [
    [0x20, 'spaces'],
    [0x61, 'a name'],
  ] as const) {
    let read = 0;
    const counted = async function* (): AsyncGenerator<Buffer> {
      for await (const p of inflate(once(zstd('{"t":"x"}\n'), rle(byte, GIB)), what)) {
        read += p.length;
        yield p;
      }
    };
    const r = await drain(textLines(counted(), 'data/manifest.age', max));
    assert.ok(r.error instanceof BrickpostError && r.error.code === 'LIMIT_EXCEEDED', String(r.error));
    assert.equal((r.error as Error).message, `data/manifest.age line 2: longer than the limit of ${max} characters (UTF-16 code units)`);
    assert.ok(read < max + 2 * INFLATE_PIECE, `${what}: ${read} bytes decoded`);
  }
});

test('textLines: one huge piece is read a slice at a time, so invalid UTF-8 and long lines are found in bounded memory', async () => {
  const big = Buffer.alloc(64 << 20, 0x20);
  const r = await drain(textLines(once(big), 'w', 1 << 20));
  assert.ok(r.error instanceof BrickpostError && r.error.code === 'LIMIT_EXCEEDED');
  const bad = Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('\n')]);
  const u = await drain(textLines(once(bad), 'w', 1 << 20));
  assert.ok(u.error instanceof BrickpostError && u.error.code === 'MALFORMED');
  assert.equal((u.error as Error).message, 'w line 2: not valid UTF-8 (bytes ed a0 80 0a at text offset 3)');
});
