/**
 * Fuzzing of the bag files and the set file of a drive (FORMAT.md §13.2:
 * a drive is hostile input; fuzz-signed.test.ts has the other parsers). Each target gets arbitrary
 * input and mutations of valid encodings made by the writer side, and must
 * return a value or throw a BrickpostError, within the time budget and
 * without allocating from an unchecked length (see fuzz-util.ts). Where it
 * is cheap, a value read back is checked against the writer (round trip).
 *
 * `npm test` runs a few hundred cases per target with a fixed seed;
 * `npm run fuzz` runs the same targets for much longer with a random seed.
 */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import * as bagit from '../src/bag/index.js';
import type { BrickpostError } from '../src/errors.js';
import { packPath } from '../src/records/index.js';
import { formatSetFile, parityPath, parseSetFile, PARITY_FILE_SIZE, type DriveSet, type SetShare } from '../src/set-file.js';
import { FORMAT_VERSION, parseShipmentInfo, shipmentInfoFields, type ShipmentInfo } from '../src/shipment-info.js';
import { arbitraryBytes, arbitraryText, bytesInput, fc, fuzz, mutatedSeed, mutatedText, textInput } from './fuzz-util.js';

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const hex64 = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

// ---------------------------------------------------------------------------
// bag files

const INFO: ShipmentInfo = {
  format: FORMAT_VERSION,
  shipment: '01JD3X8Q6V4ZKQ0M2N7T5R9W1A',
  dataset: 'survey',
  datasetId: '1ccfcc4c4c954a50',
  seq: 3,
  parent: '01JD3X8Q6V4ZKQ0M2N7T5R9W0Z',
  label: 'march\ndata of the\tfield station',
  publisher: 'Field Station Nord',
  publisherKey: 'E2E2BEF2840CF832',
  created: '2026-03-01T12:00:00.000Z',
  entries: 12,
  files: 9,
  bytes: 123456789,
  packs: 3,
  payloadBytes: 130000000,
  payloadFiles: 5,
  bagIndex: 2,
  bagCount: 3,
  setParity: 1,
  recovery: 5,
};
const INFO_ONE: ShipmentInfo = { ...INFO, parent: null, label: '', bagIndex: 1, bagCount: 1, setParity: 0, recovery: 0, seq: 0 };
const BAG_INFOS = [
  bagit.formatBagInfo(shipmentInfoFields(INFO)),
  bagit.formatBagInfo(shipmentInfoFields(INFO_ONE)),
  'Contact-Name: A\tB\nExternal-Description: one\n  two\n\tthree\r\nPayload-Oxum: 0.0\n',
].map(utf8);

test('fuzz bagit.txt: parseBagitTxt', () =>
  fuzz(
    'bagit.parseBagitTxt',
    fc.oneof(bytesInput([utf8(bagit.BAGIT_TXT), utf8(bagit.BAGIT_TXT.replaceAll('\n', '\r\n'))]), textInput([bagit.BAGIT_TXT])),
    (input) => bagit.parseBagitTxt(input),
    (_input, d) => assert.deepEqual(d, { version: '1.0', encoding: 'UTF-8' }),
    { runs: 300 },
  ));

test('fuzz bag-info.txt: parseBagInfo (bytes and text), round trip through formatBagInfo', () =>
  fuzz(
    'bagit.parseBagInfo',
    fc.oneof(bytesInput(BAG_INFOS), textInput(BAG_INFOS)),
    (input) => bagit.parseBagInfo(input),
    (_input, fields) => {
      assert.ok(fields.length <= bagit.MAX_BAG_INFO_FIELDS);
      // Known and left alone: "Label:" followed by a continuation line reads as a
      // value whose first line is empty, which formatBagInfo refuses to write.
      if (fields.some(([, v]) => v.startsWith('\n'))) return;
      assert.deepEqual(bagit.parseBagInfo(bagit.formatBagInfo(fields)), fields);
    },
    { runs: 400 },
  ));

test('fuzz bag-info.txt: formatBagInfo of generated fields reads back', () =>
  fuzz(
    'bagit.formatBagInfo round trip',
    fc.array(fc.tuple(arbitraryText(24), arbitraryText(64)), { maxLength: 8 }),
    (fields) => bagit.parseBagInfo(bagit.formatBagInfo(fields)),
    (fields, back) => assert.deepEqual(back, fields),
    { runs: 300 },
  ));

test('fuzz bag-info.txt: parseShipmentInfo and parsePayloadOxum', () => {
  // Lenient split into fields, so mutations reach parseShipmentInfo's own checks.
  const lenient = (text: string): Array<[string, string]> =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l): [string, string] => {
        const i = l.indexOf(': ');
        return i < 0 ? [l, ''] : [l.slice(0, i), l.slice(i + 2)];
      });
  return fuzz(
    'parseShipmentInfo',
    mutatedText(BAG_INFOS.slice(0, 2), 4),
    (text) => {
      const fields = lenient(text);
      const oxum = fields.find(([k]) => k === 'Payload-Oxum');
      if (oxum) bagit.parsePayloadOxum(oxum[1]);
      return parseShipmentInfo(fields);
    },
    (_text, info) => {
      for (const k of ['seq', 'entries', 'files', 'bytes', 'packs', 'payloadBytes', 'payloadFiles'] as const) assert.ok(Number.isSafeInteger(info[k]));
      assert.ok(info.bagIndex >= 1 && info.bagIndex <= info.bagCount && info.setParity < info.bagCount && info.recovery <= 100);
      assert.deepEqual(parseShipmentInfo(shipmentInfoFields(info)), info);
    },
    { runs: 400 },
  );
});

const ENTRIES: bagit.ManifestEntry[] = [
  { path: 'data/manifest.age', digest: hex64(1) },
  { path: 'data/packs/000/000000.age', digest: hex64(2) },
  { path: 'data/odd%name 100%', digest: hex64(3) },
  { path: 'data/caf\u00e9/\u00fcber \u00e9t\u00e9.txt', digest: hex64(0xab) },
];
const TAG_ENTRIES: bagit.ManifestEntry[] = [
  { path: 'bagit.txt', digest: hex64(4) },
  { path: 'bag-info.txt', digest: hex64(5) },
  { path: 'manifest-sha256.txt', digest: hex64(6) },
];

test('fuzz manifest-sha256.txt / tagmanifest-sha256.txt: parseManifest, round trip through formatManifest', () => {
  const seeds = [
    { payload: true, text: bagit.formatManifest(ENTRIES) },
    { payload: false, text: bagit.formatManifest(TAG_ENTRIES) },
    { payload: true, text: `${hex64(7).toUpperCase()}\t \tdata/a\n${hex64(8)} data/b/c\r\n` },
  ];
  return fuzz(
    'bagit.parseManifest',
    fc.tuple(
      fc.oneof(
        mutatedSeed(seeds, (s) => utf8(s.text)).map((m) => ({ payload: m.seed.payload, input: m.bytes })),
        fc.record({ payload: fc.boolean(), input: fc.oneof(arbitraryBytes(), textInput(seeds.map((s) => s.text))) }),
      ),
      fc.integer({ min: 0, max: 8 }),
    ),
    ([{ payload, input }, maxEntries]) => bagit.parseManifest(input, { payload, maxEntries }),
    ([{ payload }, maxEntries], entries) => {
      assert.ok(entries.length <= maxEntries);
      for (const e of entries) {
        assert.equal(bagit.bagPathProblem(e.path), undefined);
        assert.equal(e.path.startsWith('data/'), payload);
        assert.match(e.digest, /^[0-9a-f]{64}$/);
      }
      assert.deepEqual(bagit.parseManifest(bagit.formatManifest(entries), { payload, maxEntries }), entries);
    },
    { runs: 400 },
  );
});

test('fuzz bag paths: decodeBagPath, checkBagPath, encode/decode round trip', () =>
  fuzz(
    'bagit bag paths',
    textInput(ENTRIES.map((e) => bagit.encodeBagPath(e.path))),
    (s) => {
      const decoded = bagit.decodeBagPath(s);
      if (decoded !== undefined) bagit.checkBagPath(decoded, 'fuzz');
      return { s, decoded };
    },
    (s, { decoded }) => {
      assert.equal(bagit.decodeBagPath(bagit.encodeBagPath(s)), s);
      if (decoded !== undefined) assert.equal(bagit.decodeBagPath(bagit.encodeBagPath(decoded)), decoded);
    },
    { runs: 300 },
  ));

// ---------------------------------------------------------------------------
// set file

type Expect = { shipment: string; packs: number; drives: number; parity: number };

/** A valid drive set: packs dealt to k data shares, m parity shares as long as the longest. */
const driveSet = fc
  .record({
    k: fc.integer({ min: 1, max: 4 }),
    m: fc.integer({ min: 0, max: 2 }),
    sizes: fc.array(fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 30 })), { maxLength: 7 }),
    deal: fc.array(fc.nat(), { maxLength: 7 }),
    shipment: fc.oneof(fc.constant(INFO.shipment), arbitraryText(12)),
  })
  .map(({ k, m, sizes, deal, shipment }): DriveSet => {
    const shares: SetShare[] = [];
    for (let i = 0; i < k; i++) shares.push({ index: i, kind: 'data', bytes: 0, files: [] });
    sizes.forEach((size, p) => {
      const s = shares[(deal[p] ?? p) % k]!;
      s.files.push({ path: packPath(p), size, sha256: hex64(p), offset: s.bytes, pack: p });
      s.bytes += size;
    });
    const longest = Math.max(0, ...shares.map((s) => s.bytes));
    for (let j = 0; j < m; j++) {
      const s: SetShare = { index: k + j, kind: 'parity', bytes: longest, files: [] };
      for (let off = 0, f = 0; off < longest; off += PARITY_FILE_SIZE, f++) {
        s.files.push({ path: parityPath(f), size: Math.min(PARITY_FILE_SIZE, longest - off), sha256: hex64(f + 100), offset: off });
      }
      shares.push(s);
    }
    return { shipment, data: k, parity: m, shares };
  });
const expectOf = (set: DriveSet): Expect => ({
  shipment: set.shipment,
  packs: set.shares.reduce((t, s) => t + s.files.filter((f) => f.pack !== undefined).length, 0),
  drives: set.shares.length,
  parity: set.parity,
});

test('fuzz data/set.tsv: parseSetFile of generated sets reads back', () =>
  fuzz(
    'parseSetFile round trip',
    driveSet,
    (set) => parseSetFile(utf8(formatSetFile(set)), expectOf(set)),
    (set, back) => assert.deepEqual(back, set),
    { runs: 200 },
  ));

test('fuzz data/set.tsv: parseSetFile of mutated and arbitrary set files', async () => {
  const seeds = fc.sample(driveSet, { seed: 7, numRuns: 12 }).concat(
    fc.sample(
      driveSet.filter((s) => s.parity > 0 && s.shares.length > 2),
      { seed: 8, numRuns: 4 },
    ),
  );
  const input = fc.oneof(
    { arbitrary: mutatedSeed(seeds, (s) => utf8(formatSetFile(s))).map((m) => ({ bytes: m.bytes, expect: expectOf(m.seed) })), weight: 4 },
    { arbitrary: fc.record({ bytes: arbitraryBytes(), expect: fc.constantFrom(...seeds.map(expectOf)) }), weight: 1 },
  );
  const lying = fc
    .tuple(input, fc.record({ packs: fc.nat({ max: 8 }), drives: fc.nat({ max: 300 }), parity: fc.nat({ max: 300 }) }), fc.nat({ max: 7 }))
    .map(([x, e, which]) => (which === 0 ? { bytes: x.bytes, expect: { ...x.expect, ...e } } : x));
  await fuzz(
    'parseSetFile',
    lying,
    ({ bytes, expect }) => parseSetFile(bytes, expect),
    ({ bytes }, set) => assert.ok(utf8(formatSetFile(set)).equals(bytes), 'a set file that formatSetFile would not write was accepted'),
    { runs: 400 },
  );
});

test('regression (found by fuzzing): parseSetFile refuses invalid UTF-8 that decodes to as many bytes', () => {
  // A 4-byte sequence cut to 3 bytes decodes to one U+FFFD, itself 3 bytes: the old length check passed it.
  const set: DriveSet = {
    shipment: 'a\ufffdb',
    data: 1,
    parity: 0,
    shares: [{ index: 0, kind: 'data', bytes: 5, files: [{ path: packPath(0), size: 5, sha256: hex64(1), offset: 0, pack: 0 }] }],
  };
  const good = utf8(formatSetFile(set));
  const at = good.indexOf(utf8('\ufffd'));
  const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xf0, 0x9f, 0x98]), good.subarray(at + 3)]);
  const expect = { shipment: set.shipment, packs: 1, drives: 1, parity: 0 };
  assert.deepEqual(parseSetFile(good, expect), set);
  assert.throws(
    () => parseSetFile(bad, expect),
    (e: BrickpostError) => e.code === 'MALFORMED' && /UTF-8/.test(e.message),
  );
});
