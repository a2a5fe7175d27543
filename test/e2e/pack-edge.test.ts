/**
 * What pack does with sources and options it cannot ship as they are:
 * symlinks and special files are skipped with a warning, names that collide
 * on case-insensitive file systems are refused, bad labels and missing
 * drives are usage errors, and a failed pack leaves nothing on the drive.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, tempDir } from '../support.js';

describe('pack edge cases', () => {
  const root = tempDir();
  const home = join(root, 'home');

  before(() => {
    assert.equal(brickpost(home, ['keygen']).code, 0);
  });

  test('symlinks and fifos are skipped with a warning and not recreated', () => {
    const src = join(root, 'links');
    mkdirSync(src);
    writeFileSync(join(src, 'real.txt'), 'real\n');
    symlinkSync('real.txt', join(src, 'link.txt'));
    spawnSync('mkfifo', [join(src, 'pipe')]);
    const drive = join(root, 'd1');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'links', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const warnings = r.stdout.split('\n').filter((l) => l.includes('"type":"warning"')).map((l) => JSON.parse(l));
    assert.ok(warnings.some((w) => w.path === 'link.txt' && /symbolic link/.test(w.message)));
    assert.equal(lastEvent(r).result.files, 1);
    const dest = join(root, 'dest1');
    assert.equal(brickpost(home, ['ingest', drive, dest]).code, 0);
    assert.deepEqual(readdirSync(dest).sort(), ['.brickpost', 'real.txt']);
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

  test('names that differ only in case are refused, and nothing is left on the drive', () => {
    const src = join(root, 'case');
    mkdirSync(src);
    writeFileSync(join(src, 'Report.txt'), 'a');
    writeFileSync(join(src, 'report.txt'), 'b');
    const drive = join(root, 'd2');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'links', '--json']);
    assert.equal(r.code, 4, r.stdout);
    assert.equal(lastEvent(r).code, 'UNSAFE_ENTRY');
    assert.match(lastEvent(r).message, /Report\.txt/);
    assert.deepEqual(readdirSync(join(drive, 'brickpost')), [], 'no .part folder left behind');
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
