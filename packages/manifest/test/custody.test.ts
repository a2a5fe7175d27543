/**
 * The custody log format (FORMAT.md §custody): events written by
 * formatCustodyEvent read back, and each MUST-reject rule of §19.2 and
 * §19.3 refused with its code.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  checkCustodyChain,
  custodyActor,
  custodyLineHash,
  custodySignatureValid,
  formatCustodyEvent,
  formatCustodyLog,
  isBrickpostError,
  MAX_CUSTODY_FILE,
  minisign,
  parseCustodyEvent,
  splitCustodyLog,
  ZERO_HASH,
  type CustodyEventFields,
} from '../src/index.js';

const key = minisign.generateSigningKey();
const other = minisign.generateSigningKey();
const shipment = '20261122T050811Z-41d596c8';
const packed: CustodyEventFields = {
  n: 1,
  type: 'packed',
  at: '2026-11-22T05:08:11.909Z',
  shipment,
  drive: '1 of 1',
  actor: custodyActor('Example Lab', key),
  details: { files: 1, bytes: 6, packs: 1, payloadFiles: 2, payloadBytes: 987 },
  prev: ZERO_HASH,
};
const first = formatCustodyEvent(packed, key);
const second = formatCustodyEvent(
  {
    ...packed,
    n: 2,
    type: 'sealed',
    at: '2026-11-22T05:08:12.000Z',
    details: { manifest: 'a'.repeat(64), payloadManifest: 'b'.repeat(64), bagInfo: 'c'.repeat(64) },
    prev: first.hash,
  },
  key,
);

test('an event reads back as written, signed, and hashed over its line', () => {
  const e = parseCustodyEvent(first.line);
  assert.deepEqual({ ...e, line: undefined, hash: undefined, sig: undefined }, { ...packed, line: undefined, hash: undefined, sig: undefined });
  assert.equal(e.hash, custodyLineHash(first.line));
  assert.ok(custodySignatureValid(e));
  assert.match(first.line, /^\{"n":1,"type":"packed",.*,"prev":"0{64}","sig":"[A-Za-z0-9+/]{86}=="\}$/);
  assert.deepEqual(checkCustodyChain([first.line, second.line], { shipment, drive: '1 of 1', publisherKeyId: minisign.keyIdHex(key.keyId) }).brokenAt, null);
});

test('a signature by another key than the actor named does not verify', () => {
  const forged = formatCustodyEvent({ ...packed, actor: custodyActor('Example Lab', key) }, other);
  assert.equal(custodySignatureValid(forged), false);
  assert.equal(checkCustodyChain([forged.line], { shipment, drive: '1 of 1' }).brokenAt, 1);
});

const rejects = (line: string, code: string, re: RegExp): void => {
  assert.throws(
    () => parseCustodyEvent(line),
    (e: unknown) => isBrickpostError(e) && e.code === code && re.test(e.message),
    line.slice(0, 80),
  );
};

test('events that break §19.3 are refused', () => {
  const l = first.line;
  rejects(l.replace('{"n":1,', '{"n":1,"n":1,'), 'MALFORMED', /duplicate|twice/i);
  rejects(l.replace('"n":1', '"n":1.0'), 'MALFORMED', /./);
  rejects(l.replace('"n":1', '"n":0'), 'MALFORMED', /n is 0/);
  rejects(l.replace('{"n":1,"type":"packed"', '{"type":"packed","n":1'), 'MALFORMED', /order/);
  rejects(l.replace('"prev":', '"extra":1,"prev":'), 'MALFORMED', /"extra"/);
  rejects(l.replace('"type":"packed"', '"type":"opened"'), 'MALFORMED', /unknown event type "opened"/);
  rejects(l.replace('"drive":"1 of 1"', '"drive":"3 of 2"'), 'MALFORMED', /drive "3 of 2"/);
  rejects(l.replace('"at":"2026-11-22T05:08:11.909Z"', '"at":"2026-11-22 05:08:11"'), 'MALFORMED', /not a UTC time/);
  rejects(l.replace(`"shipment":"${shipment}"`, '"shipment":"../x"'), 'MALFORMED', /not a shipment id/);
  rejects(l.replace(/"keyId":"[0-9A-F]{16}"/, '"keyId":"0000000000000000"'), 'MALFORMED', /is not the key id of its publicKey/);
  rejects(l.replace('"files":1,', ''), 'MALFORMED', /lacks the member "files"/);
  rejects(l.replace('"files":1', '"files":-1'), 'MALFORMED', /files is not a whole number/);
  rejects(l.replace(`"prev":"${ZERO_HASH}"`, `"prev":"${'A'.repeat(64)}"`), 'MALFORMED', /prev/);
  rejects(l.replace(/"sig":"[^"]*"/, '"sig":"AAAA"'), 'MALFORMED', /./);
  rejects(l.replace('"name":"Example Lab"', `"name":"${'x'.repeat(9000)}"`), 'LIMIT_EXCEEDED', /longer than 8192 bytes/);
  rejects(l.replace('"name":"Example Lab"', '"name":"\\ud800"'), 'MALFORMED', /./);
});

test('logs that break §19.2 are refused', () => {
  const good = formatCustodyLog([first.line, second.line]);
  assert.deepEqual(splitCustodyLog(Buffer.from(good)), [first.line, second.line]);
  const bad = (text: string | Buffer, code: string): void => {
    assert.throws(
      () => splitCustodyLog(Buffer.isBuffer(text) ? text : Buffer.from(text)),
      (e: unknown) => isBrickpostError(e, code as never),
      String(text).slice(0, 40),
    );
  };
  bad(good.replace('brickpost-custody/v1', 'brickpost-custody/v2'), 'UNSUPPORTED_VERSION');
  bad(good.replace('brickpost-custody/v1', 'custody'), 'MALFORMED');
  bad('\ufeff' + good, 'MALFORMED');
  bad(good.replace(/\n/g, '\r\n'), 'MALFORMED');
  bad(good.slice(0, -1), 'TRUNCATED');
  bad(Buffer.from([...Buffer.from('brickpost-custody/v1\n'), 0xff, 0x0a]), 'MALFORMED');
  bad(Buffer.alloc(MAX_CUSTODY_FILE + 1, 0x0a), 'LIMIT_EXCEEDED');
});

test('the chain check gives the first broken position and what failed', () => {
  const expect = { shipment, drive: '1 of 1', publisherKeyId: minisign.keyIdHex(key.keyId) };
  assert.equal(checkCustodyChain([second.line, first.line], expect).brokenAt, 1);
  const c = checkCustodyChain([first.line, first.line], expect);
  assert.equal(c.brokenAt, 2);
  assert.match(c.events[1]!.problem!.message, /^event 2 \(packed, .*\): its n is 1, expected 2/);
  const elsewhere = checkCustodyChain([first.line], { ...expect, drive: '2 of 3' });
  assert.match(elsewhere.events[0]!.problem!.message, /names drive "1 of 1", not 2 of 3/);
  const sub = formatCustodyEvent({ ...packed, n: 3, type: 'packed', actor: custodyActor('Sub', other), prev: second.hash }, other);
  assert.match(checkCustodyChain([first.line, second.line, sub.line], expect).events[2]!.problem!.message, /a packed event may only be event 1/);
});
