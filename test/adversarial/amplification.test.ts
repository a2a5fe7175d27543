/**
 * Bounded work for a small hostile drive: reference amplification. A
 * validly signed drive of about a megabyte whose one file names one 1 MiB
 * chunk two million times (2 TiB of data) is refused by ingest and by
 * verify --deep while the manifest is read (LIMIT_EXCEEDED, exit 4), at
 * one of its first lines, naming the line, the file and the
 * --max-expansion value that accepts it. Accepted on purpose, verify
 * --deep decodes the chunk once and says how many refs it covered, with
 * peak memory that does not grow with the refs, and ingest stops with
 * NO_SPACE at the file that passes the free space, before writing. A
 * sparse file's holes count neither as expansion nor as room needed. Each
 * refusal runs on the native core and on the TypeScript path
 * (BRICKPOST_NATIVE=0). Nothing here depends on timing: a run that
 * decoded every ref would need hours, and fails by its timeout.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readdirSync, readSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newParty, type PartyKeys } from '@brickpost/engine/testing';
import { tempDir } from '../support.js';
import { amplifiedDrive, noise, sparseDrive } from './amplified.js';
import { assertBounded, assertRefused, run, type Outcome } from './harness.js';

/**
 * Peak memory of any run here. Holding the refs would pass it: two
 * million refs as parsed records take several hundred megabytes.
 */
const RSS_MB = 200;
const MANY = 2_000_000;
const FEWER = 200_000;
const PATHS: Array<[string, Record<string, string>]> = [
  ['native core', {}],
  ['TypeScript path', { BRICKPOST_NATIVE: '0' }],
];

/** The manifest line a refusal names (`data/manifest.age line N`). */
function lineOf(message: string): number {
  const m = /data\/manifest\.age line ([0-9]+)/.exec(message);
  assert.ok(m, `no manifest line in ${JSON.stringify(message)}`);
  return Number(m[1]);
}

describe('reference amplification', () => {
  const root = tempDir('bp-adv-amp-');
  const home = join(root, 'home');
  let self: PartyKeys;
  const drive = (refs: number): string => join(root, `drive-${refs}`);
  const cli = (args: string[], env: Record<string, string> = {}): Outcome => run(home, args, { env: { ...process.env, ...env }, timeout: 300_000 });
  const summary = (o: Outcome): Record<string, any> => o.events.find((e) => e.type === 'summary')!.result;

  beforeAll(async () => {
    self = newParty(home);
    const chunk = noise(1 << 20);
    for (const refs of [FEWER, MANY]) await amplifiedDrive(drive(refs), self, refs, chunk);
  });

  for (const [name, env] of PATHS) {
    test(`${name}: ingest refuses two million refs to one chunk at a first line of the manifest (exit 4), DEST unchanged`, () => {
      const dest = join(root, `dest-refused-${env['BRICKPOST_NATIVE'] ?? '1'}`);
      const o = cli(['ingest', drive(MANY), dest], env);
      const ev = assertRefused(o, {
        code: 'LIMIT_EXCEEDED',
        exit: 4,
        names:
          /expands more than 10000 times its [0-9]+ bytes on the drive: .*\(data\/manifest\.age line [0-9]+, "big\.bin"\); --max-expansion [0-9]+ accepts it/,
      });
      // Each line holds 1024 refs: the refusal comes within the first 2% of the manifest's 1957 lines.
      assert.ok(lineOf(String(ev.message)) <= 40, String(ev.message));
      assert.ok(o.rssMb < RSS_MB, `peak RSS ${o.rssMb.toFixed(0)} MB`);
      assert.match(String(ev.hint), /if you trust the publisher, accept it: brickpost --home \S+ --json ingest \S+ \S+ --max-expansion [0-9]+$/);
      assert.deepEqual(
        readdirSync(dest).filter((f) => f !== '.brickpost'),
        [],
      );
    });

    test(`${name}: verify --deep reports the same refusal before decoding more than a chunk`, () => {
      const o = cli(['verify', '--deep', drive(MANY)], env);
      assertRefused(o, { code: 'LIMIT_EXCEEDED', exit: 4, names: '--max-expansion' });
      const report = summary(o);
      assert.equal(report.deep, 'failed');
      assert.ok((report.chunksChecked ?? 0) <= 1, `${report.chunksChecked} chunks decoded`);
      assert.ok(o.rssMb < RSS_MB, `peak RSS ${o.rssMb.toFixed(0)} MB`);
    });

    test(`${name}: verify --deep --max-expansion none decodes the chunk once and says it covered every ref`, () => {
      const o = cli(['verify', '--deep', drive(FEWER), '--max-expansion', 'none'], env);
      assert.equal(o.code, 0, o.stdout.slice(-1500) + o.stderr.slice(-1500));
      const report = summary(o);
      assert.equal(report.deep, 'ok');
      assert.equal(report.chunksChecked, 1);
      assert.equal(report.refsCovered, FEWER);
      assertBounded(o);
    });
  }

  test('memory does not grow with the refs: two million cost what two hundred thousand cost', () => {
    const small = cli(['verify', '--deep', drive(FEWER), '--max-expansion', 'none']);
    const large = cli(['verify', '--deep', drive(MANY), '--max-expansion', 'none']);
    for (const o of [small, large]) assert.equal(o.code, 0, o.stderr.slice(-1500));
    assert.equal(summary(large).refsCovered, MANY);
    assert.equal(summary(large).chunksChecked, 1);
    assert.ok(large.rssMb < RSS_MB, `peak RSS ${large.rssMb.toFixed(0)} MB`);
    assert.ok(large.rssMb - small.rssMb < 32, `peak RSS ${small.rssMb.toFixed(0)} MB with ${FEWER} refs, ${large.rssMb.toFixed(0)} MB with ${MANY}`);
  });

  test('accepted on purpose, ingest stops with NO_SPACE at the file that passes the free space (exit 5), before writing', (t) => {
    const dest = join(root, 'dest-no-space');
    mkdirSync(dest);
    const fs = statfsSync(dest);
    if (fs.bavail * fs.bsize > 2 ** 41) return t.skip('the file system has more than the 2 TiB the shipment needs');
    const o = cli(['ingest', drive(MANY), dest, '--max-expansion', 'none']);
    assertRefused(o, { code: 'NO_SPACE', exit: 5, names: /has [0-9]+ bytes free, the shipment needs at least [0-9]+/ });
    assert.ok(o.rssMb < RSS_MB, `peak RSS ${o.rssMb.toFixed(0)} MB`);
    assert.deepEqual(
      readdirSync(dest).filter((f) => f !== '.brickpost'),
      [],
    );
  });
});

describe('holes of sparse files are neither expansion nor room', () => {
  const root = tempDir('bp-adv-sparse-');
  const home = join(root, 'home');
  const drive = join(root, 'drive');
  const SIZE = 2 ** 40;
  const AT = 2 ** 39;
  const data = noise(1 << 20);

  beforeAll(async () => {
    // A 1 TiB disk image holding 1 MiB of data in its middle: a million times its size on the drive.
    await sparseDrive(drive, newParty(home), SIZE, AT, data);
  });

  test('a 1 TiB sparse file with 1 MiB of data ingests without --max-expansion, and stays sparse', () => {
    const dest = join(root, 'dest');
    const o = run(home, ['ingest', drive, dest]);
    assert.equal(o.code, 0, o.stdout.slice(-1500) + o.stderr.slice(-1500));
    assertBounded(o);
    const st = statSync(join(dest, 'disk.img'));
    assert.equal(st.size, SIZE);
    assert.ok(st.blocks * 512 < 64 << 20, `${st.blocks * 512} bytes allocated`);
    const b = Buffer.alloc(data.length);
    const fd = openSync(join(dest, 'disk.img'), 'r');
    readSync(fd, b, 0, b.length, AT);
    closeSync(fd);
    assert.ok(b.equals(data), 'the data in the middle arrived');
    const deep = run(home, ['verify', '--deep', drive]);
    assert.equal(deep.code, 0, deep.stdout.slice(-1500) + deep.stderr.slice(-1500));
  });
});
