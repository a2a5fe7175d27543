/**
 * The custody log end to end through the real CLI (FORMAT.md §custody): a
 * fresh bag carries the publisher's events and still passes bagit.py and
 * minisign; verify, ingest, receipt and wipe each append; `custody` prints
 * the chain and exits 1 at a broken event; a read-only drive gets a warning
 * and a catalog-only event, which reaches the drive at its next write; wipe
 * is refused before ingest; every drive of a set carries its own chain.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, errorEvent, hasTool, lastEvent, publisherAndSubscriber, sh, shipmentDir, tempDir, type Run } from '../support.js';

describe('custody log', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const dest = join(root, 'dest');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let recipient = '';
  let id = '';
  let bag = '';

  const custody = (home: string, d: string, ...extra: string[]): { run: Run; report: Record<string, any> } => {
    const run = brickpost(home, ['custody', d, '--json', ...extra]);
    return { run, report: JSON.parse(run.stdout) };
  };
  const types = (r: Record<string, any>): string[] => r.events.map((e: Record<string, string>) => e.type);

  beforeAll(() => {
    mkdirSync(join(src, 'a'), { recursive: true });
    writeFileSync(join(src, 'a', 'notes.txt'), 'field notes\n');
    writeFileSync(join(src, 'b.bin'), Buffer.alloc(200_000, 3));
    mkdirSync(drive);
    recipient = publisherAndSubscriber(pub, sub);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--json']);
    assert.equal(p.code, 0, p.stderr);
    id = lastEvent(p).result.shipmentId;
    bag = shipmentDir(drive);
  });

  test('a fresh bag lists custody.ndjson in its tag manifest and passes bagit.py and minisign', (t) => {
    assert.match(readFileSync(join(bag, 'tagmanifest-sha256.txt'), 'utf8'), /^[0-9a-f]{64} {2}custody\.ndjson$/m);
    assert.equal(readFileSync(join(bag, 'custody.ndjson'), 'utf8').split('\n')[0], 'brickpost-custody/v1');
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.match(sh('minisign', ['-V', '-P', pk, '-m', join(bag, 'tagmanifest-sha256.txt')]).toString(), /Signature and comment signature verified/);
    if (!hasTool('bagit.py', ['--help'])) return t.skip('bagit.py is not installed');
    const r = spawnSync('bagit.py', ['--validate', bag], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /is valid/);
  });

  test('custody of a fresh drive shows packed and sealed by the publisher, ok', () => {
    const { run, report } = custody(sub, drive);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([report.ok, report.brokenAt, types(report)], [true, null, ['packed', 'sealed']]);
    assert.deepEqual(
      report.events.map((e: any) => [e.source, e.actor.name, e.actor.trusted]),
      [
        ['bag', 'publisher', true],
        ['bag', 'publisher', true],
      ],
    );
  });

  test('wipe before ingest is refused with a hint, and the bag stays', () => {
    const r = brickpost(sub, ['wipe', drive]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /brickpost: error: shipment "[^"]+" has not been ingested by this home/);
    assert.match(r.stderr, /brickpost: hint: .*--force/);
    assert.ok(existsSync(bag));
  });

  test('a read-only drive: verify warns and records its event in the catalog only', (t) => {
    const ro = join(root, 'ro');
    mkdirSync(ro);
    const m = spawnSync('mount', ['--bind', drive, ro], { encoding: 'utf8' });
    if (m.status !== 0) return t.skip(`a read-only bind mount is not possible here: ${m.stderr.trim()}`);
    try {
      assert.equal(spawnSync('mount', ['-o', 'remount,ro,bind', ro]).status, 0, 'remount read-only');
      const v = brickpost(sub, ['verify', ro, '--json']);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      const warnings = v.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'warning');
      assert.equal(warnings.length, 1, v.stdout);
      assert.equal(warnings[0].code, 'CUSTODY_CATALOG_ONLY');
      assert.match(
        warnings[0].message,
        /cannot write the custody log on the drive \(.*read-only.*\); the verified event is recorded in this home's catalog only/,
      );
      const { report } = custody(sub, ro);
      assert.equal(report.ok, true, JSON.stringify(report.problems));
      assert.deepEqual(types(report), ['packed', 'sealed', 'verified']);
      assert.equal(report.events[2].source, 'catalog');
      const text = brickpost(sub, ['custody', ro]);
      assert.match(text.stdout, /^ {2}3 {2}\S+ \S+ {2}verified .*\[this home only\]$/m);
    } finally {
      spawnSync('umount', [ro]);
    }
    assert.ok(!existsSync(join(drive, 'brickpost', `${id}.custody`)), 'nothing was written to the drive');
  });

  test('ingest and receipt append; the catalog-only events reach the drive with the next write', () => {
    const i = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(i.code, 0, i.stderr);
    const log = readFileSync(join(drive, 'brickpost', `${id}.custody`), 'utf8').split('\n');
    assert.deepEqual(
      log.slice(1, -1).map((l) => JSON.parse(l).type),
      ['packed', 'sealed', 'verified', 'ingested'],
    );
    assert.equal(brickpost(sub, ['receipt', dest, '--out', join(root, 'r.json')]).code, 0);
    const { report } = custody(sub, drive);
    assert.deepEqual(types(report), ['packed', 'sealed', 'verified', 'ingested', 'receipt-issued']);
    assert.deepEqual(
      report.events.map((e: any) => e.source),
      ['drive', 'drive', 'drive', 'drive', 'catalog'],
    );
    assert.equal(report.events[3].details.destination, 'dest', 'the destination is named by its folder name only');
  });

  test('wipe removes the bag, keeps the log, and custody prints the whole chain', () => {
    const w = brickpost(sub, ['wipe', drive, '--json']);
    assert.equal(w.code, 0, w.stderr);
    const s = JSON.parse(w.stdout);
    assert.deepEqual([s.shipmentId, s.ingestedTo, s.event.type, s.event.n], [id, [dest], 'wiped', 6]);
    assert.deepEqual(readdirSync(join(drive, 'brickpost')), [`${id}.custody`]);
    const r = brickpost(sub, ['custody', drive]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, new RegExp(`^shipment ${id}, drive 1 of 1, bag wiped, log .*${id}\\.custody$`));
    assert.deepEqual(
      lines.slice(1, 7).map((l) => l.split(/\s+/)[4]),
      ['packed', 'sealed', 'verified', 'ingested', 'receipt-issued', 'wiped'],
    );
    assert.match(lines[1]!, /publisher \(key [0-9A-F]{16}, trusted as publisher\)/);
    assert.match(lines[7]!, /^result {3}OK: 6 events, each signed by its actor and chained to the one before$/);
    // The publisher trusts only itself: the subscriber's events are shown as by a key not trusted there.
    const p = brickpost(pub, ['custody', drive]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /ingested .*subscriber \(key [0-9A-F]{16}, not trusted here, public key RW[A-Za-z0-9+/]{54}\)/);
  });

  test('a tampered event: custody exits 1 naming the event and what failed', () => {
    const file = join(drive, 'brickpost', `${id}.custody`);
    const good = readFileSync(file, 'utf8');
    const lines = good.split('\n');
    lines[4] = lines[4]!.replace(/"files":(\d+)/, (_, n: string) => `"files":${Number(n) + 1}`);
    writeFileSync(file, lines.join('\n'));
    try {
      const r = brickpost(sub, ['custody', drive]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /^problem {2}SIGNATURE_INVALID {2}event 4 \(ingested, 20\S+Z\): its signature does not verify with the actor's key [0-9A-F]{16}$/m,
      );
      assert.match(r.stdout, /^result {3}BROKEN at event 4$/m);
      assert.match(r.stderr, /brickpost: error: the custody chain of shipment \S+ is broken at event 4/);
      const { run, report } = custody(sub, drive);
      assert.deepEqual([run.code, report.ok, report.brokenAt], [1, false, 4]);
    } finally {
      writeFileSync(file, good);
    }
  });

  test('an event changed inside a bag: custody breaks there and verify fails the tag file', () => {
    const d = join(root, 'drive-t');
    mkdirSync(d);
    const p = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--full', '--json']);
    assert.equal(p.code, 0, p.stderr);
    const b = shipmentDir(d);
    const f = join(b, 'custody.ndjson');
    writeFileSync(
      f,
      readFileSync(f, 'utf8').replace(/"at":"(\d{4})/, (_, y: string) => `"at":"${Number(y) - 1}`),
    );
    const { run, report } = custody(sub, d);
    assert.equal(run.code, 1);
    assert.equal(report.brokenAt, 1);
    assert.ok(
      report.problems.some((x: any) => x.code === 'FIXITY_MISMATCH' && /custody\.ndjson/.test(x.message)),
      JSON.stringify(report.problems),
    );
    const v = brickpost(sub, ['verify', d, '--json']);
    assert.equal(v.code, 1, v.stdout);
    assert.equal(errorEvent(v).code, 'FIXITY_MISMATCH');
  });

  test('every drive of a set carries its own chain, and ingest appends to each drive used', () => {
    const drives = ['s1', 's2', 's3'].map((n) => join(root, n));
    for (const x of drives) mkdirSync(x);
    const p = brickpost(pub, ['pack', src, ...drives.flatMap((x) => ['--to', x]), '--recipient', recipient, '--dataset', 'set', '--json']);
    assert.equal(p.code, 0, p.stderr);
    for (const [i, x] of drives.entries()) {
      const { run, report } = custody(sub, x);
      assert.equal(run.code, 0, run.stdout);
      assert.equal(report.drive, `${i + 1} of 3`);
      assert.deepEqual(types(report), ['packed', 'sealed']);
    }
    const i = brickpost(sub, ['ingest', drives[0]!, drives[2]!, join(root, 'set-dest')]);
    assert.equal(i.code, 0, i.stderr);
    const after = drives.map((x) => types(custody(sub, x).report));
    assert.deepEqual(after, [
      ['packed', 'sealed', 'ingested'],
      ['packed', 'sealed'],
      ['packed', 'sealed', 'ingested'],
    ]);
  });
});

describe('custody log on a drive whose brickpost folder is a symbolic link', () => {
  test('verify records its event in the catalog only and writes nothing through the link; wipe refuses', () => {
    const root = tempDir();
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    const linked = join(root, 'linked');
    const pub = join(root, 'publisher');
    const sub = join(root, 'subscriber');
    mkdirSync(src);
    writeFileSync(join(src, 'a.txt'), 'a\n');
    mkdirSync(drive);
    mkdirSync(linked);
    const recipient = publisherAndSubscriber(pub, sub);
    assert.equal(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient]).code, 0);
    symlinkSync(join(drive, 'brickpost'), join(linked, 'brickpost'));
    const before = readdirSync(join(drive, 'brickpost')).sort();
    const v = brickpost(sub, ['verify', linked, '--json']);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const warnings = v.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'warning');
    assert.ok(
      warnings.some((w) => w.code === 'CUSTODY_CATALOG_ONLY' && /symbolic link/.test(w.message)),
      JSON.stringify(warnings),
    );
    assert.deepEqual(readdirSync(join(drive, 'brickpost')).sort(), before, 'no custody log written through the link');
    const w = brickpost(sub, ['wipe', linked, '--force']);
    assert.equal(w.code, 4, w.stderr);
    assert.match(w.stderr, /is a symbolic link/);
    assert.deepEqual(readdirSync(join(drive, 'brickpost')).sort(), before, 'nothing removed through the link');
  });
});

describe('custody log left half-written by a killed writer', () => {
  test("the next event's write removes the temporary file it left", () => {
    const root = tempDir();
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    const pub = join(root, 'publisher');
    const sub = join(root, 'subscriber');
    mkdirSync(src);
    writeFileSync(join(src, 'a.txt'), 'a\n');
    mkdirSync(drive);
    const recipient = publisherAndSubscriber(pub, sub);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--json']);
    assert.equal(p.code, 0, p.stderr);
    const id = lastEvent(p).result.shipmentId;
    const stale = join(drive, 'brickpost', `${id}.custody.tmp-0a1b2c3d4e5f`);
    writeFileSync(stale, 'brickpost-custody/v1\n{"n":1');
    assert.equal(brickpost(sub, ['verify', drive]).code, 0);
    assert.deepEqual(readdirSync(join(drive, 'brickpost')).sort(), [id, `${id}.custody`]);
  });
});
