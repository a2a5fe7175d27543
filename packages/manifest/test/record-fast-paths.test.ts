/**
 * The manifest reader's fast paths for the common case (an ASCII path, a
 * chunk ref of the usual shapes) must decide exactly as the general checks
 * do: the same value, or the same error in the same words.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { assertEntryPath, checkPath, checkPathByRules, checkPathName } from '../src/records/path.js';
import { checkRecord } from '../src/records/schema.js';
import { RECORD_LIMITS } from '../src/records/types.js';
import type { Json } from '../src/records/json.js';

/** What fn gives: its value, or its error's code and message. */
function outcome<T>(fn: () => T): { value: T } | { code: unknown; message: string } {
  try {
    return { value: fn() };
  } catch (e) {
    return { code: (e as { code?: unknown }).code, message: (e as Error).message };
  }
}

// Components built from the characters each rule turns on: dots, slashes, NUL, DEL, the first non-ASCII
// code units, a lone surrogate, an astral character; and long runs near the 255-byte and 4,096-byte limits.
const piece = fc.oneof(
  fc.constantFrom('a', 'B', '.', '..', '/', '\u0000', '\u007f', '\u0080', 'é', '\ud800', '\ud83d\ude00', ' ', '\\', 'con'),
  fc.integer({ min: 250, max: 260 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1, max: 3 }).map((n) => 'y'.repeat(4090 + n)),
);
const paths = fc.oneof(
  fc.array(piece, { minLength: 0, maxLength: 8 }).map((a) => a.join('')),
  fc.array(fc.constantFrom('a', 'bb', '.', '..', ''), { minLength: 1, maxLength: 6 }).map((a) => a.join('/')),
  fc.integer({ min: 1020, max: 1030 }).map((n) => Array.from({ length: n }, () => 'd').join('/')),
);

test('checkPath, checkPathName and assertEntryPath decide as the rules one by one do, in their words', () => {
  fc.assert(
    fc.property(paths, fc.constantFrom<1 | 2>(1, 2), (path, version) => {
      const rules = outcome(() => checkPathByRules(path, 'm line 2', version));
      const parts = outcome(() => checkPath(path, 'm line 2', version));
      const name = outcome(() => checkPathName(path, 'm line 2', version));
      assert.deepEqual(parts, rules, JSON.stringify(path));
      if ('value' in rules) assert.deepEqual(name, { value: rules.value[rules.value.length - 1] }, JSON.stringify(path));
      else assert.deepEqual(name, rules, JSON.stringify(path));
      if (version === 2) {
        const asserted = outcome(() => assertEntryPath(path, 'm line 2'));
        assert.deepEqual(asserted, 'value' in rules ? { value: undefined } : rules, JSON.stringify(path));
      }
    }),
    { numRuns: 3000 },
  );
});

test('the plain ASCII rules at their edges', () => {
  const longest = 'n'.repeat(255);
  assert.equal(checkPathName(`a/${longest}`, 'm', 2), longest);
  assert.throws(() => checkPathName(`a/${longest}n`, 'm', 2), /component longer than 255 bytes/);
  assert.equal(checkPathName('.a/..b/c.', 'm', 2), 'c.');
  for (const [p, why] of [
    ['a/./b', /dot component/],
    ['a/..', /dot component/],
    ['a//b', /empty component/],
    ['/a', /absolute path/],
    ['a/', /empty component/],
    ['a\u0000b', /NUL in name/],
  ] as const) {
    assert.throws(() => checkPathName(p, 'm', 2), why, p);
  }
  assert.equal(checkPathName(Array.from({ length: 1024 }, () => 'd').join('/'), 'm', 2), 'd');
  assert.throws(() => checkPathName(Array.from({ length: 1025 }, () => 'd').join('/'), 'm', 2), /nested deeper than 1024/);
});

const id = 'ab'.repeat(32);
const fileWith = (c: Json): Json => ({ t: 'file', p: 'f', size: 1, mode: 420, mtime: '1', c });

test('chunk refs: every shape and range, as the general check words it', () => {
  const ok = (c: Json): unknown => (checkRecord(fileWith(c), 'm line 3', 2) as { c: unknown }).c;
  assert.deepEqual(ok([[id, 5]]), [[id, 5]]);
  assert.deepEqual(ok([[id, 0, 7, 9, 5]]), [[id, 0, 7, 9, 5]]);
  assert.deepEqual(ok([[id, 0, 7, 9, 5, 3]]), [[id, 0, 7, 9, 5, 3]]);
  assert.deepEqual(ok([[12]]), [[12]]);
  assert.deepEqual(ok([[id, RECORD_LIMITS.maxChunkLength]]), [[id, RECORD_LIMITS.maxChunkLength]]);
  assert.deepEqual(ok([[id, Number.MAX_SAFE_INTEGER, RECORD_LIMITS.maxPackPlain, RECORD_LIMITS.maxFrameLength, 1]]), [
    [id, Number.MAX_SAFE_INTEGER, RECORD_LIMITS.maxPackPlain, RECORD_LIMITS.maxFrameLength, 1],
  ]);
  // A ref the fast path took must not be the parsed array itself: the record is the reader's own.
  const given: Json = [id, 5];
  assert.notEqual((ok([given]) as unknown[])[0], given);
  const refused: Array<[Json, RegExp]> = [
    [[[id.toUpperCase(), 5]], /chunk 0: chunk id must be 64 lower-case hex digits/],
    [[[id.slice(1), 5]], /chunk 0: chunk id must be 64 lower-case hex digits/],
    [[[`${id.slice(1)}g`, 5]], /chunk 0: chunk id must be 64 lower-case hex digits/],
    [[[`${id.slice(1)}é`, 5]], /chunk 0: chunk id must be 64 lower-case hex digits/],
    [[[5, 5]], /chunk 0: chunk id must be 64/],
    [
      [
        [id, 5],
        [id, RECORD_LIMITS.maxChunkLength + 1],
      ],
      /chunk 1: field length must be an integer/,
    ],
    [[[id, 1.5]], /chunk 0: field length must be an integer/],
    [[[id, -1]], /chunk 0: field length must be an integer/],
    [[[id, 0, RECORD_LIMITS.maxPackPlain + 1, 9, 5]], /chunk 0: field offset must be an integer/],
    [[[id, 0, 7, RECORD_LIMITS.maxFrameLength + 1, 5]], /chunk 0: field frame length must be an integer/],
    [[[id, -1, 7, 9, 5]], /chunk 0: field pack must be an integer/],
    [[[id, 0, 7, 9, '5']], /chunk 0: field length must be an integer/],
    [[[id, 0, 7, 9]], /chunk 0: chunk must be \[id, length\]/],
    [[[0]], /chunk 0: a hole must be at least one byte long/],
    [[{ id, len: 5 }], /chunk 0: chunk must be \[id, length\]/],
  ];
  for (const [c, why] of refused) assert.throws(() => checkRecord(fileWith(c), 'm line 3', 2), why, JSON.stringify(c));
});

test('record fields: unknown before missing, and the optional ones only where the version has them', () => {
  const base = { t: 'file', p: 'f', size: 1, mode: 420, mtime: '1', c: [] } as Record<string, Json>;
  assert.throws(() => checkRecord({ ...base, zz: 1 }, 'm', 2), /unknown field "zz"|unknown field 'zz'|unknown field zz/);
  const { size: _size, ...noSize } = base;
  assert.throws(() => checkRecord(noSize, 'm', 2), /missing field .?size/);
  assert.throws(() => checkRecord({ ...noSize, zz: 1 }, 'm', 2), /unknown field .?zz/);
  assert.throws(() => checkRecord({ ...base, changing: true }, 'm', 1), /unknown field .?changing/);
  assert.equal((checkRecord({ ...base, changing: true }, 'm', 2) as { changing?: true }).changing, true);
  const { mtime: _mtime, ...dirNoMtime } = { t: 'dir', p: 'd', mode: 493, mtime: '1' };
  assert.throws(() => checkRecord(dirNoMtime, 'm', 2), /missing field .?mtime/);
  assert.throws(() => checkRecord({ t: 'dir', p: 'd', mode: 493, mtime: '1', o: [0, 0, 'a', 'b'] }, 'm', 1), /unknown field .?o/);
});
