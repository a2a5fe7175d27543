import { test } from 'vitest';
import assert from 'node:assert/strict';
import { checkRecord, recordToJson } from '../src/records/schema.js';
import type { FileRecord } from '../src/records/types.js';

const file = { t: 'file', p: 'logs/run.log', size: 4, mode: 0o644, mtime: '1700000000000000000', c: [['a'.repeat(64), 4]] };
const refused =
  (re: RegExp) =>
  (e: unknown): boolean =>
    (e as { code?: string }).code === 'MALFORMED' && re.test((e as Error).message);

test('v2: a file record may carry changing: true, and keeps it when written', () => {
  const r = checkRecord({ ...file, changing: true }, 'line 2', 2) as FileRecord;
  assert.equal(r.changing, true);
  assert.deepEqual(recordToJson(r, 2), { ...file, changing: true });
  assert.equal((checkRecord(file, 'line 2', 2) as FileRecord).changing, undefined, 'absent: not marked');
  assert.ok(!('changing' in (recordToJson(checkRecord(file, 'line 2', 2), 2) as object)), 'an unmarked record is written as before');
});

test('v2: the last more record of a file may carry it, with or without chunks', () => {
  assert.deepEqual(checkRecord({ t: 'more', c: [], changing: true }, 'line 3', 2), { t: 'more', c: [], changing: true });
  assert.deepEqual(checkRecord({ t: 'more', c: [['b'.repeat(64), 1]] }, 'line 3', 2), { t: 'more', c: [['b'.repeat(64), 1]] });
});

test('changing is only ever true, and unknown to v1 manifests', () => {
  assert.throws(() => checkRecord({ ...file, changing: false }, 'line 2', 2), refused(/line 2: field changing must be true when present/));
  assert.throws(() => checkRecord({ ...file, changing: 1 }, 'line 2', 2), refused(/field changing must be true/));
  assert.throws(() => checkRecord({ ...file, changing: true }, 'line 2', 1), refused(/unknown field "changing"/));
  assert.throws(() => checkRecord({ t: 'more', c: [], changing: true }, 'line 3', 1), refused(/unknown field "changing"/));
});
