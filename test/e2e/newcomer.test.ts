/**
 * The paths a new user takes through README's examples, with the real CLI:
 * a drive that holds two shipments of a dataset (README's "week 2": a
 * second pack to the same drive) is verified whole, ingested in order with
 * ingest saying which shipment it applies, listed and repaired; commands
 * that cannot choose list the shipments and print a command that works as
 * printed (each hint here is run through a shell, as a user pastes it); a
 * valid signature by a key the home does not trust is called valid and
 * untrusted, with the command that trusts it; sizes are SI and drive files
 * are told apart from the dataset's; a keyless verify in a home without an
 * identity leaves the home uncreated and says the custody event was not
 * recorded; keygen names `whoami --contact`.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLI,
  brickpost,
  diffSnapshots,
  lastEvent,
  makeDataset,
  MAKE_DATASET,
  publisherAndSubscriber,
  sh,
  snapshot,
  tempDir,
  type Node,
  type Run,
} from '../support.js';

/** The command a hint ends with (`…: brickpost verb args`), the part a user copies. */
function hintCommand(r: Run): string {
  const hint = r.stderr.split('\n').find((l) => l.startsWith('brickpost: hint: '));
  assert.ok(hint, `a hint in: ${r.stderr}`);
  const at = hint.indexOf('brickpost ', 'brickpost: hint: '.length);
  assert.ok(at > 0, `the hint holds a command: ${hint}`);
  return hint.slice(at);
}

/** Runs a printed command through sh, with `brickpost` being this checkout's CLI and HOME as its home. */
function paste(command: string, home: string): Run {
  const r = spawnSync('sh', ['-c', `brickpost() { "${process.execPath}" "${CLI}" "$@"; }; ${command}`], {
    encoding: 'utf8',
    env: { ...process.env, BRICKPOST_HOME: home },
    timeout: 180_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const summaries = (r: Run): any[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'summary');

describe("a newcomer's path through README", () => {
  const root = tempDir('bp-newcomer-');
  const src = join(root, 'my source');
  const drive = join(root, 'my drive');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  let recipient = '';
  let v1 = new Map<string, Node>();
  let ids: string[] = [];

  beforeAll(() => {
    makeDataset(src, '2M', 61);
    mkdirSync(drive);
    recipient = publisherAndSubscriber(pub, sub);
    const first = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--label', 'week-1', '--json']);
    assert.equal(first.code, 0, first.stderr);
    v1 = snapshot(src);
    sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '62', '-q']);
    const second = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--label', 'week-2', '--json']);
    assert.equal(second.code, 0, second.stderr);
    // In packing order: two shipments packed in the same second have ids whose order is random.
    ids = [first, second].map((r) => lastEvent(r).result.shipmentId as string);
    assert.equal(readdirSync(join(drive, 'brickpost')).filter((n) => ids.includes(n)).length, 2);
  });

  test('verify checks every shipment on the drive, oldest first (one summary each with --json)', () => {
    const r = brickpost(sub, ['verify', drive]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /holds 2 shipments; verifying each, oldest first/);
    assert.equal(r.stdout.match(/^result {5}OK$/gm)?.length, 2);
    assert.equal(r.stdout.match(/^custody {4}'verified' event added to the drive's custody log and this home's catalog$/gm)?.length, 2);
    const j = summaries(brickpost(sub, ['verify', drive, '--json']));
    assert.deepEqual(
      j.map((s) => [s.result.shipmentId, s.result.label]),
      [
        [ids[0], 'week-1'],
        [ids[1], 'week-2'],
      ],
    );
  });

  test('ingest applies the shipment that comes next for DEST and says which, then the next one', () => {
    const dest = join(root, 'dest');
    const first = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`holds several shipments; ingesting #1 ${ids[0]} \\(week-1\\): the oldest of its dataset here`));
    assert.match(first.stderr, new RegExp(`holds 1 later shipment for this destination \\(next: #2 ${ids[1]} week-2\\); apply it with: (brickpost .*)$`, 'm'));
    assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
    // The printed command applies the next one.
    const again = paste(/apply it with: (brickpost .*)$/m.exec(first.stderr)![1]!.replace(/--home \S+ /, ''), sub);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`ingesting #2 ${ids[1]} \\(week-2\\): the next after #1`));
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    const third = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(third.code, 0);
    assert.equal(summaries(third)[0].result.alreadyApplied, true);
  });

  test('ls lists the newest and says how to list the other; repair checks each', () => {
    const r = brickpost(sub, ['ls', drive]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`holds 2 shipments; listing the newest, #2 ${ids[1]}`));
    const oldest = paste(/\((brickpost .*) lists the oldest\)/.exec(r.stderr)![1]!.replace(/--home \S+ /, ''), sub);
    assert.equal(oldest.code, 0, oldest.stderr);
    assert.notEqual(oldest.stdout, r.stdout);
    const rep = brickpost(sub, ['repair', drive, '--dry-run', '--json']);
    assert.equal(rep.code, 0, rep.stderr);
    assert.deepEqual(
      summaries(rep).map((s) => s.result.shipmentId),
      ids,
    );
  });

  test('a command that cannot choose lists the shipments and prints a command that works as printed', () => {
    const r = paste(`brickpost label '${drive}'`, sub);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      new RegExp(`holds 2 shipments: #1 ${ids[0]} \\(dataset "survey", label "week-1"\\); #2 ${ids[1]} \\(dataset "survey", label "week-2"\\)`),
    );
    const cmd = hintCommand(r);
    assert.ok(cmd.endsWith(`--shipment ${ids[1]}`), cmd);
    assert.equal(paste(cmd, sub).code, 0);
  });

  test('the repair hint after verify --shipment names the shipment and works as printed', () => {
    const copy = join(root, 'damaged drive');
    cpSync(drive, copy, { recursive: true });
    const pack = join(copy, 'brickpost', ids[1]!, 'data', 'packs', '000', '000000.age');
    // Overwrite a few bytes in the middle: bit rot the drive's recovery data repairs.
    const fd = openSync(pack, 'r+');
    writeSync(fd, Buffer.alloc(16, 0xaa), 0, 16, Math.floor(statSync(pack).size / 2));
    closeSync(fd);
    const r = paste(`brickpost verify '${copy}' --shipment ${ids[1]}`, sub);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const cmd = hintCommand(r);
    assert.ok(cmd.includes(`--shipment ${ids[1]}`), cmd);
    assert.equal(paste(cmd, sub).code, 0, 'the repair runs as printed');
    assert.equal(paste(`brickpost verify '${copy}'`, sub).code, 0, 'and the drive verifies');
  });

  test('a valid signature by an untrusted key is called valid and untrusted, with the command that trusts it', () => {
    const stranger = join(root, 'stranger');
    assert.equal(brickpost(stranger, ['keygen', '--name', 'stranger']).code, 0);
    const r = paste(`brickpost verify '${drive}' --shipment ${ids[0]}`, stranger);
    assert.equal(r.code, 3);
    assert.match(
      r.stdout,
      /^signature {2}valid, by an untrusted key [0-9A-F]{16} \(if it is your publisher's, trust it with: brickpost trust add RW[A-Za-z0-9+/]{54}\)$/m,
    );
    const cmd = hintCommand(r);
    assert.match(cmd, /^brickpost trust add RW/);
    assert.equal(paste(cmd, stranger).code, 0);
    assert.equal(paste(`brickpost verify '${drive}' --shipment ${ids[0]}`, stranger).code, 0, 'trusted now');
    // A signature that does not check out stays "invalid".
    const tampered = join(root, 'tampered');
    cpSync(drive, tampered, { recursive: true });
    const sig = join(tampered, 'brickpost', ids[0]!, 'tagmanifest-sha256.txt.minisig');
    const text = readFileSync(sig, 'utf8').split('\n');
    text[1] = text[1]!.slice(0, 20) + (text[1]![20] === 'A' ? 'B' : 'A') + text[1]!.slice(21);
    writeFileSync(sig, text.join('\n'));
    const bad = brickpost(join(root, 'nobody'), ['verify', tampered, '--shipment', ids[0]!]);
    assert.match(bad.stdout, /^signature {2}invalid$/m);
  });

  test('sizes are SI; the fixity line counts drive files and gives the dataset beside them', () => {
    const r = brickpost(sub, ['verify', drive, '--shipment', ids[0]!]);
    assert.match(r.stdout, /^fixity {5}ok {2}\([0-9,]+ drive files, [0-9.]+ [kMG]B; the shipment carries [0-9,]+ files, [0-9.]+ [kMG]B\)$/m);
    assert.doesNotMatch(r.stdout + r.stderr, /[KMGT]iB/);
  });

  test('a keyless verify in a home that does not exist creates nothing there and says the custody event was not recorded', () => {
    const home = join(root, 'no-such-home');
    const r = brickpost(home, ['verify', drive, '--shipment', ids[0]!]);
    assert.equal(r.code, 3, 'untrusted: the home trusts nobody');
    assert.match(r.stdout, /^custody {4}not recorded: this home has no identity to sign events \(brickpost --home \S+ keygen creates one\)$/m);
    assert.equal(existsSync(home), false, 'the home was not created');
  });

  test("keygen's hint names whoami --contact and works as printed", () => {
    const fresh = join(root, 'fresh home');
    const k = paste('brickpost keygen --name fresh', fresh);
    assert.equal(k.code, 0, k.stderr);
    const cmd = hintCommand(k);
    assert.match(cmd, /^brickpost (--home '[^']+' )?whoami --contact$/);
    const w = paste(cmd, fresh);
    assert.equal(w.code, 0);
    assert.match(w.stdout, /^recipient +age1/m);
  });
});
