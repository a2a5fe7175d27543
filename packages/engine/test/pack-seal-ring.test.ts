/**
 * The sealed-output Buffers of a share's packs (SealRing) are allocated
 * once and passed from pack to pack: the second pack seals into the same
 * Buffers as the first, there are never more than four, and none grows
 * much past a seal batch (2 MiB) unless one frame is larger. Each pack
 * still decrypts with age to its header frame and the frames written.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { age } from '@brickpost/manifest';
import { loadNative } from '@brickpost/native';
import { SeqWriter } from '../src/io/seq-writer.js';
import { packHeaderFrame, PackWriter, SealRing } from '../src/pack/pack-writer.js';

const native = loadNative();
// The core is optional where Rust is not installed or switched off on purpose; a core that failed to build fails here.
const optionalAbsent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);

const root = mkdtempSync(join(tmpdir(), 'bp-seal-ring-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A deterministic byte stream. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

test.skipIf(optionalAbsent)('packs of one share seal into the same few Buffers, each about a seal batch', async () => {
  const core = native.binding;
  assert.ok(core, `the native core did not load: ${native.reason ?? 'no reason given'}`);
  const { identity, recipient } = age.generateX25519Identity();
  const ring = new SealRing();
  const SHIPMENT = '20260101T000000Z-00000000';
  // 300 KiB frames fill batches unevenly; in the first pack, one 3 MiB frame is larger than a batch.
  const small = Array.from({ length: 24 }, () => 300 << 10);
  const sizesOf = (index: number): number[] => (index === 0 ? [...small, 3 << 20, ...small.slice(0, 8)] : small);
  let first: ArrayBufferLike[] = [];
  for (const index of [0, 1]) {
    const path = join(root, `${index}.age`);
    const w = await PackWriter.create(await SeqWriter.create(path, { hash: false }), index, 0, [age.parseRecipient(recipient)], SHIPMENT, core, ring);
    const frames = sizesOf(index).map((n, i) => bytes(n, 1000 * index + i + 1));
    for (const f of frames) await w.add(f);
    await w.close();
    assert.deepEqual(age.decrypt(readFileSync(path), [age.parseIdentity(identity)]), Buffer.concat([packHeaderFrame(SHIPMENT, index), ...frames]));
    assert.ok(ring.slots.length > 0 && ring.slots.length <= 4, `${ring.slots.length} Buffers in the ring`);
    // A batch holds at most 2 MiB, or one larger frame alone, plus a STREAM chunk and the tags.
    for (const s of ring.slots) assert.ok(s.buf.length <= (3 << 20) + (128 << 10), `a ring Buffer of ${s.buf.length} bytes`);
    if (index === 0) first = ring.slots.map((s) => s.buf.buffer);
  }
  assert.equal(ring.slots.length, first.length);
  assert.ok(
    ring.slots.every((s, i) => s.buf.buffer === first[i]),
    'the second pack sealed into the Buffers of the first',
  );
});
