/**
 * Receipts (FORMAT.md §16): the strict parser accepts what formatReceipt
 * writes and refuses every deviation the spec names.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { Receipt } from '../src/api/index.js';
import { formatReceipt, parseReceipt, receiptTrustedComment } from '../src/receipt/index.js';
import { SAMPLE_RECEIPT } from './sample-receipt.js';

const good: Receipt = SAMPLE_RECEIPT;

test('a written receipt parses back to itself', () => {
  assert.deepEqual(parseReceipt(Buffer.from(formatReceipt(good)), 'r.json'), good);
  assert.equal(receiptTrustedComment(good), 'brickpost/v1 receipt dataset:1ccfcc4c4c954a50 shipment:S2 seq:2 subscriber:0011E92BA581B15A');
});

test('deviations are refused with the codes of FORMAT.md §16', () => {
  const cases: Array<[string, unknown, string]> = [
    ['unknown member', { ...good, extra: 1 }, 'MALFORMED'],
    ['missing member', { ...good, stateDigest: undefined }, 'MALFORMED'],
    ['newer format', { ...good, format: 'brickpost-receipt/v2' }, 'UNSUPPORTED_VERSION'],
    ['ok with problems', { ...good, verification: { ...good.verification, ok: true } }, 'MALFORMED'],
    ['current not the last applied', { ...good, current: { shipment: 'S1', seq: 1 } }, 'MALFORMED'],
    ['unknown level', { ...good, verification: { ...good.verification, level: 'quick' } }, 'MALFORMED'],
    ['lower-case key id', { ...good, publisher: 'e2e2bef2840cf832' }, 'MALFORMED'],
    ['not a recipient', { ...good, subscriber: { ...good.subscriber, recipient: 'RWQ' } }, 'MALFORMED'],
    ['101 problems', { ...good, verification: { ...good.verification, problems: Array(101).fill(good.verification.problems[0]) } }, 'MALFORMED'],
    ['a fraction', { ...good, verification: { ...good.verification, bytes: 1.5 } }, 'MALFORMED'],
  ];
  for (const [name, value, code] of cases) {
    assert.throws(
      () => parseReceipt(Buffer.from(JSON.stringify(value)), 'r.json'),
      (e: { code: string }) => e.code === code,
      name,
    );
  }
  assert.throws(
    () => parseReceipt(Buffer.from('{"format":"brickpost-receipt/v1","format":"x"}'), 'r.json'),
    (e: { code: string }) => e.code === 'MALFORMED',
    'duplicate key',
  );
  assert.throws(
    () => parseReceipt(Buffer.alloc((1 << 20) + 1, 0x20), 'r.json'),
    (e: { code: string }) => e.code === 'LIMIT_EXCEEDED',
    'too large',
  );
});
