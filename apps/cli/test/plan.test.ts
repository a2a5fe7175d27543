/**
 * `brickpost plan` as transcripts: the human report, the --json document
 * (the engine's PlanResult), measured drive speeds from the catalog, and
 * units it cannot read.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { computePlan } from '@brickpost/engine/plan';
import { brickpost, json, show } from './transcript.js';

const root = mkdtempSync(join(tmpdir(), 'bp-plan-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const plan = (...args: string[]) => brickpost(['plan', ...args, '--home', home]);

test('plan 10TB --drives 2: aligned lines and the recommendation', () => {
  const t = plan('10TB', '--drives', '2');
  assert.equal(t.code, 0, show(t));
  assert.equal(t.stderr, '');
  assert.equal(
    t.stdout,
    [
      'size        10 TB',
      'network     9.3 days     12.5 MB/s, link-bound (4 streams × 10.1 MB/s; 100 Mbit/s link, 80 ms RTT, 4.19 MB window)',
      'ship        1.6 days     write 6.9 hours + courier 1 day + read 6.9 hours',
      'drives      2            written and read in parallel, drive speed 200 MB/s (the default; give --drive-speed)',
      'cross-over  1.15 TB      the network is faster below it, drives above it',
      'Ship drives: 10 TB arrives in 1.6 days by courier against 9.3 days over the network.',
      '',
    ].join('\n'),
  );
});

test('a slow window on a fast link is window-bound; a small size goes over the network', () => {
  const t = plan('1TB', '--link', '1Gbit/s', '--rtt', '80ms', '--window', '64KiB', '--streams', '1');
  assert.equal(t.code, 0, show(t));
  assert.match(t.stdout, /^network +14 days +814 kB\/s, window-bound \(1 stream × 814 kB\/s; 1 Gbit\/s link, 80 ms RTT, 65\.5 kB window\)$/m);
  const small = plan('50GB', '--courier', '2d');
  assert.equal(small.code, 0, show(small));
  assert.match(small.stdout, /^Send over the network: 50 GB arrives in 67 minutes against 2 days by courier\.$/m);
});

test('--json prints the engine PlanResult for the parsed units, costs included', () => {
  const t = plan(
    '1.5TiB',
    '--link',
    '10Gbps',
    '--rtt',
    '0.2s',
    '--window',
    '4MiB',
    '--streams',
    '8',
    '--drive-speed',
    '250MB/s',
    '--drives',
    '3',
    '--courier',
    '1.5d',
    '--drive-cost',
    '120',
    '--courier-cost',
    '60.50',
    '--network-cost-per-tb',
    '9',
    '--json',
  );
  assert.equal(t.code, 0, show(t));
  const doc = json(t);
  const want = computePlan({
    bytes: 1.5 * 2 ** 40,
    linkBitsPerSecond: 10e9,
    rttSeconds: 0.2,
    windowBytes: 4 * 2 ** 20,
    streams: 8,
    driveBytesPerSecond: 250e6,
    drives: 3,
    courierSeconds: 1.5 * 86400,
    driveCost: 120,
    courierCost: 60.5,
    networkCostPerTB: 9,
  });
  assert.deepEqual(doc, JSON.parse(JSON.stringify(want)));
  assert.equal(doc.bound, 'window');
  assert.equal(doc.shipCost, 420.5);
  assert.equal(doc.driveSpeedSource, 'given');
  assert.ok(doc.curve.length > 10);
});

test('without --drive-speed, the median of recent measured packs is the default, and says so', () => {
  assert.equal(plan('1TB').code, 0); // creates the home and its catalog
  const db = new Database(join(home, 'catalog.sqlite'));
  const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (const [day, rate] of [
    ['01', 160e6],
    ['02', 200e6],
    ['03', 170e6],
    ['04', 190e6],
  ] as const) {
    put.run(`drive-rate/2026-03-${day}T00:00:00.000Z/s-${day}`, JSON.stringify({ bytes: 2e10, drives: 1, seconds: 2e10 / rate }));
  }
  db.close();
  const t = plan('10TB');
  assert.equal(t.code, 0, show(t));
  assert.match(t.stdout, /^drives +1 +drive speed 180 MB\/s, measured over your last 4 packs$/m);
  assert.equal(json(plan('10TB', '--json')).inputs.driveBytesPerSecond, 180e6);
  assert.match(plan('10TB', '--drive-speed', '100MB/s').stdout, /drive speed 100 MB\/s$/m);
});

test('units it cannot read: USAGE, exit 2, the value quoted', () => {
  const cases: Array<[string[], RegExp]> = [
    [['10XB'], /SIZE must be a size such as 10TB, 1\.5TiB or 500GB, not "10XB"/],
    [['10TB', '--link', 'fast'], /--link must be a bit rate such as 100Mbit, 1Gbit\/s or 10Gbps, not "fast"/],
    [['10TB', '--rtt', '80 parsecs'], /--rtt must be a time such as 80ms or 0\.2s, not "80 parsecs"/],
    [['10TB', '--window', '4 MiBs'], /--window must be a size such as 64KiB or 4MiB, not "4 MiBs"/],
    [['10TB', '--streams', '0'], /--streams must be a whole number from 1 to 100000, not "0"/],
    [['10TB', '--drive-speed', 'quick'], /--drive-speed must be a speed such as 200MB\/s or 1\.5GB\/s, not "quick"/],
    [['10TB', '--courier', 'tomorrow'], /--courier must be a time such as 24h, 2d or 1\.5h, not "tomorrow"/],
    [['10TB', '--drive-cost', '$5'], /--drive-cost must be an amount such as 120 or 99\.50, not "\$5"/],
  ];
  for (const [args, message] of cases) {
    const t = plan(...args);
    assert.equal(t.code, 2, show(t));
    assert.match(t.stderr, message, show(t));
    assert.match(t.stderr, /brickpost: hint: see 'brickpost plan --help'/);
    assert.equal(t.stdout, '');
  }
  const j = plan('10TB', '--link', 'fast', '--json');
  assert.equal(j.code, 2);
  assert.equal(json(j).code, 'USAGE');
});
