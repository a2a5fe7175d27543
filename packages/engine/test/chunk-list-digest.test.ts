// The digest by which ingest's plan compares a file's chunk list with DEST's (ingest/old-tree.ts).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { ChunkRef } from '@brickpost/manifest';
import { ChunkListDigest } from '../src/ingest/old-tree.js';

const hex = (n: number): string => Buffer.alloc(32, n).toString('hex');
const digestOf = (refs: ChunkRef[]): Buffer => {
  const d = new ChunkListDigest();
  for (const r of refs) d.addRef(r);
  return d.digest();
};

test('equal lists give equal digests, whatever the refs say of where a chunk is', () => {
  assert.deepEqual(digestOf([[hex(1), 0, 10, 5, 100]]), digestOf([[hex(1), 100]]));
  assert.deepEqual(
    digestOf([
      [hex(1), 100],
      [hex(2), 7],
    ]),
    digestOf([
      [hex(1), 3, 0, 9, 100],
      [hex(2), 7],
    ]),
  );
  assert.deepEqual(digestOf([]), digestOf([]));
});

test('a different id, length, order or hole gives a different digest', () => {
  const one = digestOf([[hex(1), 100]]);
  assert.notDeepEqual(one, digestOf([[hex(2), 100]]));
  assert.notDeepEqual(one, digestOf([[hex(1), 101]]));
  assert.notDeepEqual(
    digestOf([
      [hex(1), 100],
      [hex(2), 7],
    ]),
    digestOf([
      [hex(2), 7],
      [hex(1), 100],
    ]),
  );
  assert.notDeepEqual(digestOf([[100]]), digestOf([[101]]));
  assert.notDeepEqual(digestOf([[hex(1), 100], [50]]), digestOf([[hex(1), 100]]));
});

test('a one-chunk digest never equals a longer list or an empty one', () => {
  const one = digestOf([[hex(1), 100]]);
  assert.equal(one.length, 36, 'a one-chunk list is its id and length');
  assert.equal(
    digestOf([
      [hex(1), 100],
      [hex(2), 7],
    ]).length,
    32,
  );
  assert.notDeepEqual(one, digestOf([]));
  // A hole of 2^32 bytes or more is pieces: two entries, so hashed.
  assert.equal(digestOf([[2 ** 32 + 5]]).length, 32);
  assert.equal(digestOf([[2 ** 32 - 1]]).length, 36);
});
