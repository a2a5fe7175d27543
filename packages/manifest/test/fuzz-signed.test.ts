/**
 * Fuzzing of the parsers of signed and encrypted drive data in this
 * package: minisign signatures, strict JSON, manifest records and paths,
 * zstd frames, the age header and payload. Same property and settings as
 * fuzz.test.ts (see fuzz-util.ts); `npm run fuzz` runs them longer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'vitest';
import * as age from '../src/age/index.js';
import { encodeHeaderWithoutMac } from '../src/age/header.js';
import { encodeBase64 } from '../src/age/base64.js';
import { BrickpostError } from '../src/errors.js';
import * as frame from '../src/frame/index.js';
import {
  checkPath,
  checkRecord,
  compareNames,
  componentProblem,
  ManifestReader,
  ManifestWriter,
  MANIFEST_FORMAT,
  packPath,
  parseStrictJson,
  type ManifestExpectations,
  type ManifestRecord,
} from '../src/records/index.js';
import { trustedComment } from '../src/shipment-info.js';
import * as minisign from '../src/sign/index.js';
import { arbitraryBytes, arbitraryText, bytesInput, fc, fuzz, mutatedBytes, mutatedSeed, mutatedText, pieces, textInput, withSplits } from './fuzz-util.js';

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const hex64 = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

// ---------------------------------------------------------------------------
// minisign

const signer = minisign.generateSigningKey();
const stranger = { ...minisign.generateSigningKey(), keyId: signer.keyId };
const MESSAGE = utf8('tagmanifest-sha256.txt contents\n');
const COMMENT = trustedComment({ shipment: '01JD3X8Q6V4ZKQ0M2N7T5R9W1A', datasetId: '1ccfcc4c4c954a50', seq: 3 });
const SIGS = [
  minisign.signBuffer(MESSAGE, signer, COMMENT),
  minisign.signBuffer(MESSAGE, signer, COMMENT, 'signature from brickpost\twith a tab'),
  minisign.signLegacy(MESSAGE, signer, COMMENT),
];

test('fuzz .minisig: parseSignature', () =>
  fuzz(
    'minisign.parseSignature',
    fc.oneof(bytesInput(SIGS.map(utf8)), textInput(SIGS)),
    (input) => minisign.parseSignature(input),
    (_input, sig) => {
      assert.equal(sig.keyId.length, 8);
      assert.equal(sig.signature.length, 64);
      assert.equal(sig.globalSignature.length, 64);
      assert.ok(sig.algorithm === 'ED' || sig.algorithm === 'Ed');
    },
    { runs: 400 },
  ));

test('fuzz .minisig: verifySignature never accepts what was not signed', () =>
  fuzz(
    'minisign.verifySignature',
    fc.record({
      sig: fc.oneof(mutatedBytes(SIGS.map(utf8)), textInput(SIGS)),
      message: fc.oneof(fc.constant(MESSAGE), mutatedBytes([MESSAGE], 2)),
      prehash: fc.boolean(),
    }),
    ({ sig, message, prehash }) =>
      minisign.verifySignature(sig, prehash ? { prehash: minisign.createPrehash().update(message).digest() } : message, [
        { keyId: stranger.keyId, publicKey: stranger.publicKey },
        { keyId: signer.keyId, publicKey: signer.publicKey },
      ]),
    ({ message }, v) => {
      assert.ok(message.equals(MESSAGE), 'a signature verified over an altered message');
      assert.equal(v.trustedComment, COMMENT, 'an altered trusted comment verified');
      assert.equal(v.keyIdHex, minisign.keyIdHex(signer.keyId));
    },
    { runs: 300 },
  ));

// ---------------------------------------------------------------------------
// manifest records

test('fuzz strict JSON: parseStrictJson agrees with JSON.parse whenever it accepts', () => {
  const lines = [
    '{"t":"file","p":"a/b","size":10,"mode":420,"mtime":"1700000000000000000","c":[["' + hex64(1) + '",0,0,19,10]]}',
    '{"a":[1,-2,{"b":null,"c":true,"d":false}],"e":"\\u00e9\\ud83d\\ude00\\n\\"","__proto__":{"x":0}}',
    ' [ ] ',
  ];
  return fuzz(
    'parseStrictJson',
    fc.tuple(
      fc.oneof(
        textInput(lines, 2048),
        fc.json({ maxDepth: 6 }),
        fc.json({ maxDepth: 6 }).chain((j) => mutatedText([j], 3)),
      ),
      fc.integer({ min: 1, max: 20 }),
    ),
    ([text, maxDepth]) => parseStrictJson(text, { maxDepth }),
    ([text], v) => {
      assert.equal(JSON.stringify(v), JSON.stringify(JSON.parse(text)));
      const wellFormed = (x: unknown): boolean =>
        typeof x === 'string'
          ? x.isWellFormed()
          : x !== null && typeof x === 'object'
            ? Object.entries(x).every(([k, y]) => k.isWellFormed() && wellFormed(y))
            : true;
      assert.ok(wellFormed(v), 'lone surrogate accepted');
    },
    { runs: 500 },
  );
});

test('strict JSON keeps a "__proto__" key as an own member, as JSON.parse does, and refuses it twice', () => {
  const v = parseStrictJson('{"__proto__":{"x":0},"a":1}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__', 'a']);
  assert.equal(v.x, undefined, 'the member is not the prototype');
  assert.deepEqual(Object.getOwnPropertyDescriptor(v, '__proto__')?.value, { x: 0 });
  assert.throws(() => parseStrictJson('{"__proto__":1,"__proto__":2}'), /duplicate key "__proto__"/);
  assert.throws(() => parseStrictJson('{"toString":1,"toString":2}'), /duplicate key "toString"/);
  assert.deepEqual(Object.keys(parseStrictJson('{"toString":1,"constructor":2}') as object), ['toString', 'constructor']);
});

const SECRET = randomBytes(32).toString('base64');
const id = (n: number): string => hex64(n);

/**
 * A valid v2 manifest written by ManifestWriter: dirs, files with packed,
 * held and delta refs and a hole, more records, a symbolic link, a hard
 * link, a FIFO, names differing only in case, a name that is not UTF-8,
 * attributes, packs, end.
 */
function manifestText(relative: boolean): string {
  const w = new ManifestWriter();
  const recs: ManifestRecord[] = [
    {
      t: 'shipment',
      format: MANIFEST_FORMAT,
      shipment: 'S2',
      dataset: 'survey',
      datasetId: 'D1',
      seq: 2,
      parent: relative ? 'S1' : null,
      bases: relative ? [['S1', 1]] : [],
      against: null,
      label: 'march',
      created: '2026-03-01T12:00:00.000Z',
      publisher: 'E2E2BEF2840CF832',
      secret: SECRET,
      chunker: 'fastcdc-v1',
    },
    {
      t: 'dir',
      p: 'a',
      mode: 0o2775,
      mtime: '1700000000000000000',
      x: [['user.a', 'YQ==']],
      o: [1000, 1000, 'ana', null],
      acl: { a: 'user::rwx,user:7:r-x,group::r-x,mask::r-x,other::---', d: 'user::rwx,group::r-x,other::---' },
    },
    { t: 'file', p: 'a/B.txt', size: 10, mode: 0o644, mtime: '-5', c: [[id(1), 0, 0, 19, 10]] },
    { t: 'file', p: 'a/b.txt', size: 4106, mode: 0o644, mtime: '-5', c: [[4096], [id(1), 0, 0, 19, 10]] },
    {
      t: 'file',
      p: 'a/c',
      size: 6000,
      mode: 0o600,
      mtime: '0',
      c: relative
        ? [
            [id(2), 0, 19, 3009, 3000],
            [id(3), 2000],
          ]
        : [[id(2), 0, 19, 3009, 5000]],
    },
    { t: 'more', c: [[id(4), 0, 3028, 1009, 1000]] },
    { t: 'hard', p: 'a/c-too', to: 'a/c' },
    { t: 'special', p: 'a/fifo', kind: 'fifo', mode: 0o600, mtime: '4' },
    { t: 'link', p: 'a/link', target: '../caf\u00e9/empty', mtime: '5', o: [0, 0, 'root', 'root'] },
    { t: 'file', p: 'bad-\udcff', size: 0, mode: 0o644, mtime: '6', c: [] },
    { t: 'dir', p: 'caf\u00e9', mode: 0o700, mtime: '1' },
    { t: 'file', p: 'caf\u00e9/empty', size: 0, mode: 0o644, mtime: '2', c: [] },
  ];
  if (relative) recs.push({ t: 'file', p: 'd', size: 300, mode: 0o644, mtime: '3', c: [[id(5), 0, 4037, 60, 300, 50]], b: ['old/d', 290, 256] });
  recs.push({ t: 'pack', i: 0, path: packPath(0), size: 5000, plain: 4200, chunks: relative ? 4 : 3 });
  const t = w.totals;
  recs.push({
    t: 'end',
    dirs: 2,
    files: relative ? 6 : 5,
    links: 1,
    hard: 1,
    specials: 1,
    bytes: relative ? 10416 : 10116,
    chunks: relative ? 6 : 4,
    packs: 1,
  });
  const out = recs.map((r) => w.line(r)).join('');
  assert.equal(t.packs, 1);
  return out;
}
const MANIFESTS = [manifestText(true), manifestText(false)];

test('fuzz manifest records: ManifestReader over mutated manifests', () =>
  fuzz(
    'ManifestReader',
    fc.tuple(textInput(MANIFESTS, 2048), fc.constantFrom<ManifestExpectations>({}, { entries: 6, packs: 1 }, { entries: 2 }, { packs: 0 })),
    ([text, expect]) => {
      const r = new ManifestReader('fuzz', expect);
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const line of lines) r.push(line);
      return { end: r.finish(), totals: { ...r.totals } };
    },
    (_input, { end, totals }) => {
      for (const k of ['dirs', 'files', 'bytes', 'chunks', 'packs'] as const) assert.equal(end[k], totals[k]);
    },
    { runs: 500 },
  ));

test('fuzz manifest records: checkRecord of generated record-shaped values', () => {
  const scalar = fc.oneof(
    fc.constantFrom<unknown>(
      null,
      true,
      0,
      -1,
      2 ** 53 - 1,
      0o7777,
      0o10000,
      9,
      8,
      4 << 20,
      (4 << 20) + 1,
      2 ** 32,
      '',
      'a',
      'fastcdc-v1',
      MANIFEST_FORMAT,
      SECRET,
      id(1),
      id(1).toUpperCase(),
      '1700000000000000000',
      '-',
    ),
    fc.nat(),
    arbitraryText(8),
  );
  const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 7 }), fc.array(fc.array(scalar, { maxLength: 7 }), { maxLength: 3 }));
  const keys = [
    't',
    'format',
    'shipment',
    'dataset',
    'datasetId',
    'seq',
    'parent',
    'bases',
    'against',
    'label',
    'created',
    'publisher',
    'secret',
    'chunker',
    'p',
    'mode',
    'mtime',
    'size',
    'c',
    'b',
    'i',
    'path',
    'plain',
    'chunks',
    'dirs',
    'files',
    'bytes',
    'packs',
    'x',
  ];
  const record = fc
    .tuple(fc.constantFrom('shipment', 'dir', 'file', 'more', 'pack', 'end', 'other'), fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 14 }))
    .map(([t, o]) => JSON.stringify({ ...o, t }));
  return fuzz('checkRecord', record, (text) => checkRecord(parseStrictJson(text, { maxDepth: 4 }), 'fuzz'), undefined, { runs: 400 });
});

test('fuzz the path grammar: checkPath, componentProblem, compareNames', () =>
  fuzz(
    'checkPath',
    fc.tuple(textInput(['a/b/c.txt', 'caf\u00e9/\u00fcber', 'x/'.repeat(127) + 'y', 'K/\u212a'], 512), arbitraryText(16)),
    ([path]) => checkPath(path, 'fuzz'),
    ([path, other], parts) => {
      assert.equal(parts.join('/'), path);
      assert.ok(Buffer.byteLength(path) <= 4096 && parts.length <= 128);
      for (const p of parts) assert.equal(componentProblem(p), null);
      const last = parts[parts.length - 1]!;
      assert.equal(compareNames(last, last), 0);
      assert.equal(Math.sign(compareNames(last, other)) + Math.sign(compareNames(other, last)), 0);
    },
    { runs: 400 },
  ));

// ---------------------------------------------------------------------------
// zstd frames

/** Frame headers of every descriptor shape: FCS flag, single segment, checksum, dictionary id size. */
function headerShapes(): Buffer[] {
  const out: Buffer[] = [];
  for (let fhd = 0; fhd < 256; fhd += 1) {
    if (fhd & 0x08) continue;
    const single = (fhd & 0x20) !== 0;
    const did = [0, 1, 2, 4][fhd & 3]!;
    const fcs = [single ? 1 : 0, 2, 4, 8][fhd >> 6]!;
    const b = Buffer.alloc(5 + (single ? 0 : 1) + did + fcs + 3, 0xa5);
    b.writeUInt32LE(frame.ZSTD_MAGIC, 0);
    b[4] = fhd;
    if (!single) b[5] = 0x38;
    out.push(b);
  }
  return out;
}
const FRAMES = [
  ...[0, 1, 255, 256, 65791, 65792, 140000].map((n) => frame.rawFrame(randomBytes(n))),
  frame.skippableFrame(0, Buffer.alloc(0)),
  frame.skippableFrame(15, utf8('brickpost-pack/v1\nS1 0\n')),
  Buffer.concat([frame.skippableFrame(3, utf8('x')), frame.rawFrame(utf8('after'))]),
  ...headerShapes().filter((_b, i) => i % 4 === 0),
];

test('fuzz zstd frames: parseFrameHeader and readSkippableFrame, lying length fields', () =>
  fuzz(
    'frame.parseFrameHeader',
    bytesInput(FRAMES, 64),
    (b) => {
      const h = frame.parseFrameHeader(b);
      const skip = h.kind === 'skippable' ? frame.readSkippableFrame(b) : undefined;
      return { h, skip };
    },
    (b, { h, skip }) => {
      assert.ok(h.headerSize <= b.length);
      if (h.contentSize !== undefined) assert.ok(Number.isSafeInteger(h.contentSize) && h.contentSize >= 0);
      if (h.windowSize !== undefined) assert.ok(Number.isFinite(h.windowSize) && h.windowSize >= 0);
      if (h.singleSegment) assert.equal(h.windowSize, h.contentSize);
      if (skip) {
        assert.equal(skip.length, 8 + skip.payload.length);
        assert.ok(skip.length <= b.length);
        assert.equal(skip.payload.length, h.skippableSize);
      }
    },
    { runs: 500 },
  ));

// ---------------------------------------------------------------------------
// age

const alice = age.generateX25519Identity();
const aliceId = age.parseIdentity(alice.identity);
const bob = age.generateX25519Identity();
const pq = age.generateHybridIdentity();
const pqId = age.parseIdentity(pq.identity);
const PLAIN = randomBytes(age.STREAM_CHUNK + 1000);
const headerOf = (stanzas: age.Stanza[]): Buffer => age.encodeHeader(stanzas, randomBytes(16));
const HEADERS = [
  age.createHeader([age.parseRecipient(alice.recipient)]).header,
  age.createHeader([age.parseRecipient(bob.recipient), age.parseRecipient(alice.recipient)]).header,
  age.createHeader([age.parseRecipient(pq.recipient)]).header,
  age.createHeader([age.passphraseRecipient('pass', 10)]).header,
  headerOf([
    { type: 'custom', args: ['a', 'b!', '~'], body: Buffer.alloc(0) },
    { type: 'x', args: [], body: randomBytes(48) },
  ]),
  headerOf([{ type: 'long', args: [], body: randomBytes(200) }]),
];

test('fuzz age header: parseHeader, re-encoding gives the same bytes', () =>
  fuzz(
    'age.parseHeader',
    bytesInput(
      HEADERS.map((h) => Buffer.concat([h, randomBytes(20)])),
      2048,
    ),
    (b) => age.parseHeader(b),
    (b, h) => {
      assert.ok(h.headerLength <= b.length && h.stanzas.length >= 1 && h.stanzas.length <= age.MAX_STANZAS);
      const head = encodeHeaderWithoutMac(h.stanzas);
      assert.ok(head.equals(b.subarray(0, h.headerLength - 45)), 'a non-canonical header was accepted');
      assert.equal(b.toString('latin1', h.headerLength - 45, h.headerLength), ` ${encodeBase64(h.mac)}\n`);
    },
    { runs: 500 },
  ));

const FILES = [
  age.encrypt(PLAIN, [age.parseRecipient(alice.recipient)]),
  age.encrypt(PLAIN.subarray(0, 100), [age.parseRecipient(bob.recipient), age.parseRecipient(alice.recipient)]),
  age.encrypt(Buffer.alloc(0), [age.parseRecipient(alice.recipient)]),
  age.encrypt(PLAIN.subarray(0, age.STREAM_CHUNK), [age.parseRecipient(pq.recipient)]),
];
FILES.push(utf8(age.encodeArmor(FILES[1]!)));
const PLAINS = [PLAIN, PLAIN.subarray(0, 100), Buffer.alloc(0), PLAIN.subarray(0, age.STREAM_CHUNK), PLAIN.subarray(0, 100)];

test('fuzz age files: decrypt (header, stanzas, armor, payload) releases only the real plaintext', () =>
  fuzz(
    'age.decrypt',
    mutatedSeed(
      FILES.map((f, i) => ({ f, plain: PLAINS[i]! })),
      (s) => s.f,
      4,
    ),
    ({ bytes }) => age.decrypt(age.isArmored(bytes) ? age.decodeArmor(bytes) : bytes, [aliceId, pqId]),
    ({ seed }, out) => assert.ok(out.equals(seed.plain), 'decrypt returned bytes that were not encrypted'),
    { runs: 150, show: (x) => x.bytes },
  ));

test('fuzz age payload: PayloadDecryptor with a random key, and over mutated payloads split at random', () => {
  const fileKey = randomBytes(16);
  const enc = new age.PayloadEncryptor(fileKey);
  const sealed = Buffer.concat([...enc.update(PLAIN), ...enc.final()]);
  const encE = new age.PayloadEncryptor(fileKey);
  const sealedEmpty = Buffer.concat([...encE.update(Buffer.alloc(0)), ...encE.final()]);
  const seeds = [
    { nonce: enc.nonce, sealed, plain: PLAIN },
    { nonce: encE.nonce, sealed: sealedEmpty, plain: Buffer.alloc(0) },
  ];
  const input = fc.oneof(
    fc
      .tuple(
        mutatedSeed(seeds, (s) => s.sealed, 4),
        fc.array(fc.nat(), { maxLength: 5 }),
      )
      .map(([m, cuts]) => ({
        key: fileKey,
        nonce: m.seed.nonce,
        plain: m.seed.plain,
        bytes: m.bytes,
        cuts: cuts.map((c) => c % (m.bytes.length + 1)).sort((a, b) => a - b),
      })),
    withSplits(arbitraryBytes(age.SEALED_CHUNK * 2)).map(({ bytes, cuts }) => ({ key: randomBytes(16), nonce: randomBytes(16), plain: null, bytes, cuts })),
  );
  return fuzz(
    'age.PayloadDecryptor',
    input,
    ({ key, nonce, bytes, cuts }) => {
      const dec = new age.PayloadDecryptor(key, nonce);
      const out: Buffer[] = [];
      let error: unknown;
      try {
        for (const p of pieces(bytes, cuts)) out.push(...dec.update(p));
        out.push(...dec.final());
      } catch (e) {
        error = e;
      }
      return { out: Buffer.concat(out), error };
    },
    ({ plain, bytes }, { out, error }) => {
      if (error !== undefined) assert.ok(error instanceof BrickpostError, `not a BrickpostError: ${String(error)}`);
      if (plain === null) return assert.equal(out.length, 0, 'a random key opened a chunk');
      assert.ok(out.equals(plain.subarray(0, out.length)), 'released plaintext that was not encrypted');
      if (error === undefined) assert.ok(out.equals(plain), 'a changed payload decrypted without error');
      if (bytes.equals(seeds.find((s) => s.plain === plain)!.sealed)) assert.equal(error, undefined);
    },
    { runs: 300, show: (x) => x.bytes, maxAlloc: (size) => (1 << 20) + 4 * size },
  );
});

test('fuzz age payload: readPlainRange with a lying file size', () => {
  const fileKey = randomBytes(16);
  const enc = new age.PayloadEncryptor(fileKey);
  const sealed = Buffer.concat([...enc.update(PLAIN), ...enc.final()]);
  return fuzz(
    'age.readPlainRange',
    fc.record({
      bytes: mutatedBytes([sealed], 3),
      size: fc.oneof(fc.constant(-1), fc.nat({ max: 3 * age.SEALED_CHUNK }), fc.constantFrom(2 ** 53, 2 ** 40, 0, 15, 16, 17)),
      offset: fc.oneof(fc.nat({ max: PLAIN.length + 10 }), fc.constantFrom(-1, 2 ** 53, 1.5)),
      length: fc.oneof(fc.nat({ max: PLAIN.length + 10 }), fc.constantFrom(-1, 2 ** 53)),
    }),
    ({ bytes, size, offset, length }) =>
      age.readPlainRange(async (pos, len) => bytes.subarray(pos, pos + len), size < 0 ? bytes.length : size, 0, fileKey, enc.nonce, offset, length),
    ({ offset, length }, out) => {
      assert.equal(out.length, length);
      assert.ok(out.equals(PLAIN.subarray(offset, offset + length)), 'released plaintext that was not encrypted');
    },
    { runs: 300, show: (x) => x.bytes },
  );
});
