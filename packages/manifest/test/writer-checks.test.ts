import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ManifestReader, ManifestWriter, MANIFEST_FORMAT, roundTrips, type ManifestRecord } from '../src/records/index.js';

const header: ManifestRecord = {
  t: 'shipment',
  format: MANIFEST_FORMAT,
  shipment: 'S1',
  dataset: 'survey',
  datasetId: 'D1',
  seq: 1,
  parent: null,
  bases: [],
  against: null,
  label: '',
  created: '2026-01-01T00:00:00.000Z',
  publisher: 'BF81F1CC7317E1F9',
  secret: Buffer.alloc(32, 1).toString('base64'),
  chunker: 'fastcdc-v1',
};
const id = 'ab'.repeat(32);
const file = (p: string, size: number, extra: object = {}): ManifestRecord =>
  ({ t: 'file', p, size, mode: 0o644, mtime: '1700000000000000000', c: [[id, 0, 0, size + 10, size]], ...extra }) as unknown as ManifestRecord;
const refused = (code: string, re: RegExp) => (e: unknown) => (e as { code?: string }).code === code && re.test((e as Error).message);

/** The writer checks its lines with JSON.parse where that reads them as the strict parser does: it must refuse what a receiver refuses. */
test('the writer refuses what a receiver refuses, as the receiver words it', () => {
  const cases: Array<[ManifestRecord, string, RegExp]> = [
    [file('a', 1.5), 'MALFORMED', /field size/],
    [file('a', 2 ** 60), 'MALFORMED', /field size/],
    [file('../up', 4), 'UNSAFE_PATH', /\.\./],
  ];
  for (const [rec, code, re] of cases) {
    const w = new ManifestWriter();
    w.line(header);
    assert.throws(() => w.line(rec), refused(code, re), JSON.stringify(rec));
    // The receiver, reading the line JSON.stringify writes, refuses it too.
    const r = new ManifestReader('manifest');
    r.push(JSON.stringify(header));
    assert.throws(
      () => r.push(JSON.stringify(rec)),
      (e: unknown) => (e as { code?: string }).code === code,
      JSON.stringify(rec),
    );
  }
});

test('a lone surrogate in a text field is refused by the writer, as by the strict parser', () => {
  for (const label of ['march\ud800', '\udc00']) {
    assert.throws(() => new ManifestWriter().line({ ...header, label }), refused('MALFORMED', /lone surrogate/));
    assert.throws(() => new ManifestReader('manifest').push(JSON.stringify({ ...header, label })), refused('MALFORMED', /lone surrogate/));
  }
});

test('a name with a surrogate pair is written and read back', () => {
  const w = new ManifestWriter();
  const text = w.line(header) + w.line(file('\ud83d\ude00.txt', 4));
  const r = new ManifestReader('manifest');
  const got = text
    .trimEnd()
    .split('\n')
    .map((l) => r.push(l));
  assert.equal((got[1] as { p: string }).p, '\ud83d\ude00.txt');
});

/** The writer checks the value it stringified instead of parsing its line back only where parsing would give the same value. */
test('a record stringify would change is checked as its line reads', () => {
  const w = new ManifestWriter();
  w.line(header);
  // NaN is written as null, which a receiver refuses; an undefined member is left out, which a receiver accepts.
  assert.throws(() => w.line(file('a', Number.NaN)), refused('MALFORMED', /field size/));
  const line = w.line(file('b', 4, { changing: undefined, mode: -0 }));
  assert.equal(line, `{"t":"file","p":"b","size":4,"mode":0,"mtime":"1700000000000000000","c":[["${id}",0,0,14,4]]}\n`);
  const r = new ManifestReader('manifest');
  r.push(JSON.stringify(header));
  assert.equal(r.push(line.trimEnd()).t, 'file');
});

test('roundTrips: the values JSON.parse(JSON.stringify(v)) gives back as they are', () => {
  const yes: unknown[] = [null, true, '', 'é\ud83d\ude00', 0, -1.5, [1, [2, ['x']]], { a: { b: [null] } }];
  const no: unknown[] = [
    undefined,
    Number.NaN,
    Infinity,
    -0,
    1n,
    () => 1,
    [undefined],
    // eslint-disable-next-line no-sparse-arrays -- a hole is one of the cases
    [1, , 2],
    { a: undefined },
    new Date(0),
    { toJSON: () => 1 },
    Buffer.alloc(1),
  ];
  for (const v of yes) assert.equal(roundTrips(v, 4), true, String(v));
  for (const v of no) assert.equal(roundTrips(v, 4), false, String(v));
  assert.equal(roundTrips([[[[1]]]], 4), true);
  assert.equal(roundTrips([[[[[1]]]]], 4), false);
});
