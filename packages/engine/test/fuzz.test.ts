/**
 * Fuzzing of the engine's parsers of drive data (FORMAT.md §13.2): chunk
 * frames (decodeFrame / decodeChunk, with lying content sizes and windows),
 * the line splitter of zstd-compressed NDJSON (textLines), signature and
 * request file records, receipts and recovery file headers. Same property
 * and settings as packages/manifest/test/fuzz.test.ts: a value or a
 * BrickpostError, in time, in bounded memory.
 *
 * The harness and mutators are packages/manifest/test/fuzz-util.ts, imported
 * from its source (Vitest runs the tests from TypeScript).
 */
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { test } from 'vitest';
import * as fc from 'fast-check';
import { Compressor } from 'zstd-napi';
import { BrickpostError, packPath, parseStrictJson, RECORD_LIMITS } from '@brickpost/manifest';
import { arbitraryBytes, bytesInput, fuzz, mutatedBytes, mutatedSeed, pieces, withSplits } from '../../manifest/test/fuzz-util.js';
import type { Receipt } from '../src/api/index.js';
import { CHUNK_PARAMS_V1, chunkId, chunkKey, decodeChunk, decodeFrame, encodeChunk } from '../src/chunk/index.js';
import {
  applyDelta,
  computeDelta,
  decodeDelta,
  encodeDelta,
  parseSignature as parseDeltaSignature,
  SignatureBuilder,
  type DeltaOp,
} from '../src/delta/index.js';
import { textLines } from '../src/io/lines.js';
import { formatReceipt, parseReceipt } from '../src/receipt/index.js';
import { SAMPLE_RECEIPT } from './sample-receipt.js';
import { checkVersion, decodeHeader, encodeHeader, HEADER_LENGTH_AT, headerIntact, headerLength, type WindowHeader } from '../src/recovery/header.js';
import { recoveryParams, rowsFor, windowBlocks, type RecoveryParams } from '../src/recovery/params.js';
import { checkHeader, checkSigRecord, SIG_LIMITS, SIGNATURE_FORMAT, SigRecordOrder, type SigRecord } from '../src/sigfile/records.js';
import { bombFrame, handmadeFrame, lyingFrame } from '../src/testing/frames.js';

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const hex64 = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

// chunk frames

const key = chunkKey(Buffer.alloc(32, 7));
function text(n: number): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'sensor', '21.5', 'ok', '\n'];
  let s = '';
  for (let i = 0; s.length < n; i++) s += words[(i * 7 + (i >> 3)) % words.length] + ' ' + (i % 1000) + ',';
  return utf8(s).subarray(0, n);
}
function zstdFrame(data: Buffer, params: Record<string, number | boolean>): Buffer {
  const c = new Compressor();
  c.setParameters(params);
  return c.compress(data);
}
const CHUNKS: Array<{ data: Buffer; frame: Buffer }> = [...[0, 1, 1000, 300_000].map((n) => text(n)), randomBytes(5000)].map((data) => ({
  data,
  frame: encodeChunk(data, 3).frame,
}));
CHUNKS.push(
  { data: text(200_000), frame: zstdFrame(text(200_000), { compressionLevel: 3, checksumFlag: true, contentSizeFlag: true }) },
  { data: text(5000), frame: zstdFrame(text(5000), { compressionLevel: 19, windowLog: 27, contentSizeFlag: true }) },
  { data: text(5000), frame: zstdFrame(text(5000), { compressionLevel: 1, contentSizeFlag: false }) },
  { data: Buffer.alloc(1 << 20), frame: bombFrame(1 << 20) },
  { data: Buffer.alloc(0), frame: bombFrame(CHUNK_PARAMS_V1.max + 1) },
  { data: text(1000), frame: lyingFrame(text(1000), 999) },
  { data: text(1000), frame: lyingFrame(text(1000), 2 ** 40) },
  {
    data: Buffer.concat([Buffer.alloc(50, 65), text(50)]),
    frame: handmadeFrame(
      [
        { type: 'rle', byte: 65, size: 50 },
        { type: 'raw', data: text(50) },
      ],
      100,
    ),
  },
);

test('fuzz chunk frames: decodeFrame and decodeChunk, lying content sizes and windows', () => {
  const ids = CHUNKS.map((c) => chunkId(key, c.data));
  const input = fc.record({
    m: mutatedSeed(
      CHUNKS.map((c, i) => ({ ...c, id: ids[i]! })),
      (c) => c.frame,
      4,
    ),
    length: fc.oneof(
      { arbitrary: fc.constant('declared' as const), weight: 6 },
      { arbitrary: fc.constant('original' as const), weight: 3 },
      { arbitrary: fc.oneof(fc.nat({ max: CHUNK_PARAMS_V1.max + 10 }), fc.constantFrom(-1, 1.5, 2 ** 53, NaN)), weight: 1 },
    ),
    maxLength: fc.constantFrom<number | undefined>(undefined, RECORD_LIMITS.maxDeltaLength, 1000),
  });
  /** The content size the (mutated) frame declares, the usual case of a manifest that agrees with its frame. */
  const declared = (b: Buffer): number => {
    if (b.length < 6 || b.readUInt32LE(0) !== 0xfd2fb528) return 0;
    const fhd = b[4]!;
    const single = (fhd & 0x20) !== 0;
    const at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]!;
    const size = [single ? 1 : 0, 2, 4, 8][fhd >> 6]!;
    if (size === 0 || b.length < at + size) return 0;
    if (size === 1) return b[at]!;
    if (size === 2) return b.readUInt16LE(at) + 256;
    if (size === 4) return b.readUInt32LE(at);
    return Number(b.readBigUInt64LE(at));
  };
  const expectedOf = (x: { m: { bytes: Buffer; seed: { data: Buffer } }; length: 'declared' | 'original' | number }): number =>
    x.length === 'declared' ? declared(x.m.bytes) : x.length === 'original' ? x.m.seed.data.length : x.length;
  return fuzz(
    'decodeFrame / decodeChunk',
    input,
    (x) => {
      const expected = expectedOf(x);
      const limits = x.maxLength === undefined ? {} : { maxLength: x.maxLength };
      const out = decodeFrame(x.m.bytes, expected, limits);
      let chunk: Buffer | undefined;
      try {
        chunk = decodeChunk(x.m.bytes, expected, x.m.seed.id, key, limits);
      } catch (e) {
        if (!(e instanceof BrickpostError) || e.code !== 'CHUNK_MISMATCH') throw e;
      }
      return { out, chunk, expected };
    },
    (x, { out, chunk, expected }) => {
      assert.equal(out.length, expected);
      if (chunk !== undefined) assert.ok(chunk.equals(x.m.seed.data), 'decodeChunk returned bytes its id does not name');
      if (x.m.bytes.equals(x.m.seed.frame) && x.length === 'original' && x.maxLength === undefined) assert.ok(out.equals(x.m.seed.data));
    },
    {
      runs: 300,
      show: (x) => x.m.bytes,
      // The output buffer is the caller's length (from the manifest), once the frame agrees with it.
      maxAlloc: (size, x) => (1 << 20) + 4 * size + Math.min(Math.max(0, expectedOf(x)), x.maxLength ?? CHUNK_PARAMS_V1.max),
    },
  );
});

// deltas: bpdelta1 frames from a drive, bpsig1 signatures from a subscriber

const OLD = text(20_000);
const NEW = Buffer.concat([OLD.subarray(0, 5000), utf8('inserted bytes'), OLD.subarray(5300, 15_000), randomBytes(700), OLD.subarray(15_000)]);
const DELTA_BLOCK = 256;
async function delta(old: Buffer, data: Buffer, blockSize: number): Promise<DeltaOp[]> {
  const sig = parseDeltaSignature(new SignatureBuilder(blockSize).update(old).final());
  const ops: DeltaOp[] = [];
  for await (const op of computeDelta(sig, [data])) ops.push(op);
  return ops;
}
async function patch(ops: DeltaOp[]): Promise<Buffer> {
  const out: Buffer[] = [];
  const n = await applyDelta(
    async (off, len) => OLD.subarray(off, off + len),
    OLD.length,
    DELTA_BLOCK,
    ops,
    async (b) => void out.push(Buffer.from(b)),
  );
  const whole = Buffer.concat(out);
  assert.equal(n, whole.length);
  return whole;
}

test('fuzz deltas: decodeDelta and applyDelta of mutated and arbitrary bpdelta1', async () => {
  const seeds = [
    encodeDelta(await delta(OLD, NEW, DELTA_BLOCK)),
    encodeDelta(await delta(OLD, OLD, DELTA_BLOCK)),
    encodeDelta([{ op: 'copy', block: 78, count: 1 }]),
  ];
  assert.ok((await patch(decodeDelta(seeds[0]!))).equals(NEW));
  await fuzz(
    'decodeDelta / applyDelta',
    bytesInput(seeds, 256),
    async (b) => {
      const ops = decodeDelta(b);
      return { ops, out: await patch(ops) };
    },
    (b, { ops, out }) => {
      assert.ok(encodeDelta(ops).equals(b), 'a non-canonical delta was accepted');
      if (b.equals(seeds[0]!)) assert.ok(out.equals(NEW));
    },
    { runs: 300 },
  );
});

test('fuzz deltas: parseSignature (bpsig1) of mutated and arbitrary signatures, and computeDelta against them', async () => {
  const seeds = [new SignatureBuilder(DELTA_BLOCK).update(OLD).final(), new SignatureBuilder(1 << 20).update(OLD).final(), new SignatureBuilder(256).final()];
  await fuzz(
    'delta parseSignature / computeDelta',
    bytesInput(seeds, 256),
    async (b) => {
      const sig = parseDeltaSignature(b, { maxBlocks: 1 << 16 });
      const ops: DeltaOp[] = [];
      for await (const op of computeDelta(sig, [NEW.subarray(0, 8000)])) ops.push(op);
      return { sig, ops };
    },
    (b, { sig, ops }) => {
      assert.equal(b.length, 20 + 12 * sig.blockCount);
      assert.equal(Math.ceil(sig.fileLength / sig.blockSize), sig.blockCount);
      assert.ok(decodeDelta(encodeDelta(ops)).length === ops.length);
    },
    // computeDelta's buffers: a block plus 1 MiB of literal (its documented bound), tables of the signature's size.
    { runs: 200, maxAlloc: (size) => (3 << 20) + 16 * size },
  );
});

// NDJSON lines out of a decompressor

test('fuzz textLines: lines of UTF-8 text arriving in pieces', () => {
  const seeds = [utf8('{"t":"end"}\n{"a":"caf\u00e9 \ud83d\ude00"}\n'), utf8('one\ntwo\r\n\nthree\n'), utf8('x'.repeat(100) + '\n')];
  return fuzz(
    'textLines',
    fc.tuple(withSplits(bytesInput(seeds, 512)), fc.constantFrom(16, 64, 1 << 20)),
    async ([{ bytes, cuts }, maxLine]) => {
      async function* chunks(): AsyncGenerator<Buffer> {
        for (const p of pieces(bytes, cuts)) yield p;
      }
      const lines: string[] = [];
      for await (const line of textLines(chunks(), 'fuzz', maxLine)) lines.push(line);
      return lines;
    },
    ([{ bytes }, maxLine], lines) => {
      for (const l of lines) assert.ok(l.length <= maxLine);
      assert.ok(isUtf8(bytes), 'invalid UTF-8 accepted');
      assert.equal(lines.map((l) => l + '\n').join(''), bytes.toString('utf8'), 'lines are not the text');
    },
    { runs: 300, show: (x) => x[0].bytes },
  );
});

test('regression (found by fuzzing): textLines refuses a stream that ends inside a UTF-8 character and keeps a BOM', async () => {
  async function* chunks(): AsyncGenerator<Buffer> {
    yield utf8('{"t":"end"}\n');
    yield Buffer.from([0xe2, 0x82]);
  }
  const lines: string[] = [];
  await assert.rejects(
    async () => {
      for await (const line of textLines(chunks(), 'f', 1024)) lines.push(line);
    },
    (e: BrickpostError) => e.code === 'MALFORMED' && /UTF-8/.test(e.message),
  );
  assert.deepEqual(lines, ['{"t":"end"}']);
  // A byte-order mark (FORMAT.md: text has none) is kept, so the strict JSON parser refuses the line, not dropped.
  async function* bom(): AsyncGenerator<Buffer> {
    yield utf8('\ufeff{}\n');
  }
  const got: string[] = [];
  for await (const line of textLines(bom(), 'f', 1024)) got.push(line);
  assert.deepEqual(got, ['\ufeff{}']);
});

// signature and request files

const SIG_HEADER = {
  t: 'signature',
  format: SIGNATURE_FORMAT,
  kind: 'request',
  ids: 'hmac',
  dataset: 'survey',
  datasetId: '1ccfcc4c4c954a50',
  publisher: 'E2E2BEF2840CF832',
  state: { shipment: 'S1', seq: 1 },
  created: '2026-03-01T12:00:00.000Z',
  subscriber: '0011E92BA581B15A',
  recipient: 'age1d2frye3ephgcxjl6x28fuzgxhg2twuvf4nz2f7zrt9p778scz4jq8xfck4',
  chunker: 'fastcdc-v1',
};
const SIG_FILES = [
  [
    SIG_HEADER,
    {
      t: 'file',
      p: 'a/b.txt',
      size: 35,
      c: [
        [hex64(1), 10],
        [hex64(2), 20],
      ],
    },
    { t: 'more', c: [[hex64(3), 5]] },
    { t: 'missing', p: 'caf\u00e9/x', reason: 'chunk 0 of "x" is missing' },
    { t: 'file', p: 'z', size: 0, c: [] },
    { t: 'end', files: 2, chunks: 3, bytes: 35 },
  ],
  [
    { ...SIG_HEADER, kind: 'signature', ids: 'sha256', dataset: null, datasetId: null, publisher: null, state: null },
    { t: 'end', files: 0, chunks: 0, bytes: 0 },
  ],
].map((recs) => utf8(recs.map((r) => JSON.stringify(r) + '\n').join('')));

/** Reads a signature file's lines as openSignatureFile does after its header frame (sigfile/reader.ts readRecords). */
async function readSigRecords(parts: Buffer[]): Promise<{ records: SigRecord[]; totals: SigRecordOrder['totals'] }> {
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const p of parts) yield p;
  }
  const order = new SigRecordOrder('fuzz');
  const records: SigRecord[] = [];
  let line = 0;
  for await (const raw of textLines(chunks(), 'fuzz', SIG_LIMITS.lineBytes)) {
    line++;
    const v = parseStrictJson(raw, { where: `fuzz line ${line}`, maxDepth: SIG_LIMITS.depth });
    if (line === 1) {
      checkHeader(v, 'fuzz line 1');
      continue;
    }
    const r = checkSigRecord(v, `fuzz line ${line}`);
    order.push(r, line);
    records.push(r);
  }
  if (line === 0) throw new BrickpostError('TRUNCATED', 'fuzz: no header');
  order.finish();
  return { records, totals: { ...order.totals } };
}

test('fuzz signature and request files: checkHeader, checkSigRecord, SigRecordOrder over textLines', async () => {
  for (const b of SIG_FILES) await readSigRecords([b]);
  await fuzz(
    'sigfile records',
    withSplits(bytesInput(SIG_FILES, 1024)),
    ({ bytes, cuts }) => readSigRecords(pieces(bytes, cuts)),
    (_x, { records, totals }) => {
      const end = records[records.length - 1]!;
      assert.equal(end.t, 'end');
      if (end.t === 'end') assert.deepEqual({ files: end.files, chunks: end.chunks, bytes: end.bytes }, totals);
    },
    { runs: 400, show: (x) => x.bytes },
  );
});

// receipts

const RECEIPT: Receipt = { ...SAMPLE_RECEIPT, subscriber: { ...SAMPLE_RECEIPT.subscriber, recipient: SIG_HEADER.recipient } };

test('fuzz receipts: parseReceipt, round trip through formatReceipt', () => {
  const seeds = [
    RECEIPT,
    { ...RECEIPT, applied: RECEIPT.applied.slice(1), verification: { level: 'deep' as const, ok: true, files: 0, bytes: 0, problems: [] } },
  ].map((r) => utf8(formatReceipt(r)));
  seeds.push(utf8(JSON.stringify(RECEIPT)));
  return fuzz(
    'parseReceipt',
    bytesInput(seeds, 1024),
    (b) => parseReceipt(b, 'fuzz'),
    (_b, r) => assert.deepEqual(parseReceipt(utf8(formatReceipt(r)), 'fuzz'), r),
    { runs: 400 },
  );
});

// recovery file headers

const PATHS = ['data/manifest.age', 'data/set.tsv', packPath(0), packPath(1), 'data/caf\u00e9.bin'];

/** A valid window header: runs of blocks of a few files, interleaved, each file's blocks in order. */
const windowHeader = fc
  .record({
    percent: fc.constantFrom(1, 5, 10, 33.33, 100),
    blockSize: fc.constantFrom(512, 4096, 1 << 20),
    interleave: fc.constantFrom(1, 2, 4, 32),
    files: fc.array(fc.record({ blocks: fc.integer({ min: 1, max: 12 }), ends: fc.boolean(), tail: fc.nat(), first: fc.nat({ max: 1000 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    run: fc.integer({ min: 1, max: 5 }),
    window: fc.nat(),
  })
  .map(({ percent, blockSize, interleave, files, run, window }): WindowHeader => {
    // Settings whose accumulators would pass 1 GiB are refused by the writer: fall back to small blocks.
    let params: RecoveryParams;
    try {
      params = recoveryParams({ percent, blockSize, interleave });
    } catch {
      params = recoveryParams({ percent, blockSize: 4096, interleave });
    }
    const segments: WindowHeader['segments'] = [];
    const lengths: number[] = [];
    const last: number[] = [];
    const left = files.map((f) => f.blocks);
    const next = files.map((f) => f.first);
    while (left.some((n) => n > 0) && lengths.length < windowBlocks(params)) {
      files.forEach((f, i) => {
        const count = Math.min(run, left[i]!, windowBlocks(params) - lengths.length);
        if (count <= 0) return;
        segments.push({ path: PATHS[i]!, first: next[i]!, count });
        for (let k = 0; k < count; k++) {
          const isLast = f.ends && left[i] === count && k === count - 1;
          lengths.push(isLast ? 1 + (f.tail % blockSize) : blockSize);
          last.push(isLast ? 1 : 0);
        }
        left[i]! -= count;
        next[i]! += count;
      });
    }
    const n = lengths.length;
    const groups = Uint8Array.from({ length: n }, (_v, p) => p % interleave);
    const counts = Array.from({ length: interleave }, (_v, q) => groups.filter((g) => g === q).length);
    const rows = Uint8Array.from(counts, (c) => rowsFor(c, params.basisPoints));
    const total = rows.reduce((t, r) => t + r, 0);
    return {
      params,
      window,
      segments,
      crcs: Uint32Array.from({ length: n }, (_v, p) => (p * 2654435761) >>> 0),
      lengths: Uint32Array.from(lengths),
      last: Uint8Array.from(last),
      groups,
      rows,
      rowCrcs: Uint32Array.from({ length: total }, (_v, t) => (t * 40503) >>> 0),
    };
  });

test('fuzz recovery headers: decodeHeader of generated headers reads back', () =>
  fuzz(
    'recovery decodeHeader round trip',
    windowHeader,
    (h) => decodeHeader(encodeHeader(h), 'fuzz'),
    (h, back) => assert.deepEqual(back, h),
    { runs: 200 },
  ));

test('fuzz recovery headers: decodeHeader, headerLength, checkVersion of mutated and arbitrary headers', () => {
  const seeds = fc.sample(windowHeader, { seed: 11, numRuns: 12 }).map(encodeHeader);
  return fuzz(
    'recovery decodeHeader',
    fc.tuple(fc.oneof({ arbitrary: mutatedBytes(seeds, 5), weight: 5 }, { arbitrary: arbitraryBytes(256), weight: 1 }), fc.nat({ max: 4 })),
    ([mutant, keep]) => {
      // Mostly keep the length field true to the mutated size, so decoding goes past it.
      const b = Buffer.from(mutant);
      if (keep > 0 && b.length >= HEADER_LENGTH_AT + 4) b.writeUInt32LE(b.length, HEADER_LENGTH_AT);
      checkVersion(b, 'fuzz');
      headerLength(b);
      headerIntact(b);
      return { b, h: decodeHeader(b, 'fuzz') };
    },
    (_x, { b, h }) => {
      const again = encodeHeader(h);
      assert.ok(again.subarray(0, -32).equals(b.subarray(0, -32)), 'a header that encodeHeader would not write was accepted');
    },
    { runs: 400, show: (x) => x[0] },
  );
});
