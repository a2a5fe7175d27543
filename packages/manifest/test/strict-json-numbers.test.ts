/**
 * Strict JSON's integers are scanned by hand: for any text that starts
 * like a number, the parser gives the value, or refuses with the words and
 * offset, that the grammar's regular expression (the former scanner, kept
 * here as the reference) gives.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { parseStrictJson } from '../src/records/json.js';

/** What `[text]` parses to by the reference: the array, or the message of the refusal. */
function reference(all: string): unknown {
  // The array skips white space before its value.
  const lead = /^[ \t\r\n]*/.exec(all)![0].length;
  const text = all.slice(lead);
  const at = 1 + lead;
  const fail = (what: string): string => `json: ${what} at offset ${at}`;
  const m = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  m.lastIndex = 0;
  const r = m.exec(text);
  if (!r) return /^[-0-9]/.test(text) ? fail('malformed number') : undefined;
  if (r[1] !== undefined || r[2] !== undefined) return fail('only integers are allowed');
  const n = Number(r[0]);
  if (!Number.isSafeInteger(n)) return fail(`integer ${r[0]} is outside ±(2^53 − 1)`);
  if (r[0] === '-0') return fail('negative zero -0');
  const end = r[0].length;
  if (end === text.length) return [n];
  const rest = text.slice(end);
  if (/^[ \t\r\n]*$/.test(rest)) return [n];
  return undefined;
}

function parsed(text: string): unknown {
  try {
    return parseStrictJson(`[${text}]`);
  } catch (e) {
    return (e as Error).message;
  }
}

const check = (text: string): void => {
  const want = reference(text);
  const got = parsed(text);
  // Where no number starts, or one ends before the text does, the array parses the rest: not the scanner's to judge.
  if (want !== undefined) assert.deepEqual(got, want, JSON.stringify(text));
};

test('integers at their limits, and every refusal', () => {
  for (const t of [
    '0',
    '-1',
    '7',
    '10',
    '9007199254740991',
    '-9007199254740991',
    '9007199254740992',
    '-9007199254740992',
    '123456789012345',
    '1234567890123456',
    '99999999999999999999',
    '-0',
    '-00',
    '00',
    '01',
    '-',
    '-a',
    '1.5',
    '1.',
    '1.e5',
    '1e5',
    '1E+5',
    '1e-5',
    '1e',
    '1e+',
    '-0.0',
    '0e0',
    '12a',
    '1 ',
    ' 1',
    '1,2',
    '000000000000000001',
  ])
    check(t);
});

test('any text of number characters', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('-', '+', '0', '1', '5', '9', '.', 'e', 'E', ' '), maxLength: 24 }), (t) => check(t)),
    { numRuns: 20_000 },
  );
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }), (n) => check(String(n))),
    { numRuns: 5_000 },
  );
});
