/**
 * Fuzzing of the custody log's parsers (FORMAT.md §custody): the log file,
 * one event line, and the chain check. Same property and settings as
 * fuzz.test.ts (see fuzz-util.ts); `npm run fuzz` runs them longer.
 */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import {
  checkCustodyChain,
  custodyActor,
  formatCustodyEvent,
  formatCustodyLog,
  minisign,
  parseCustodyEvent,
  splitCustodyLog,
  ZERO_HASH,
  type CustodyEventFields,
  type CustodyEventLine,
} from '../src/index.js';
import { bytesInput, fc, fuzz, mutatedBytes, textInput } from './fuzz-util.js';

const publisher = minisign.generateSigningKey();
const shipment = '20261122T050811Z-41d596c8';
const drive = '1 of 2';
const expect = { shipment, drive, publisherKeyId: minisign.keyIdHex(publisher.keyId) };

function chain(): CustodyEventLine[] {
  const events: CustodyEventLine[] = [];
  const add = (type: CustodyEventFields['type'], details: CustodyEventFields['details'], key: minisign.SigningKey, name: string): void => {
    const n = events.length + 1;
    const at = `2026-11-22T05:0${n}:11.909Z`;
    const fields = { n, type, at, shipment, drive, actor: custodyActor(name, key), details, prev: events.at(-1)?.hash ?? ZERO_HASH };
    events.push(formatCustodyEvent(fields, key));
  };
  add('packed', { files: 3, bytes: 4096, packs: 1, payloadFiles: 4, payloadBytes: 5000 }, publisher, 'Example Lab');
  add('sealed', { manifest: 'a'.repeat(64), payloadManifest: 'b'.repeat(64), bagInfo: 'c'.repeat(64) }, publisher, 'Example Lab');
  return events;
}

const EVENTS = chain();
const LINES = EVENTS.map((e) => e.line);
const LOG = Buffer.from(formatCustodyLog(LINES), 'utf8');

test('fuzz custody log: splitCustodyLog', () =>
  fuzz(
    'custody.splitCustodyLog',
    fc.oneof(bytesInput([LOG]), mutatedBytes([LOG])),
    (bytes) => splitCustodyLog(bytes),
    (bytes, lines) => {
      // What splits is exactly the text after the version line.
      assert.equal(formatCustodyLog(lines), bytes.toString('utf8'));
    },
    { runs: 300 },
  ));

test('fuzz custody event: parseCustodyEvent', () =>
  fuzz(
    'custody.parseCustodyEvent',
    textInput(LINES),
    (line) => parseCustodyEvent(line),
    (line, e) => {
      assert.equal(e.line, line);
      assert.match(e.hash, /^[0-9a-f]{64}$/);
    },
    { runs: 300 },
  ));

test('fuzz custody chain: a chain that checks out is the one that was signed', () =>
  fuzz(
    'custody.checkCustodyChain',
    mutatedBytes([LOG], 4),
    (bytes) => checkCustodyChain(splitCustodyLog(bytes), expect),
    (bytes, result) => {
      if (result.brokenAt !== null) {
        assert.ok(result.events[result.brokenAt - 1]!.problem, 'brokenAt names an event with a problem');
        return;
      }
      // Unbroken: every line must be one of the signed lines, in order, from
      // the first (a log cut after an event is not detectable here, §custody).
      const lines = splitCustodyLog(bytes);
      assert.deepEqual(lines, LINES.slice(0, lines.length));
    },
    { runs: 300 },
  ));
