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
