/**
 * The custody log at the engine level: a publisher and a subscriber in
 * temporary homes, a real shipment on a folder drive, and the chain each
 * step appends (FORMAT.md §custody). Then every event of the full chain is
 * tampered with, one way at a time, and the check must break at exactly
 * that event: for a home with no record of the chain (the file alone) and
 * for the subscriber, whose catalog recorded it.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCustodyChain, custodyLineHash, isBrickpostError, parseCustodyEvent } from '@brickpost/manifest';
import type { CustodyReport, PackSummary } from '../src/api/index.js';
import { Engine } from '../src/engine.js';
import { loadIdentity } from '../src/keys/index.js';
import { resealTags } from '../src/testing/index.js';

const quiet = (): void => undefined;

describe('custody log', () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-custody-'));
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const dest = join(root, 'dest');
  let pub: Engine;
  let sub: Engine;
  /** A home that trusts the publisher and holds no record of any chain. */
  let auditor: Engine;
  let shipped: PackSummary;
  let log = '';
  let full: string[] = [];

  beforeAll(() => {
    mkdirSync(join(src, 'a'), { recursive: true });
    writeFileSync(join(src, 'a', 'one.txt'), 'one\n');
    writeFileSync(join(src, 'two.bin'), Buffer.alloc(50_000, 7));
    mkdirSync(drive);
    pub = Engine.open({ home: join(root, 'pub') });
    sub = Engine.open({ home: join(root, 'sub') });
    auditor = Engine.open({ home: join(root, 'auditor') });
    pub.keygen({ name: 'Publisher Lab' });
    sub.keygen({ name: 'Subscriber Lab' });
    for (const e of [sub, auditor]) e.trustAdd(pub.whoami().minisignPublicKey, 'publisher');
  });
  afterAll(() => {
    for (const e of [pub, sub, auditor]) e.close();
    rmSync(root, { recursive: true, force: true });
  });

  const types = (r: CustodyReport): string[] => r.events.map((e) => e.type);

  test('a packed bag carries packed and sealed, signed by the publisher', async () => {
    shipped = await pub.pack({ source: src, drives: [drive], recipients: [sub.whoami().recipient], recovery: 0 }, quiet);
    log = join(drive, 'brickpost', `${shipped.shipmentId}.custody`);
    const r = await pub.custody({ drive });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.deepEqual(types(r), ['packed', 'sealed']);
    assert.equal(r.bag, 'present');
    assert.equal(r.log, null, 'no log on the drive until someone else acts');
    assert.deepEqual(
      r.events.map((e) => e.source),
      ['bag', 'bag'],
    );
    for (const e of r.events) assert.deepEqual([e.actor.keyId, e.actor.trusted, e.actor.name], [pub.whoami().keyId, true, 'Publisher Lab']);
    assert.deepEqual(r.events[0]!.details, {
      files: 2,
      bytes: 50_004,
      packs: shipped.packs,
      payloadFiles: shipped.packs + 1,
      payloadBytes: shipped.bytesOnDrive,
    });
    assert.equal(r.events[1]!.prev, r.events[0]!.hash);
  });

  test('wipe is refused before this home ingested the shipment', async () => {
    await assert.rejects(
      sub.wipe({ drive }),
      (e: unknown) => isBrickpostError(e, 'USAGE') && /has not been ingested by this home/.test(e.message) && /--force/.test(e.hint ?? ''),
    );
    assert.ok(existsSync(join(drive, 'brickpost', shipped.shipmentId)), 'the bag is still there');
  });

  test('verify, ingest and receipt each append an event by the subscriber', async () => {
    const v = await sub.verify({ drive }, quiet);
    assert.equal(v.ok, true);
    let r = await sub.custody({ drive });
    assert.deepEqual(types(r), ['packed', 'sealed', 'verified']);
    assert.equal(r.log, log);
    assert.deepEqual(r.events[2]!.details, { level: 'keyless', ok: true, problems: 0, tagManifest: r.events[2]!.details.tagManifest });
    await sub.verify({ drive, deep: true }, quiet);
    await sub.ingest({ drive, dest }, quiet);
    r = await sub.custody({ drive });
    assert.deepEqual(types(r), ['packed', 'sealed', 'verified', 'verified', 'ingested']);
    assert.equal(r.events[3]!.details.level, 'deep');
    assert.deepEqual(r.events[4]!.details, { destination: 'dest', files: 2, bytes: 50_004 });
    const receipt = await sub.receipt({ dest, out: join(root, 'receipt.json') });
    r = await sub.custody({ drive });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.deepEqual(types(r).slice(-1), ['receipt-issued']);
    assert.equal(r.events[5]!.source, 'catalog', 'a receipt is recorded in the catalog: the drive may be gone');
    assert.equal(r.events[5]!.details.receipt, receipt.sha256);
    for (const e of r.events.slice(2)) assert.deepEqual([e.actor.keyId, e.actor.trusted], [sub.whoami().keyId, true]);
    // The file alone holds the drive's events, each chained.
    const lines = readFileSync(log, 'utf8').split('\n').slice(1, -1);
    assert.equal(lines.length, 5);
    for (let i = 1; i < lines.length; i++) assert.equal(parseCustodyEvent(lines[i]!).prev, custodyLineHash(lines[i - 1]!));
  });

  test('wipe removes the bag, keeps the log and appends wiped after the receipt', async () => {
    const w = await sub.wipe({ drive }, quiet);
    assert.equal(w.shipmentId, shipped.shipmentId);
    assert.deepEqual(w.ingestedTo, [dest]);
    assert.ok(!existsSync(join(drive, 'brickpost', shipped.shipmentId)), 'the bag is gone');
    assert.ok(!existsSync(join(drive, 'brickpost', `${shipped.shipmentId}.wiping`)));
    const r = await sub.custody({ drive });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.equal(r.bag, 'removed');
    assert.deepEqual(types(r), ['packed', 'sealed', 'verified', 'verified', 'ingested', 'receipt-issued', 'wiped']);
    assert.ok(
      r.events.every((e) => e.source === 'drive'),
      'the catalog-only receipt reached the drive with the next write',
    );
    assert.equal(w.event?.n, 7);
    assert.deepEqual(r.events[6]!.details, { removed: `brickpost/${shipped.shipmentId}`, files: w.files, bytes: w.bytes });
    full = readFileSync(log, 'utf8').split('\n').slice(1, -1);
    assert.equal(full.length, 7);
  });

  test('the publisher and a third home see the chain as ok, the subscriber as not trusted', async () => {
    for (const e of [pub, auditor]) {
      const r = await e.custody({ drive });
      assert.equal(r.ok, true, JSON.stringify(r.problems));
      assert.equal(r.events.length, 7);
      assert.deepEqual(
        r.events.map((x) => x.actor.trusted),
        [true, true, false, false, false, false, false],
      );
    }
  });

  /** The report of a drive holding only `lines` as the shipment's log, read by `home`. */
  const check = async (home: Engine, lines: string[]): Promise<CustodyReport> => {
    const d = mkdtempSync(join(root, 'tampered-'));
    mkdirSync(join(d, 'brickpost'));
    writeFileSync(join(d, 'brickpost', `${shipped.shipmentId}.custody`), `brickpost-custody/v1\n${lines.map((l) => l + '\n').join('')}`);
    return home.custody({ drive: d });
  };
  const replaceIn = (line: string, re: RegExp, f: (m: string) => string): string => {
    const out = line.replace(re, f);
    assert.notEqual(out, line, `${re} changed nothing`);
    return out;
  };
  /** Another JSON value of the same kind: the last member of details is a number, a boolean, a digest or a name. */
  const otherValue = (v: string): string =>
    v === 'true'
      ? 'false'
      : v === 'false'
        ? 'true'
        : /^\d+$/.test(v)
          ? String(Number(v) + 1)
          : /[0-9a-f]"$/.test(v)
            ? v.replace(/.(?="$)/, (c) => (c === '0' ? '1' : '0'))
            : v.replace(/"$/, 'x"');
  /** One changed character of base64 that stays base64 of 64 bytes. */
  const otherChar = (c: string): string => (c === 'A' ? 'B' : 'A');

  const fields: Array<[string, (line: string) => string]> = [
    ['n', (l) => replaceIn(l, /^\{"n":(\d+)/, (m) => m.replace(/\d+/, (n) => String(Number(n) + 10)))],
    ['at', (l) => replaceIn(l, /"at":"[^"]*Z"/, (m) => m.replace(/\d(?=Z")/, (d) => String((Number(d) + 1) % 10)))],
    ['actor name', (l) => replaceIn(l, /"name":"[^"]*"/, () => '"name":"Mallory"')],
    ['details', (l) => replaceIn(l, /"[a-zA-Z]+":[^,{}]+\},"prev"/, (m) => m.replace(/:([^,{}:]+)\}/, (_, v: string) => `:${otherValue(v)}}`))],
    ['prev', (l) => replaceIn(l, /"prev":"[0-9a-f]/, (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0'))],
    ['sig', (l) => replaceIn(l, /"sig":"[A-Za-z0-9+/]{10}./, (m) => m.slice(0, -1) + otherChar(m.slice(-1)))],
  ];

  test('changing any field or the signature of any event breaks the chain at exactly that event', async () => {
    assert.equal(full.length, 7);
    for (let k = 1; k <= full.length; k++) {
      for (const [what, mutate] of fields) {
        const lines = [...full];
        lines[k - 1] = mutate(lines[k - 1]!);
        for (const [who, home] of [
          ['auditor', auditor],
          ['subscriber', sub],
        ] as const) {
          const r = await check(home, lines);
          assert.equal(r.ok, false, `${what} of event ${k} (${who})`);
          assert.equal(r.brokenAt, k, `${what} of event ${k} (${who}): ${JSON.stringify(r.problems)}`);
          assert.match(r.problems[0]!.message, new RegExp(`^event ${k}\\b`), `${what} of event ${k} (${who}) names the event`);
        }
      }
    }
  });

  test('a deleted event breaks the chain at its place; the last one only for a home that recorded it', async () => {
    for (let k = 1; k <= full.length; k++) {
      const lines = full.filter((_, i) => i !== k - 1);
      const mine = await check(sub, lines);
      assert.equal(mine.brokenAt, k, `deleted event ${k}: ${JSON.stringify(mine.problems)}`);
      const theirs = await check(auditor, lines);
      // A log cut after an event is a shorter valid chain to anyone who did not record the rest.
      assert.equal(theirs.brokenAt, k === full.length ? null : k, `deleted event ${k}, read by a home without a record`);
    }
    const gone = await check(sub, full.slice(0, 6));
    assert.match(gone.problems[0]!.message, /event 7 \(wiped, .*this home wrote it to the drive's custody log, which no longer holds it/);
  });

  test('two swapped events break the chain at the first of them', async () => {
    for (let k = 1; k < full.length; k++) {
      const lines = [...full];
      [lines[k - 1], lines[k]] = [lines[k]!, lines[k - 1]!];
      for (const home of [auditor, sub]) assert.equal((await check(home, lines)).brokenAt, k, `swapped ${k} and ${k + 1}`);
    }
  });

  test('the chain check of the format names what failed', () => {
    const lines = [...full];
    lines[2] = fields[1]![1](lines[2]!);
    const c = checkCustodyChain(lines, { shipment: shipped.shipmentId, drive: '1 of 1', publisherKeyId: pub.whoami().keyId });
    assert.equal(c.brokenAt, 3);
    assert.match(c.events[2]!.problem!.message, /^event 3 \(verified, 20\d\d-.*\): its signature does not verify with the actor's key [0-9A-F]{16}$/);
    assert.match(c.events[3]!.problem!.message, /^event 4 \(verified, .*\): its prev does not match the hash of event 3$/);
    const wrongPublisher = checkCustodyChain(full, { shipment: shipped.shipmentId, drive: '1 of 1', publisherKeyId: sub.whoami().keyId });
    assert.equal(wrongPublisher.brokenAt, 1, "publisher events must be by the bag's signer");
  });

  test('a home without an identity verifies without recording anything, and without a warning', async () => {
    const d3 = join(root, 'drive3');
    mkdirSync(d3);
    const s = await pub.pack({ source: src, drives: [d3], recipients: [sub.whoami().recipient], recovery: 0, full: true }, quiet);
    const warnings: string[] = [];
    const v = await auditor.verify({ drive: d3 }, (e) => {
      if (e.type === 'warning') warnings.push(e.message);
    });
    assert.equal(v.ok, true, JSON.stringify(v.problems));
    assert.deepEqual(warnings, []);
    assert.ok(!existsSync(join(d3, 'brickpost', `${s.shipmentId}.custody`)));
    assert.deepEqual(types(await auditor.custody({ drive: d3 })), ['packed', 'sealed']);
  });

  test('a broken log on the drive is left as it is: verify warns and records nothing', async () => {
    const d5 = join(root, 'drive5');
    mkdirSync(d5);
    const s = await pub.pack({ source: src, drives: [d5], recipients: [sub.whoami().recipient], recovery: 0, full: true }, quiet);
    const events = readFileSync(join(d5, 'brickpost', s.shipmentId, 'custody.ndjson'), 'utf8')
      .split('\n')
      .slice(1, -1);
    events[1] = events[1]!.replace(/"at":"(\d{4})/, (_, y: string) => `"at":"${Number(y) + 1}`);
    const file = join(d5, 'brickpost', `${s.shipmentId}.custody`);
    const tampered = `brickpost-custody/v1\n${events.join('\n')}\n`;
    writeFileSync(file, tampered);
    const warnings: Array<{ code: string; message: string }> = [];
    await sub.verify({ drive: d5 }, (e) => {
      if (e.type === 'warning') warnings.push(e);
    });
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.code, 'CUSTODY_NOT_RECORDED');
    assert.match(
      warnings[0]!.message,
      /is broken \(event 2 \(sealed, .*\): its signature does not verify .*\); it is left as it is and the verified event is not recorded/,
    );
    assert.equal(readFileSync(file, 'utf8'), tampered);
    const r = await sub.custody({ drive: d5 });
    assert.equal(r.brokenAt, 2);
  });

  test('a wipe interrupted after its rename is finished by the next wipe, with one wiped event', async () => {
    const d4 = join(root, 'drive4');
    mkdirSync(d4);
    const s = await pub.pack({ source: src, drives: [d4], recipients: [sub.whoami().recipient], recovery: 0, full: true }, quiet);
    await sub.ingest({ drive: d4, dest: join(root, 'dest4') }, quiet);
    const bagDir = join(d4, 'brickpost', s.shipmentId);
    renameSync(bagDir, `${bagDir}.wiping`);
    await assert.rejects(sub.verify({ drive: d4 }, quiet), (e: unknown) => isBrickpostError(e, 'NOT_A_DRIVE'), 'a .wiping folder is not a shipment');
    const w = await sub.wipe({ drive: d4 }, quiet);
    assert.equal(w.event?.type, 'wiped');
    assert.deepEqual(readdirSync(join(d4, 'brickpost')), [`${s.shipmentId}.custody`]);
    const r = await sub.custody({ drive: d4 });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.deepEqual(types(r), ['packed', 'sealed', 'ingested', 'wiped']);
    await assert.rejects(sub.wipe({ drive: d4 }), (e: unknown) => isBrickpostError(e, 'NOT_FOUND'), 'nothing left to wipe');
  });

  test('a wipe interrupted after recording its event only removes the folder: no second wiped event', async () => {
    const d6 = join(root, 'drive6');
    mkdirSync(d6);
    const s = await pub.pack({ source: src, drives: [d6], recipients: [sub.whoami().recipient], recovery: 0, full: true }, quiet);
    await sub.ingest({ drive: d6, dest: join(root, 'dest6') }, quiet);
    const bagDir = join(d6, 'brickpost', s.shipmentId);
    const copy = join(root, 'bag6-copy');
    cpSync(bagDir, copy, { recursive: true });
    assert.equal((await sub.wipe({ drive: d6 }, quiet)).event?.type, 'wiped');
    // What a wipe killed after writing its event and before removing the folder leaves.
    renameSync(copy, `${bagDir}.wiping`);
    const w = await sub.wipe({ drive: d6 }, quiet);
    assert.equal(w.event, null);
    assert.deepEqual(readdirSync(join(d6, 'brickpost')), [`${s.shipmentId}.custody`]);
    const r = await sub.custody({ drive: d6 });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.deepEqual(types(r), ['packed', 'sealed', 'ingested', 'wiped']);
  });

  test('a shipment packed without a custody log still verifies and ingests; custody says there is none', async () => {
    const d2 = join(root, 'drive2');
    mkdirSync(d2);
    writeFileSync(join(src, 'three.txt'), 'three\n');
    const s = await pub.pack({ source: src, drives: [d2], recipients: [sub.whoami().recipient], recovery: 0, full: true }, quiet);
    const bag = join(d2, 'brickpost', s.shipmentId);
    unlinkSync(join(bag, 'custody.ndjson'));
    await resealTags(bag, loadIdentity(pub.home, 'Publisher Lab').signingKey);
    assert.ok(!readFileSync(join(bag, 'tagmanifest-sha256.txt'), 'utf8').includes('custody'));
    const v = await sub.verify({ drive: d2 }, quiet);
    assert.equal(v.ok, true, JSON.stringify(v.problems));
    const i = await sub.ingest({ drive: d2, dest: join(root, 'dest2') }, quiet);
    assert.equal(i.shipmentId, s.shipmentId);
    assert.ok(!existsSync(join(d2, 'brickpost', `${s.shipmentId}.custody`)), 'nothing to chain to: no log is started');
    const r = await sub.custody({ drive: d2 });
    assert.equal(r.ok, false);
    assert.deepEqual([r.events.length, r.brokenAt, r.problems[0]?.code], [0, null, 'FILE_MISSING']);
  });
});
