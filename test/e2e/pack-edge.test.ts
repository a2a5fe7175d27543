/**
 * What pack does with unusual sources and options: symbolic links and
 * FIFOs are shipped (and recreated, a FIFO only on request), names that
 * differ only in case ship unless --portable refuses them, bad labels and
 * missing drives are usage errors, and a failed pack leaves nothing on the
 * drive.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, tempDir } from '../support.js';

describe('pack edge cases', () => {
  const root = tempDir();
  const home = join(root, 'home');

  beforeAll(() => {
    assert.equal(brickpost(home, ['keygen']).code, 0);
  });

  test('symbolic links and FIFOs are shipped; ingest recreates the link, and the FIFO only with --specials (as root)', () => {
    const src = join(root, 'links');
    mkdirSync(src);
    writeFileSync(join(src, 'real.txt'), 'real\n');
    symlinkSync('real.txt', join(src, 'link.txt'));
    spawnSync('mkfifo', [join(src, 'pipe')]);
    const drive = join(root, 'd1');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'links', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l.includes('"type":"warning"')).length, 0, 'nothing is skipped');
    const s = lastEvent(r).result;
    assert.deepEqual([s.files, s.entries.links, s.entries.specials], [1, 1, 1]);
    const dest = join(root, 'dest1');
    const plain = brickpost(home, ['ingest', drive, dest]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /recorded but not applied: 1 FIFOs and devices \(--specials, as root\)/);
    assert.deepEqual(readdirSync(dest).sort(), ['.brickpost', 'link.txt', 'real.txt']);
    assert.equal(readlinkSync(join(dest, 'link.txt')), 'real.txt');
    if (process.getuid?.() === 0) {
      const dest2 = join(root, 'dest1-specials');
      assert.equal(brickpost(home, ['ingest', drive, dest2, '--specials']).code, 0);
      assert.ok(lstatSync(join(dest2, 'pipe')).isFIFO());
    }
  });

  test('a read-only folder keeps its mode after ingest', () => {
    const src = join(root, 'readonly');
    mkdirSync(join(src, 'locked'), { recursive: true });
    writeFileSync(join(src, 'locked', 'a.txt'), 'a\n');
    chmodSync(join(src, 'locked'), 0o555);
    const drive = join(root, 'd-ro');
    mkdirSync(drive);
    assert.equal(brickpost(home, ['pack', src, '--to', drive]).code, 0);
    const dest = join(root, 'dest-ro');
    assert.equal(brickpost(home, ['ingest', drive, dest]).code, 0);
    assert.equal(statSync(join(dest, 'locked')).mode & 0o777, 0o555);
    chmodSync(join(dest, 'locked'), 0o755);
    chmodSync(join(src, 'locked'), 0o755);
  });

  test('names that differ only in case ship; pack --portable refuses them, and nothing is left on the drive', () => {
    const src = join(root, 'case');
    mkdirSync(src);
    writeFileSync(join(src, 'Report.txt'), 'a');
    writeFileSync(join(src, 'report.txt'), 'b');
    const drive = join(root, 'd2');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'links', '--portable', '--json']);
    assert.equal(r.code, 4, r.stdout);
    assert.equal(lastEvent(r).code, 'UNSAFE_PATH');
    assert.match(lastEvent(r).message, /"Report\.txt" and "report\.txt" differ only in case or Unicode form/);
    assert.deepEqual(readdirSync(join(drive, 'brickpost')), [], 'no .part folder left behind');
    const ok = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'case', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    const dest = join(root, 'dest-case');
    assert.equal(brickpost(home, ['ingest', drive, dest]).code, 0);
    assert.deepEqual(readdirSync(dest).sort(), ['.brickpost', 'Report.txt', 'report.txt']);
  });

  test('a label with control characters and a missing drive are usage errors', () => {
    const src = join(root, 'links');
    const drive = join(root, 'd3');
    mkdirSync(drive);
    assert.equal(brickpost(home, ['pack', src, '--to', drive, '--label', 'bad\u0007label']).code, 2);
    assert.equal(brickpost(home, ['pack', src, '--to', join(root, 'no-such-drive')]).code, 2);
    assert.ok(!existsSync(join(drive, 'brickpost')) || readdirSync(join(drive, 'brickpost')).length === 0);
  });

  test('a failed pack does not use up a sequence number', () => {
    const src = join(root, 'links');
    const drive = join(root, 'd4');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'links', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lastEvent(r).result.seq, 2, 'shipment 1 of dataset "links" is the first test\'s; the refused pack of the same dataset did not count');
  });
});
