/**
 * The payload manifest is read from a drive once per command: `verify` of a
 * damaged drive (which also asks the recovery data what it could repair)
 * and `repair` use the copy checked against the signed tag manifest, so a
 * drive that answers a second read differently cannot slip an
 * unauthenticated list into the recovery pass. Counted with strace: the
 * opens of manifest-sha256.txt by the real CLI.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, brickpost, hasTool, makeDataset, publisherAndSubscriber, shipmentDir, tempDir } from '../support.js';

const skip = hasTool('strace', ['-V']) ? false : 'strace is not installed (it counts the opens)';

describe.skipIf(skip)(`the payload manifest is read once${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  const root = tempDir('bp-adv-once-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drive = join(root, 'drive');

  /** Runs brickpost under strace; returns its exit code and how often it opened the payload manifest. */
  const traced = (args: string[]): { code: number | null; opens: number; out: string } => {
    const log = join(root, `strace-${args[0]}-${Date.now()}.log`);
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=open,openat', '-o', log, process.execPath, CLI, '--home', sub, ...args], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const opens = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('/manifest-sha256.txt"')).length;
    return { code: r.status, opens, out: r.stdout + r.stderr };
  };

  beforeAll(() => {
    makeDataset(src, '4M', 44);
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(drive);
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'once', '--recovery', '5'], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Bad sectors in the largest pack, within the recovery budget.
    const dir = join(shipmentDir(drive), 'data', 'packs', '000');
    const pack = readdirSync(dir)
      .map((f) => join(dir, f))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
    const old = readFileSync(pack).subarray(70_000, 220_000);
    const fd = openSync(pack, 'r+');
    writeSync(fd, Buffer.from(old.map((b) => b ^ 0xa5)), 0, old.length, 70_000);
    closeSync(fd);
  });

  test('verify of a damaged drive: one read, and it says the damage is repairable', () => {
    const v = traced(['verify', drive, '--json']);
    assert.equal(v.code, 1, v.out);
    assert.match(v.out, /"repairable":true/);
    assert.equal(v.opens, 1, 'manifest-sha256.txt opened once');
  });

  test('repair --dry-run and repair: one read each, and the drive is repaired', () => {
    const dry = traced(['repair', drive, '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.out);
    assert.equal(dry.opens, 1, 'manifest-sha256.txt opened once by the dry run');
    const fix = traced(['repair', drive, '--json']);
    assert.equal(fix.code, 0, fix.out);
    assert.equal(fix.opens, 1, 'manifest-sha256.txt opened once by repair');
    assert.equal(brickpost(sub, ['verify', '--deep', drive]).code, 0, 'the repaired drive verifies deep');
  });
});
