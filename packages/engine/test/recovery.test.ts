/**
 * Recovery data (§recovery-data): a bag of random files written with
 * RecoveryWriter at 2 % and 10 % (4 KiB blocks, interleave 4, two packs fed
 * interleaved), then damage within and beyond the budget, damaged and
 * hostile recovery files, links, the overhead, and the writer's refusals;
 * small drives whose last window is coded with fewer groups.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bagit, type BrickpostError } from '@brickpost/manifest';
import { decodeHeader, encodeHeader, HEADER_LENGTH_AT, type WindowHeader } from '../src/recovery/header.js';
import { RecoveryWriter, repairRecovery, scanRecovery, type RecoveryFileInfo, type RecoveryFileReport, type RecoveryReport } from '../src/recovery/index.js';

const MiB = 1 << 20;
const B = 4096;
const I = 4;
const root = mkdtempSync(join(tmpdir(), 'bp-recovery-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SET = 'data/set.tsv';
const MAN = 'data/manifest.age';
const P0 = 'data/packs/000/000000.age';
const P1 = 'data/packs/000/000001.age';
const P2 = 'data/packs/000/000002.age';
/** Fed in this order: set and manifest, packs 0 and 1 interleaved, pack 2 from disk. */
const SIZES: Array<[string, number]> = [
  [SET, 300],
  [MAN, 3 * B],
  [P0, 12 * MiB + 777],
  [P1, 3 * MiB + 123],
  [P2, 700 * 1024 + 5],
];
const BLOCKS = SIZES.reduce((t, [, n]) => t + Math.ceil(n / B), 0);

interface Bag {
  dir: string;
  rec: RecoveryFileInfo[];
}

/** Deterministic pseudo-random numbers in [0, 1) (xorshift32). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

async function feed(rw: RecoveryWriter, rel: string, buf: Buffer, rnd: () => number): Promise<void> {
  for (let at = 0; at < buf.length;) {
    const n = Math.min(buf.length - at, 1 + Math.floor(rnd() * 3 * B));
    await rw.add(rel, at, buf.subarray(at, at + n));
    at += n;
  }
  await rw.endFile(rel);
}

/** Files other than the packs fed one at a time, packs 0 and 1 interleaved, pack 2 (if any) from disk. */
async function buildBag(
  name: string,
  percent: number,
  sizes = SIZES,
  opts: { blockSize?: number; interleave?: number } = { blockSize: B, interleave: I },
): Promise<Bag> {
  const dir = join(root, name);
  const data = new Map(sizes.map(([rel, n]) => [rel, randomBytes(n)]));
  for (const [rel, buf] of data) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), buf);
  }
  const rw = await RecoveryWriter.create(dir, { percent, ...opts });
  const rnd = rng(percent * 7919);
  for (const [rel] of sizes.filter(([r]) => ![P0, P1, P2].includes(r))) await feed(rw, rel, data.get(rel)!, rnd);
  await Promise.all([feed(rw, P0, data.get(P0)!, rnd), feed(rw, P1, data.get(P1)!, rnd)]);
  if (data.has(P2)) await rw.addFile(P2, join(dir, P2));
  const rec = await rw.finish();
  const entries = [...[...data].map(([path, buf]) => ({ path, digest: sha(buf) })), ...rec.map((r) => ({ path: r.path, digest: r.sha256 }))];
  writeFileSync(join(dir, 'manifest-sha256.txt'), bagit.formatManifest(entries));
  return { dir, rec };
}

function sha(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** A fresh copy of a pristine bag, to damage. */
function copyOf(bag: Bag, name: string): string {
  const dir = join(root, name);
  cpSync(bag.dir, dir, { recursive: true });
  return dir;
}

/** Every byte of [from, from + len) of a file inverted. */
function smash(dir: string, rel: string, from: number, len: number): void {
  const buf = readFileSync(join(dir, rel));
  for (let x = from; x < from + len; x++) buf[x] = buf[x]! ^ 0xff;
  writeFileSync(join(dir, rel), buf);
}

function file(r: RecoveryReport, rel: string): RecoveryFileReport {
  const f = r.files.find((x) => x.path === rel);
  assert.ok(f, `${rel} is in the report`);
  return f;
}

function statuses(r: RecoveryReport): Record<string, string> {
  return Object.fromEntries(r.files.map((f) => [f.path, f.status]));
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

/** Every protected file matches the payload manifest. */
function assertIntact(dir: string, bag: Bag): void {
  const listed = bagit.parseManifest(readFileSync(join(dir, 'manifest-sha256.txt')), { maxEntries: 100, payload: true });
  for (const e of listed.filter((x) => !x.path.startsWith('data/recovery/'))) {
    assert.equal(sha(readFileSync(join(dir, e.path))), e.digest, `${e.path} matches the manifest`);
  }
  assert.ok(bag.rec.length > 0);
}

/** Header length of a recovery file, and its bytes. */
function recFile(dir: string, rel: string): { bytes: Buffer; H: number } {
  const bytes = readFileSync(join(dir, rel));
  return { bytes, H: bytes.readUInt32LE(HEADER_LENGTH_AT) };
}

let p2: Bag;
let p10: Bag;

beforeAll(async () => {
  p2 = await buildBag('pristine-2', 2);
  p10 = await buildBag('pristine-10', 10);
});

describe('recovery data', () => {
  test('an intact bag scans clean: every block of every file, no window problems', async () => {
    for (const bag of [p2, p10]) {
      const r = await scanRecovery(bag.dir);
      assert.equal(r.windows, Math.ceil(BLOCKS / (200 * I)));
      assert.deepEqual([r.blocks, r.damagedBlocks, r.unrepairableBlocks, r.windowProblems], [BLOCKS, 0, 0, []]);
      const byPath = [...r.files].sort((a, b) => a.path.localeCompare(b.path)).map((f) => [f.path, f.status, f.size, f.blocks]);
      assert.deepEqual(
        byPath,
        [...SIZES].sort((a, b) => a[0].localeCompare(b[0])).map(([p, n]) => [p, 'intact', n, Math.ceil(n / B)]),
      );
    }
  });

  test('a contiguous run of r × I blocks (2 %: 16) is found and repaired, also in a file fed interleaved', async () => {
    const dir = copyOf(p2, 'run-2');
    smash(dir, P0, 1000 * B, 16 * B);
    smash(dir, P1, 100 * B, 16 * B);
    const s = await scanRecovery(dir);
    assert.deepEqual([s.damagedBlocks, s.unrepairableBlocks], [32, 0]);
    assert.deepEqual([file(s, P0).status, file(s, P0).damaged], ['repairable', range(1000, 16)]);
    assert.deepEqual([file(s, P1).status, file(s, P1).damaged], ['repairable', range(100, 16)]);
    const r = await repairRecovery(dir);
    assert.equal(r.repairedBlocks, 32);
    assert.deepEqual([file(r, P0).status, file(r, P1).status], ['repaired', 'repaired']);
    assertIntact(dir, p2);
    assert.equal((await scanRecovery(dir)).damagedBlocks, 0);
  });

  test('scattered bytes, a truncated file and a deleted small file (2 %) are reported exactly and repaired', async () => {
    const dir = copyOf(p2, 'scatter-2');
    smash(dir, MAN, B + 17, 1);
    for (const blk of [300, 2000, 3000]) smash(dir, P0, blk * B + 99, 1);
    smash(dir, P1, 300 * B, 1);
    truncateSync(join(dir, P1), 765 * B + 1000);
    unlinkSync(join(dir, SET));
    appendFileSync(join(dir, P2), 'appended');
    const s = await scanRecovery(dir);
    const damaged = Object.fromEntries(s.files.map((f) => [f.path, f.damaged]));
    assert.deepEqual(damaged, { [SET]: [0], [MAN]: [1], [P0]: [300, 2000, 3000], [P1]: [300, 765, 766, 767, 768], [P2]: [] });
    assert.deepEqual(statuses(s), { [SET]: 'repairable', [MAN]: 'repairable', [P0]: 'repairable', [P1]: 'repairable', [P2]: 'repairable' });
    assert.match(file(s, P2).reason!, /716813 bytes, longer than the 716805 recorded: repair cuts it to 716805 bytes/);
    assert.deepEqual([file(s, SET).actualSize, file(s, P1).actualSize], [null, 765 * B + 1000]);
    const r = await repairRecovery(dir);
    assert.deepEqual(statuses(r), { [SET]: 'repaired', [MAN]: 'repaired', [P0]: 'repaired', [P1]: 'repaired', [P2]: 'repaired' });
    assert.equal(r.repairedBlocks, 10);
    assertIntact(dir, p2);
  });

  test('at 10 %: a run of 80 blocks, a deleted file and cut-off blocks (also at a block boundary) are repaired', async () => {
    const dir = copyOf(p10, 'mixed-10');
    smash(dir, P0, 1000 * B + 1, 80 * B - 2);
    unlinkSync(join(dir, SET));
    truncateSync(join(dir, P1), 758 * B + 500);
    truncateSync(join(dir, MAN), B);
    const s = await scanRecovery(dir);
    const damaged = [file(s, P0).damaged, file(s, P1).damaged, file(s, MAN).damaged, s.unrepairableBlocks];
    assert.deepEqual(damaged, [range(1000, 80), range(758, 11), [1, 2], 0]);
    const r = await repairRecovery(dir);
    assert.deepEqual(statuses(r), { [SET]: 'repaired', [MAN]: 'repaired', [P0]: 'repaired', [P1]: 'repaired', [P2]: 'intact' });
    assertIntact(dir, p10);
  });

  test('damage beyond the budget names the file that cannot be repaired; the others are repaired', async () => {
    const dir = copyOf(p2, 'beyond-2');
    smash(dir, P0, 2800 * B, 40 * B);
    smash(dir, P1, 5 * B + 3, 1);
    const s = await scanRecovery(dir);
    assert.deepEqual([file(s, P0).status, file(s, P0).unrepairable, file(s, P1).status], ['unrepairable', range(2800, 40), 'repairable']);
    const r = await repairRecovery(dir);
    assert.deepEqual([file(r, P0).status, file(r, P1).status, r.repairedBlocks], ['unrepairable', 'repaired', 1]);
    assert.match(file(r, P0).reason!, /40 of 40 damaged blocks/);
    assert.equal(sha(readFileSync(join(dir, P1))), sha(readFileSync(join(p2.dir, P1))));
  });

  test('damaged recovery files: one header copy or a recovery block degrades a window, both copies lose it, data stays fine', async () => {
    const dir = copyOf(p2, 'rec-damage-2');
    const [w0, w1, w2] = p2.rec.map((r) => r.path);
    smash(dir, w1!, 40, 8);
    const { H } = recFile(dir, w2!);
    smash(dir, w2!, H + 5 * B + 7, 1);
    let s = await scanRecovery(dir);
    assert.equal(s.damagedBlocks, 0);
    assert.deepEqual(
      s.windowProblems.map((p) => [p.window, p.state, p.damagedRows]),
      [
        [1, 'degraded', 0],
        [2, 'degraded', 1],
      ],
    );
    assert.match(s.windowProblems[0]!.reason, /first copy of the header/);
    const h0 = recFile(dir, w0!);
    smash(dir, w0!, 30, 4);
    smash(dir, w0!, h0.bytes.length - 4 - h0.H + 30, 4);
    s = await scanRecovery(dir);
    assert.deepEqual(s.windowProblems[0], { window: 0, path: w0, state: 'lost', reason: 'both copies of the header are damaged', damagedRows: 0 });
    assert.equal(s.blocks, BLOCKS - 200 * I);
    assert.ok(s.files.every((f) => f.status === 'intact'));
  });

  test('a damaged recovery block costs one row of its group only', async () => {
    const dir = copyOf(p2, 'row-damage-2');
    const w2 = p2.rec[2]!.path;
    const { bytes, H } = recFile(dir, w2);
    const h = decodeHeader(bytes.subarray(0, H), w2);
    smash(dir, w2, H + 1, 1); // row 0 of group 0
    const q0 = [...h.groups.keys()].filter((p) => h.groups[p] === 0).slice(0, 3);
    const q1 = [...h.groups.keys()].filter((p) => h.groups[p] === 1).slice(0, 4);
    const first = h.segments[0]!;
    assert.ok(h.segments.length === 1 && first.path === P0, 'window 2 holds pack 0 only');
    for (const p of [...q0, ...q1]) smash(dir, P0, (first.first + p) * B, 1);
    const r = await repairRecovery(dir);
    assert.deepEqual([r.damagedBlocks, r.unrepairableBlocks, file(r, P0).status], [7, 0, 'repaired']);
    smash(dir, P0, (first.first + q0[0]!) * B, 1);
    smash(dir, P0, (first.first + [...h.groups.keys()].filter((p) => h.groups[p] === 0)[3]!) * B, 1);
    for (const p of q0.slice(1)) smash(dir, P0, (first.first + p) * B, 1);
    assert.equal((await scanRecovery(dir)).unrepairableBlocks, 4, 'four erasures, three intact rows');
  });

  test('recovery bytes are the percentage of the data, at most one block per group more', () => {
    for (const [bag, percent] of [
      [p2, 2],
      [p10, 10],
    ] as const) {
      let rows = 0;
      let headers = 0;
      for (const r of bag.rec) {
        const { H } = recFile(bag.dir, r.path);
        assert.equal((r.size - 2 * H - 4) % B, 0);
        rows += (r.size - 2 * H - 4) / B;
        headers += 2 * H + 4;
      }
      const ideal = (BLOCKS * percent) / 100;
      assert.ok(rows >= ideal && rows <= ideal + bag.rec.length * I, `${rows} recovery blocks for ${ideal}`);
      const full = bag.rec.slice(0, -1).map((r) => r.size - 2 * recFile(bag.dir, r.path).H - 4);
      assert.ok(
        full.every((n) => n === (200 * I * B * percent) / 100),
        'a full window is exactly the percentage',
      );
      assert.ok(headers < BLOCKS * B * 0.01, `${headers} header bytes (two copies) for ${BLOCKS} blocks of 4 KiB`);
    }
  });

  test('a hostile header naming ../x or an unlisted file is refused, and nothing is written there', async () => {
    for (const [name, path, code] of [
      ['dotdot', 'data/../x', 'UNSAFE_PATH'],
      ['unlisted', 'data/unlisted.bin', 'UNSAFE_PATH'],
    ]) {
      const dir = copyOf(p2, `hostile-${name}`);
      const w0 = p2.rec[0]!.path;
      const { bytes, H } = recFile(dir, w0);
      const h = decodeHeader(bytes.subarray(0, H), w0);
      h.segments[0]!.path = path!;
      const head = encodeHeader(h);
      const tail = Buffer.alloc(4);
      tail.writeUInt32LE(head.length);
      writeFileSync(join(dir, w0), Buffer.concat([head, bytes.subarray(H, bytes.length - 4 - H), head, tail]));
      unlinkSync(join(dir, SET));
      const r = await repairRecovery(dir);
      assert.deepEqual(
        r.windowProblems.map((p) => [p.window, p.state, p.code]),
        [[0, 'refused', code]],
      );
      assert.match(r.windowProblems[0]!.reason, name === 'dotdot' ? /"\.\." path component/ : /does not list/);
      assert.ok(!existsSync(join(dir, 'x')) && !existsSync(join(dir, 'data/unlisted.bin')) && !existsSync(join(dir, SET)));
      if (name === 'dotdot')
        assert.throws(
          () => decodeHeader(head, w0),
          (e: BrickpostError) => e.code === 'UNSAFE_PATH',
        );
    }
  });

  test('recovery data that disagrees with a file matching the payload manifest does not change it', async () => {
    const dir = copyOf(p2, 'disagree-2');
    const w0 = p2.rec[0]!.path;
    const { bytes, H } = recFile(dir, w0);
    const h = decodeHeader(bytes.subarray(0, H), w0);
    h.crcs[1] = h.crcs[1]! ^ 1;
    const head = encodeHeader(h);
    writeFileSync(join(dir, w0), Buffer.concat([head, bytes.subarray(H)]));
    assert.deepEqual(file(await scanRecovery(dir), MAN).damaged, [0]);
    const before = readFileSync(join(dir, MAN));
    const r = await repairRecovery(dir);
    assert.deepEqual([file(r, MAN).status, r.repairedBlocks, r.damagedBlocks], ['intact', 0, 0]);
    assert.match(file(r, MAN).reason!, /recovery data that disagrees/);
    assert.ok(readFileSync(join(dir, MAN)).equals(before));
  });

  test('a header with a block size over 1 MiB is MALFORMED', () => {
    const w0 = p2.rec[0]!.path;
    const { bytes, H } = recFile(p2.dir, w0);
    const h = decodeHeader(bytes.subarray(0, H), w0);
    h.params = { ...h.params, blockSize: 2 * MiB };
    assert.throws(
      () => decodeHeader(encodeHeader(h), w0),
      (e: BrickpostError) => e.code === 'MALFORMED' && /block size 2097152/.test(e.message),
    );
  });

  test('a protected file replaced by a symbolic link is not written through', async () => {
    const dir = copyOf(p2, 'symlink-2');
    const outside = join(root, 'outside.bin');
    writeFileSync(outside, 'not yours');
    unlinkSync(join(dir, SET));
    symlinkSync(outside, join(dir, SET));
    const r = await repairRecovery(dir);
    assert.equal(file(r, SET).status, 'unrepairable');
    assert.match(file(r, SET).reason!, /symbolic link/);
    assert.equal(readFileSync(outside, 'utf8'), 'not yours');
    assert.ok(lstatSync(join(dir, SET)).isSymbolicLink());
  });

  test('the writer refuses bad options, offsets out of sequence and paths outside data/', async () => {
    const dir = join(root, 'writer');
    mkdirSync(join(dir, 'data'), { recursive: true });
    await assert.rejects(RecoveryWriter.create(dir, { percent: 0 }), { code: 'USAGE' });
    await assert.rejects(RecoveryWriter.create(dir, { percent: 2, blockSize: 1000 }), { code: 'USAGE' });
    const rw = await RecoveryWriter.create(dir, { percent: 5, blockSize: B, interleave: I });
    await assert.rejects(rw.add('bagit.txt', 0, Buffer.alloc(1)), { code: 'USAGE' });
    await assert.rejects(rw.add('data/a', 0, Buffer.alloc(1)), { code: 'USAGE' }, 'the writer stays failed');
    const rw2 = await RecoveryWriter.create(dir, { percent: 5, blockSize: B, interleave: I });
    await rw2.add('data/a', 0, Buffer.alloc(10));
    await assert.rejects(rw2.add('data/a', 5, Buffer.alloc(1)), { code: 'USAGE', message: /offset 5, expected 10/ });
    await rw2.abort();
    assert.ok(!existsSync(join(dir, 'data/recovery')));
  });
});

describe('the last window of a drive', () => {
  const KB64 = 1 << 16;
  let s1: Bag;
  let s10: Bag;
  let mid: Bag;
  /** The last recovery file's header of a bag. */
  const lastHeader = (bag: Bag): WindowHeader => {
    const w = bag.rec.at(-1)!.path;
    const { bytes, H } = recFile(bag.dir, w);
    return decodeHeader(bytes.subarray(0, H), w);
  };
  beforeAll(async () => {
    const small = (bytes: number): Array<[string, number]> => [
      [MAN, 5000],
      [P0, bytes / 2],
      [P1, bytes / 2 - 5000],
    ];
    s1 = await buildBag('small-1', 2, small(MiB), {});
    s10 = await buildBag('small-10', 2, small(10 * MiB), {});
    mid = await buildBag('mid-2', 2, [
      [MAN, 3 * B],
      [P0, MiB],
      [P1, 150 * B + 1],
    ]);
  });

  test('has as few groups as its blocks need: the percentage plus at most a row per group, not a row for each of 32', () => {
    for (const [bag, n, groups, rows] of [
      [s1, 17, 1, [1]],
      [s10, 161, 1, [4]],
      [mid, 410, 3, [3, 3, 3]],
      [p2, 22, 1, [1]],
      [p10, 22, 1, [3]],
    ] as const) {
      const h = lastHeader(bag);
      assert.deepEqual([h.crcs.length, h.params.interleave, [...h.rows]], [n, groups, rows]);
    }
    const size = s10.rec[0]!.size;
    assert.ok(s10.rec.length === 1 && size <= 0.06 * 10 * MiB, `${size} recovery bytes for 10 MiB`);
    assert.ok(s1.rec[0]!.size < 2 * KB64, `${s1.rec[0]!.size} recovery bytes for 1 MiB`);
  });

  test('keeps the streamed coding when its files cannot be read back as they were fed', async () => {
    for (const [name, onDisk] of [
      ['gone', undefined],
      ['changed', randomBytes(MiB)],
    ] as const) {
      const dir = join(root, `unread-${name}`);
      mkdirSync(join(dir, 'data'), { recursive: true });
      if (onDisk) writeFileSync(join(dir, 'data/a'), onDisk);
      const rw = await RecoveryWriter.create(dir, { percent: 2 });
      await rw.add('data/a', 0, randomBytes(MiB));
      await rw.endFile('data/a');
      const rec = await rw.finish();
      const h = lastHeader({ dir, rec });
      assert.deepEqual([h.params.interleave, h.rowCrcs.length], [32, 16]);
    }
  });

  test('repairs up to r damaged blocks of a group and reports more', async () => {
    const dir = copyOf(s10, 'small-10-four');
    smash(dir, MAN, 7, 1);
    smash(dir, P0, 5 * KB64, 2 * KB64);
    smash(dir, P1, 63 * KB64 + 1, 1);
    const r = await repairRecovery(dir);
    assert.deepEqual([r.damagedBlocks, r.repairedBlocks, r.unrepairableBlocks], [4, 4, 0]);
    assertIntact(dir, s10);
    const five = copyOf(s10, 'small-10-five');
    smash(five, P0, 20 * KB64, 5 * KB64);
    assert.deepEqual([(await scanRecovery(five)).unrepairableBlocks, file(await repairRecovery(five), P0).status], [5, 'unrepairable']);
    const run = copyOf(mid, 'mid-run');
    smash(run, P0, 100 * B, 9 * B);
    const m = await repairRecovery(run);
    assert.deepEqual([m.repairedBlocks, m.unrepairableBlocks, file(m, P0).status], [9, 0, 'repaired']);
    assertIntact(run, mid);
  });
});
