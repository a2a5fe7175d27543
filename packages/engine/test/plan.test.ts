/**
 * The planner against hand-computed cases, its cross-over against the two
 * times it balances, the units it reads, and the measured drive speed: a
 * real pack records its rate in a real catalog, and plan takes the median.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../src/catalog/index.js';
import { Engine } from '../src/engine.js';
import { computePlan, driveRates, MIN_MEASURED_BYTES, recordDriveRate } from '../src/plan/index.js';
import { humanBitRate, humanDuration, humanSize, parseBitRate, parseByteRate, parseDuration, parseSize } from '../src/plan/units.js';

const close = (a: number, b: number, rel = 1e-9): void => assert.ok(Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)), `${a} is not ${b}`);

test('10 TB over 100 Mbit/s with the defaults: link-bound, 800,000 s (9.26 days)', () => {
  const r = computePlan({ bytes: 10e12 });
  assert.equal(r.bound, 'link');
  assert.equal(r.networkBytesPerSecond, 12.5e6);
  // One stream: 12.5e6 / (1 + 0.08 × 12.5e6 / 4 MiB); four of them exceed the link.
  close(r.streamBytesPerSecond, 12.5e6 / (1 + 1e6 / 4194304));
  assert.equal(r.networkSeconds, 800_000);
  close(r.networkSeconds / 86400, 9.259259259259);
  // 10 TB at 200 MB/s: 50,000 s to write, 50,000 s to read, 86,400 s by courier.
  assert.deepEqual([r.writeSeconds, r.courierSeconds, r.readSeconds, r.shipSeconds], [50_000, 86_400, 50_000, 186_400]);
  assert.equal(r.choice, 'ship');
  assert.equal(r.driveSpeedSource, 'default');
  assert.deepEqual(r.inputs, {
    bytes: 10e12,
    linkBitsPerSecond: 100e6,
    rttSeconds: 0.08,
    windowBytes: 4194304,
    streams: 4,
    driveBytesPerSecond: 200e6,
    drives: 1,
    courierSeconds: 86400,
  });
  // Cross-over: S / 12.5e6 = 2S / 200e6 + 86400, so S = 86400 / (8e-8 - 1e-8).
  assert.equal(r.crossoverBytes, Math.round(86400 / 7e-8));
});

test('1 TB at 1 Gbit/s, 80 ms RTT, 64 KiB window, one stream: window-bound at 813,866 B/s', () => {
  const r = computePlan({ bytes: 1e12, linkBitsPerSecond: 1e9, rttSeconds: 0.08, windowBytes: 65536, streams: 1 });
  assert.equal(r.bound, 'window');
  // 125e6 / (1 + 0.08 × 125e6 / 65536) = 125e6 / 153.587890625.
  close(r.streamBytesPerSecond, 813_866.2461691061);
  assert.equal(r.networkBytesPerSecond, r.streamBytesPerSecond);
  close(r.networkSeconds, 1_228_703.125);
  assert.ok(r.streamBytesPerSecond < 65536 / 0.08, 'below the pure window limit D/R');
});

test('streams multiply the per-stream rate until the link caps them', () => {
  const base = { bytes: 1e12, linkBitsPerSecond: 1e9, rttSeconds: 0.08, windowBytes: 65536 };
  const one = computePlan({ ...base, streams: 1 });
  const hundred = computePlan({ ...base, streams: 100 });
  assert.equal(hundred.bound, 'window');
  close(hundred.networkBytesPerSecond, 100 * one.streamBytesPerSecond);
  const many = computePlan({ ...base, streams: 1000 });
  assert.equal(many.bound, 'link');
  assert.equal(many.networkBytesPerSecond, 125e6);
  assert.equal(many.networkSeconds, 8000);
});

test('drives in parallel halve the write and read time', () => {
  const one = computePlan({ bytes: 10e12 });
  const two = computePlan({ bytes: 10e12, drives: 2 });
  assert.equal(two.writeSeconds, one.writeSeconds / 2);
  assert.equal(two.readSeconds, one.readSeconds / 2);
  assert.equal(two.shipSeconds, 25_000 + 86_400 + 25_000);
  assert.equal(two.recommendation, 'Ship drives: 10 TB arrives in 1.6 days by courier against 9.3 days over the network.');
});

test('a small dataset goes over the network, and the sentence says so', () => {
  const r = computePlan({ bytes: 50e9 });
  assert.equal(r.choice, 'network');
  assert.equal(r.networkSeconds, 4000);
  assert.equal(r.recommendation, 'Send over the network: 50 GB arrives in 67 minutes against 1 day by courier.');
});

test('at the cross-over both take equally long; below it the network wins, above it the drives', () => {
  const inputs = fc.record({
    linkBitsPerSecond: fc.double({ min: 1e5, max: 1e11, noNaN: true }),
    rttSeconds: fc.double({ min: 0, max: 1, noNaN: true }),
    windowBytes: fc.integer({ min: 1024, max: 2 ** 30 }),
    streams: fc.integer({ min: 1, max: 64 }),
    driveBytesPerSecond: fc.double({ min: 1e6, max: 1e10, noNaN: true }),
    drives: fc.integer({ min: 1, max: 32 }),
    courierSeconds: fc.double({ min: 60, max: 30 * 86400, noNaN: true }),
  });
  let crossings = 0;
  fc.assert(
    fc.property(inputs, (i) => {
      const r = computePlan({ bytes: 1e12, ...i });
      if (r.crossoverBytes === null) {
        // Then the network is at least as fast per byte as writing and reading: it wins at any size.
        assert.ok(2 / (i.driveBytesPerSecond * i.drives) >= 1 / r.networkBytesPerSecond);
        assert.equal(computePlan({ bytes: 1e15, ...i }).choice, 'network');
        return;
      }
      crossings++;
      const at = computePlan({ bytes: r.crossoverBytes, ...i });
      close(at.networkSeconds, at.shipSeconds, 1e-6);
      assert.equal(computePlan({ bytes: Math.max(1, Math.floor(r.crossoverBytes / 2)), ...i }).choice, 'network');
      assert.equal(computePlan({ bytes: r.crossoverBytes * 2, ...i }).choice, 'ship');
    }),
    { seed: 42, numRuns: 300 },
  );
  assert.ok(crossings > 50, `only ${crossings} cases crossed`);
});

test('no cross-over: a fast network always wins; no courier time and a slow network, drives always win', () => {
  const fast = computePlan({ bytes: 1e15, linkBitsPerSecond: 10e9, windowBytes: 2 ** 30, driveBytesPerSecond: 200e6 });
  assert.equal(fast.crossoverBytes, null);
  assert.equal(fast.choice, 'network');
  const walk = computePlan({ bytes: 1e3, courierSeconds: 0 });
  assert.equal(walk.crossoverBytes, null);
  assert.equal(walk.choice, 'ship');
});

test('costs appear only when a price is given', () => {
  assert.equal(computePlan({ bytes: 1e12 }).shipCost, null);
  const r = computePlan({ bytes: 2.5e12, drives: 3, driveCost: 100, courierCost: 40, networkCostPerTB: 8 });
  assert.equal(r.shipCost, 340);
  assert.equal(r.networkCost, 20);
  assert.equal(computePlan({ bytes: 1e12, courierCost: 40 }).shipCost, 40);
  assert.equal(computePlan({ bytes: 1e12, courierCost: 40 }).networkCost, null);
});

test('the curve is log-spaced around the size, holds it, and reaches the cross-over', () => {
  const r = computePlan({ bytes: 10e12 });
  const sizes = r.curve.map((p) => p.bytes);
  assert.ok(sizes.includes(10e12));
  assert.ok(sizes[0]! <= r.crossoverBytes! / 100 && sizes.at(-1)! >= 10e12 * 100, `${sizes[0]} … ${sizes.at(-1)}`);
  for (let k = 1; k < sizes.length; k++) close(sizes[k]! / sizes[k - 1]!, 10 ** 0.25, 1e-6);
  for (const p of r.curve)
    assert.deepEqual(p, {
      bytes: p.bytes,
      networkSeconds: computePlan({ bytes: p.bytes }).networkSeconds,
      shipSeconds: computePlan({ bytes: p.bytes }).shipSeconds,
    });
});

test('bad inputs are USAGE errors quoting the value', () => {
  const bad: Array<[object, RegExp]> = [
    [{ bytes: 0 }, /size must be a positive number, not "0"/],
    [{ bytes: 1e12, streams: 1.5 }, /streams must be a whole number from 1 to 100000, not "1.5"/],
    [{ bytes: 1e12, drives: 0 }, /drives must be a whole number/],
    [{ bytes: 1e12, linkBitsPerSecond: Number.NaN }, /link bandwidth must be a positive number, not "NaN"/],
    [{ bytes: 1e12, rttSeconds: -1 }, /round-trip time must be a non-negative number, not "-1"/],
    [{ bytes: 1e12, driveCost: -5 }, /drive cost must be a non-negative number, not "-5"/],
  ];
  for (const [opts, message] of bad)
    assert.throws(
      () => computePlan(opts as never),
      (e: Error & { code?: string }) => e.code === 'USAGE' && message.test(e.message),
    );
});

test('units: SI and IEC sizes, bit and byte rates, durations, and their text', () => {
  const sizes: Array<[string, number | undefined]> = [
    ['10TB', 10e12],
    ['1.5TiB', 1.5 * 2 ** 40],
    ['500GB', 500e9],
    ['64KiB', 65536],
    ['500G', 500 * 2 ** 30],
    ['4096', 4096],
    ['2 MB', 2e6],
    ['1kb', 1000],
    ['', undefined],
    ['TB', undefined],
    ['-1GB', undefined],
    ['10XB', undefined],
    ['0', undefined],
    ['1e3', undefined],
  ];
  for (const [text, want] of sizes) assert.equal(parseSize(text), want, text);
  const links: Array<[string, number | undefined]> = [
    ['100Mbit', 100e6],
    ['1Gbit/s', 1e9],
    ['10Gbps', 10e9],
    ['100Mb/s', 100e6],
    ['100 Mbit/s', 100e6],
    ['12.5MB/s', 100e6],
    ['1e6', undefined],
    ['fast', undefined],
    ['0', undefined],
  ];
  for (const [text, want] of links) assert.equal(parseBitRate(text), want, text);
  assert.equal(parseByteRate('200MB/s'), 200e6);
  assert.equal(parseByteRate('1.5GB/s'), 1.5e9);
  assert.equal(parseByteRate('150MiB/s'), 150 * 2 ** 20);
  assert.equal(parseByteRate('slow'), undefined);
  const times: Array<[string, number | undefined]> = [
    ['80ms', 0.08],
    ['24h', 86400],
    ['2d', 172800],
    ['1.5h', 5400],
    ['90min', 5400],
    ['30', 30],
    ['3 days', 259200],
    ['1fortnight', undefined],
    ['-2h', undefined],
  ];
  for (const [text, want] of times) assert.equal(parseDuration(text), want, text);
  assert.equal(humanSize(10e12), '10 TB');
  assert.equal(humanSize(1_234_285_714_286), '1.23 TB');
  assert.equal(humanBitRate(1e9), '1 Gbit/s');
  assert.deepEqual([45, 5400, 3600, 86400, 138_240, 800_000].map(humanDuration), ['45 seconds', '1.5 hours', '60 minutes', '1 day', '1.6 days', '9.3 days']);
});

test('a pack records its drive rate; plan uses the median of the recent large ones', async () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-plan-'));
  try {
    const home = join(root, 'home');
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(src);
    mkdirSync(drive);
    writeFileSync(join(src, 'a.txt'), 'x'.repeat(100_000));
    const engine = Engine.open({ home });
    engine.keygen({ name: 'lab' });
    const packed = await engine.pack({ source: src, drives: [drive], recipients: [] }, () => undefined);
    // Too small to tell a drive's speed: recorded, but the default stays.
    assert.equal(engine.plan({ bytes: 1e12 }).driveSpeedSource, 'default');
    engine.close();

    const catalog = new Catalog(join(home, 'catalog.sqlite'));
    const rates = driveRates(catalog);
    assert.equal(rates.length, 1);
    assert.equal(rates[0]!.shipment, packed.shipmentId);
    assert.equal(rates[0]!.bytesPerDrive, packed.bytesOnDrive);
    close(rates[0]!.bytesPerSecond, packed.bytesOnDrive / packed.seconds, 0.05);
    const big = 4 * MIN_MEASURED_BYTES;
    // Oldest first: one left behind by five newer large packs, and a small one that does not count.
    const rows: Array<[day: string, perDrive: number, drives: number, rate: number]> = [
      ['2026-01-01', big, 1, 10e6],
      ['2026-02-01', big, 1, 100e6],
      ['2026-02-02', big, 2, 300e6],
      ['2026-02-03', big, 1, 180e6],
      ['2026-02-04', MIN_MEASURED_BYTES / 10, 1, 1e6],
      ['2026-02-05', big, 1, 150e6],
      ['2026-02-06', big, 1, 400e6],
    ];
    for (const [day, perDrive, drives, rate] of rows) {
      recordDriveRate(catalog, { shipment: `s-${day}`, at: `${day}T00:00:00.000Z`, bytes: perDrive * drives, drives, seconds: perDrive / rate });
    }
    catalog.close();

    const again = Engine.open({ home });
    try {
      const r = again.plan({ bytes: 10e12 });
      assert.equal(r.driveSpeedSource, 'measured');
      assert.equal(r.measuredPacks, 5);
      close(r.inputs.driveBytesPerSecond, 180e6);
      const given = again.plan({ bytes: 10e12, driveBytesPerSecond: 50e6 });
      assert.deepEqual([given.driveSpeedSource, given.measuredPacks, given.inputs.driveBytesPerSecond], ['given', 0, 50e6]);
    } finally {
      again.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
