// NativeBytes.moveInto (native core, bytes.rs): a delta the pack reader
// decoded is read in JavaScript from one reused buffer; moveInto copies
// the bytes there and frees them, and refuses what it cannot do.
import { afterAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNative, type NativeBytes } from '@brickpost/native';
import { chunkKey } from '../src/chunk/index.js';
import { nativePipeline } from '../src/chunk/native-pipeline.js';

const native = loadNative();
// The core is optional where Rust is not installed or switched off on purpose (BRICKPOST_NATIVE=0); one that failed to build fails here.
const absent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const why = absent ? `no native core here (${native.reason})` : null;

const root = mkdtempSync(join(tmpdir(), 'brickpost-native-bytes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(why)(`native bytes moved into a reused buffer${why ? ` [skipped: ${why}]` : ''}`, () => {
  test('moveInto copies the bytes to the start, frees them once, and refuses a buffer too small', async () => {
    const path = join(root, 'f');
    // Random bytes: stored raw, so the frame holds them as they are.
    writeFileSync(path, createCipheriv('aes-256-ctr', Buffer.alloc(32, 1), Buffer.alloc(16)).update(Buffer.alloc(100_000)));
    const nat = nativePipeline(native.binding!, { key: chunkKey(Buffer.alloc(32, 2)), level: 3 });
    try {
      const frameOf = async (): Promise<NativeBytes> => (await nat.encodeFile(path, 100_000)).chunks[0]!.frame as NativeBytes;
      const expected = (await frameOf()).toBuffer();
      const frame = await frameOf();
      assert.equal(frame.length, expected.length);

      const small = Buffer.alloc(frame.length - 1);
      assert.throws(() => frame.moveInto(small), /cannot take/);
      // Refused, the bytes are still there.
      const into = Buffer.alloc(frame.length + 10, 0xee);
      assert.equal(frame.moveInto(into), expected.length);
      assert.deepEqual(into.subarray(0, expected.length), expected);
      assert.deepEqual(into.subarray(expected.length), Buffer.alloc(10, 0xee));
      // Moved once: they are gone.
      assert.throws(() => frame.moveInto(into), /already used/);
      assert.throws(() => frame.toBuffer(), /already used/);
    } finally {
      await nat.close();
    }
  });
});
