import { test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SeenFilter } from '../src/pack/seen-filter.js';

test('seen filter: every added id is found, few others are', () => {
  const f = new SeenFilter(10_000);
  const added = Array.from({ length: 10_000 }, () => randomBytes(32));
  for (const id of added) f.add(id);
  for (const id of added) assert.equal(f.mayHave(id), true);
  let falsePositives = 0;
  for (let i = 0; i < 10_000; i++) if (f.mayHave(randomBytes(32))) falsePositives++;
  assert.ok(falsePositives < 300, `${falsePositives} false positives in 10000`);
});

test('seen filter: starts small, grows in stages as ids come, and stays within its budget', () => {
  const f = new SeenFilter(1000, 64 << 10);
  const small = f.bytes;
  assert.ok(small <= 8 << 10, `first stage ${small} bytes`);
  const added = Array.from({ length: 40_000 }, () => randomBytes(32));
  for (const id of added) f.add(id);
  assert.ok(f.bytes > small, 'it grew');
  assert.ok(f.bytes <= 64 << 10, `${f.bytes} bytes, past the budget`);
  for (const id of added) assert.equal(f.mayHave(id), true);
  let falsePositives = 0;
  for (let i = 0; i < 10_000; i++) if (f.mayHave(randomBytes(32))) falsePositives++;
  assert.ok(falsePositives < 300, `${falsePositives} false positives in 10000`);
});

test('seen filter: past its budget it answers "maybe" more often, never "no" for an added id', () => {
  const f = new SeenFilter(1000, 16 << 10);
  const added = Array.from({ length: 50_000 }, () => randomBytes(32));
  for (const id of added) f.add(id);
  assert.ok(f.bytes <= 16 << 10);
  for (const id of added) assert.equal(f.mayHave(id), true);
});
