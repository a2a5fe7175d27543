/**
 * The publisher's view of its subscribers and the subscriber's view of its
 * own lag, through the real CLI: one publisher, two subscribers, two
 * shipments; one subscriber ingests the first and returns a receipt, then
 * sees the second on a drive (verify) without ingesting it. Lag is measured
 * at times given with --now (from the shipments' own recorded dates), so
 * nothing waits on the clock.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, makeDataset, tempDir, type Run } from '../support.js';

const DAY = 86_400_000;

describe('subscribers and lag', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive1 = join(root, 'drive1');
  const drive2 = join(root, 'drive2');
  const destA = join(root, 'destA');
  const pub = join(root, 'publisher');
  const subA = join(root, 'station-a');
  const subB = join(root, 'station-b');
  const ids: Record<string, Record<string, string>> = {};
  let first: Record<string, any> = {};
  let second: Record<string, any> = {};

  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r;
  };
  const report = (...args: string[]): { run: Run; doc: any } => {
    const run = brickpost(pub, ['subscribers', '--json', ...args]);
    return { run, doc: run.stdout.trim() ? JSON.parse(run.stdout) : null };
  };
  const at = (iso: string, days: number): string => new Date(Date.parse(iso) + days * DAY).toISOString();

  beforeAll(() => {
    makeDataset(src, '2M', 5);
    mkdirSync(drive1);
    mkdirSync(drive2);
    for (const [h, name] of [
      [pub, 'survey-lab'],
      [subA, 'station-a'],
      [subB, 'station-b'],
    ] as const) {
      ok(brickpost(h, ['keygen', '--name', name]));
      ids[name] = JSON.parse(brickpost(h, ['whoami', '--json']).stdout);
    }
    for (const s of [subA, subB]) ok(brickpost(s, ['trust', 'add', ids['survey-lab']!.minisignPublicKey!, '--name', 'survey-lab']));
    for (const n of ['station-a', 'station-b'])
      ok(brickpost(pub, ['trust', 'add', ids[n]!.minisignPublicKey!, '--name', n, '--recipient', ids[n]!.recipient!]));
    first = lastEvent(
      ok(
        brickpost(pub, [
          'pack',
          src,
          '--to',
          drive1,
          '--recipient',
          'station-a',
          '--recipient',
          'station-b',
          '--dataset',
          'survey',
          '--label',
          'base',
          '--json',
        ]),
      ),
    ).result;
    ok(brickpost(subA, ['ingest', drive1, destA]));
    ok(brickpost(subA, ['receipt', destA, '--out', join(root, 'a1.receipt')]));
    ok(brickpost(pub, ['receipt', 'import', join(root, 'a1.receipt')]));
    appendFileSync(join(src, 'added.txt'), 'a second month\n'.repeat(1000));
    second = lastEvent(
      ok(
        brickpost(pub, [
          'pack',
          src,
          '--to',
          drive2,
          '--recipient',
          'station-a',
          '--recipient',
          'station-b',
          '--dataset',
          'survey',
          '--label',
          'month 2',
          '--json',
        ]),
      ),
    ).result;
  });

  test('each subscriber: last acknowledged, sent since, lag in shipments, bytes and days', () => {
    const { run, doc } = report();
    assert.equal(run.code, 0, run.stderr);
    assert.equal(doc.maxLag, null);
    assert.equal(doc.past, 0);
    assert.deepEqual(
      doc.subscribers.map((s: any) => s.name),
      ['station-a', 'station-b'],
      'the own key is not a subscriber',
    );
    const [a, b] = doc.subscribers;
    assert.equal(a.recipient, ids['station-a']!.recipient);
    assert.equal(a.keyId, ids['station-a']!.keyId);
    assert.equal(a.newest.shipment, second.shipmentId);
    assert.deepEqual([a.acknowledged.shipment, a.acknowledged.seq, a.acknowledged.level], [first.shipmentId, 1, 'stat']);
    assert.deepEqual(
      a.unacknowledged.map((u: any) => u.seq),
      [2],
    );
    assert.equal(a.lag.shipments, 1);
    assert.equal(a.lag.bytes, second.bytesOnDrive);
    assert.equal(a.lag.since, a.unacknowledged[0].created);
    assert.equal(b.acknowledged, null);
    assert.deepEqual(
      b.unacknowledged.map((u: any) => u.shipment),
      [first.shipmentId, second.shipmentId],
    );
    assert.equal(b.lag.shipments, 2);
    assert.equal(b.lag.bytes, first.bytesOnDrive + second.bytesOnDrive);
    assert.equal(b.lag.since, b.unacknowledged[0].created);

    const later = report('--now', at(b.lag.since, 12.5));
    assert.equal(later.doc.now, at(b.lag.since, 12.5));
    assert.equal(later.doc.subscribers[1].lag.days, 12.5);
  });

  test('--max-lag in shipments or days flags who is past it, exit 9', () => {
    const since = report().doc.subscribers[1].lag.since as string;
    const one = report('--max-lag', '1');
    assert.equal(one.run.code, 9, one.run.stderr);
    assert.deepEqual(one.doc.maxLag, { shipments: 1 });
    assert.equal(one.doc.past, 1);
    assert.deepEqual(
      one.doc.subscribers.map((s: any) => s.pastMaxLag),
      [false, true],
    );
    assert.equal(report('--max-lag', '2').run.code, 0);

    assert.equal(report('--max-lag', '30d', '--now', at(since, 29)).run.code, 0);
    const late = report('--max-lag', '30d', '--now', at(since, 31));
    assert.equal(late.run.code, 9);
    assert.deepEqual(late.doc.maxLag, { seconds: 30 * 86400 });
    assert.ok(late.doc.subscribers[1].pastMaxLag);

    const text = brickpost(pub, ['subscribers', '--max-lag', '1'], { env: { ...process.env, BRICKPOST_NOW: at(since, 3) } });
    assert.equal(text.code, 9);
    assert.match(text.stdout, /^station-b .* PAST$/m);
    assert.match(text.stderr, /brickpost: error: 1 subscriber past the maximum lag of 1 shipment: station-b \(survey\)/);
    const bad = brickpost(pub, ['subscribers', '--max-lag', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--max-lag "soon" is neither/);
  });

  test('drives: packed, shipped, acknowledged, wiped, returned', () => {
    const drives = (): any[] => report().doc.subscribers[0].drives;
    assert.deepEqual(
      drives().map((d: any) => [d.seq, d.drive, d.state]),
      [
        [1, '1 of 1', 'acknowledged'],
        [2, '1 of 1', 'packed'],
      ],
    );
    const shipped = ok(brickpost(pub, ['drive', 'shipped', second.shipmentId, '--at', '2026-11-20T09:00:00Z', '--json']));
    assert.deepEqual(JSON.parse(shipped.stdout).drives, ['1 of 1']);
    assert.deepEqual(drives()[1], { ...drives()[1], state: 'shipped', shippedAt: '2026-11-20T09:00:00.000Z' });

    ok(brickpost(subA, ['ingest', drive2, destA]));
    ok(brickpost(subA, ['wipe', drive2]));
    const back = JSON.parse(ok(brickpost(pub, ['drive', 'returned', drive2, '--json'])).stdout);
    assert.equal(back.shipment, second.shipmentId);
    assert.ok(back.eventsRecorded >= 4, `events read from the drive: ${back.eventsRecorded}`);
    const d = drives()[1];
    assert.equal(d.state, 'returned');
    assert.ok(d.wipedAt !== null, 'the wiped event on the drive is recorded');
    assert.equal(d.acknowledgedAt, null, 'no receipt for seq 2 yet');

    const unknown = brickpost(pub, ['drive', 'shipped', '20200101T000000Z-00000000']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /this home did not seal/);
  });
});

describe("the subscriber's lag behind the newest shipment seen", () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive1 = join(root, 'drive1');
  const drive2 = join(root, 'drive2');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');

  test('verify records the newest seq; history says how far behind DEST is', () => {
    makeDataset(src, '1M', 7);
    mkdirSync(drive1);
    mkdirSync(drive2);
    for (const [h, name] of [
      [pub, 'survey-lab'],
      [sub, 'station'],
    ] as const)
      assert.equal(brickpost(h, ['keygen', '--name', name]).code, 0);
    const p = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout);
    const s = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout);
    assert.equal(brickpost(sub, ['trust', 'add', p.minisignPublicKey, '--name', 'survey-lab']).code, 0);
    const pack = (drive: string): Run => brickpost(pub, ['pack', src, '--to', drive, '--recipient', s.recipient, '--dataset', 'survey']);
    assert.equal(pack(drive1).code, 0);
    assert.equal(brickpost(sub, ['ingest', drive1, dest]).code, 0);
    assert.match(brickpost(sub, ['history', dest]).stdout, /^up to date with the newest shipment seen \(seq 1, seen \d{4}-\d\d-\d\d\)$/m);
    appendFileSync(join(src, 'more.txt'), 'more\n');
    assert.equal(pack(drive2).code, 0);
    appendFileSync(join(src, 'more.txt'), 'and more\n');
    assert.equal(pack(drive2).code, 0);
    const v = brickpost(sub, ['verify', drive2]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const h = brickpost(sub, ['history', dest]);
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /^2 shipments behind the newest seen \(seq 3, seen \d{4}-\d\d-\d\d\): \S+$/m);
    const j = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
    assert.deepEqual({ newestSeq: j.newestSeen.newestSeq, behind: j.newestSeen.behind }, { newestSeq: 3, behind: 2 });
  });
});
