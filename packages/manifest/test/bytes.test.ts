// Byte strings (FORMAT.md §byte-strings): names that need not be UTF-8 held
// as escaped strings, and their field form in a v2 manifest.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { byteLength, compareBytes, displayName, fromBytes, fromField, hasEscapes, isEscapedString, toBytes, toField } from '../src/records/bytes.js';
import { quote } from '../src/errors.js';

test('any bytes but NUL (no name or target holds one) survive bytes → escaped string → bytes → field', () => {
  fc.assert(
    fc.property(fc.uint8Array({ min: 1, maxLength: 64 }), (b) => {
      const s = fromBytes(b);
      assert.deepEqual(toBytes(s), Buffer.from(b));
      assert.equal(isEscapedString(s), true);
      assert.equal(fromBytes(toBytes(s)), s);
      assert.equal(fromField(toField(s), 'test', 'p'), s);
    }),
    { numRuns: 2000 },
  );
});

test('UTF-8 stays text; other bytes become U+DC80–U+DCFF and a U+0000 base64 field', () => {
  assert.equal(fromBytes(Buffer.from('café')), 'café');
  assert.equal(hasEscapes('café'), false);
  assert.equal(toField('café'), 'café');
  const latin1 = fromBytes(Buffer.from([0x6c, 0xe9, 0x74]));
  assert.equal(latin1, 'l\udce9t');
  assert.equal(toField(latin1), '\u0000bOl0');
  // Surrogates encoded in UTF-8 (ED A0 80) and overlong forms are not UTF-8: each byte is escaped.
  assert.equal(fromBytes(Buffer.from([0xed, 0xa0, 0x80])), '\udced\udca0\udc80');
  assert.equal(fromBytes(Buffer.from([0xc0, 0xaf])), '\udcc0\udcaf');
  // An astral character next to an escaped byte.
  const mixed = fromBytes(Buffer.concat([Buffer.from('😀'), Buffer.from([0xff])]));
  assert.deepEqual(toBytes(mixed), Buffer.concat([Buffer.from('😀'), Buffer.from([0xff])]));
});

test('a base64 field is canonical and never spells UTF-8 text', () => {
  assert.throws(() => fromField('\u0000aGVsbG8=', 'w', 'p'), /base64 of UTF-8 text "hello"/);
  assert.throws(() => fromField('\u0000bOl0=', 'w', 'p'), /padded base64/);
  assert.throws(() => fromField('\u0000', 'w', 'p'), /padded base64/);
  assert.throws(() => fromField('\u0000/x==', 'w', 'p'), /non-canonical base64/, 'padding bits that are not zero');
  assert.equal(fromField('\u0000/w==', 'w', 'p'), '\udcff');
});

test('strings with a lone high surrogate are not escaped strings', () => {
  assert.equal(isEscapedString('a\ud800b'), false);
  assert.equal(isEscapedString('a\udcffb'), true);
  assert.equal(isEscapedString('a\udc41'), false, 'an escape of an ASCII byte is not one fromBytes makes');
});

test('displayed names show escaped bytes as \\xNN, in messages too', () => {
  assert.equal(displayName('bad-\udcff\udcfe'), 'bad-\\xff\\xfe');
  assert.equal(quote('bad-\udcff'), '"bad-\\xff"');
  assert.equal(quote('\\udcff'), '"\\\\udcff"', 'a literal backslash-u sequence stays as typed');
  assert.equal(quote('tab\there'), '"tab\\there"');
});

test('byteLength and compareBytes give what toBytes and Buffer.compare give, for any strings', () => {
  // Code units that matter: ASCII, two- and three-byte characters on both sides of the surrogates, surrogates (pairs, escapes, lone ones).
  const units = [0x41, 0x7a, 0xe9, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xd83d, 0xdbff, 0xdc00, 0xdc80, 0xdcff, 0xde00, 0xdfff, 0xe000, 0xfffd, 0xffff];
  const str = fc.array(fc.constantFrom(...units), { maxLength: 6 }).map((u) => String.fromCharCode(...u));
  const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
  fc.assert(
    fc.property(str, str, (a, b) => {
      assert.equal(byteLength(a), toBytes(a).length);
      assert.equal(compareBytes(a, b), Buffer.compare(toBytes(a), toBytes(b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      assert.equal(sign(compareBytes(b, a)) + sign(compareBytes(a, b)), 0);
    }),
    { numRuns: 20000 },
  );
  const bytes = fc.uint8Array({ maxLength: 8 }).map(fromBytes);
  fc.assert(
    fc.property(bytes, bytes, (a, b) => assert.equal(compareBytes(a, b), Buffer.compare(toBytes(a), toBytes(b)))),
    { numRuns: 20000 },
  );
  // U+E000 sorts before U+1F600 by code point and by UTF-8, though its UTF-16 unit is larger.
  assert.equal(compareBytes('\ue000', '😀'), -1);
  assert.equal(compareBytes('ab', 'abc'), -1);
  assert.equal(compareBytes('', ''), 0);
});
