/**
 * A file larger than 8 MiB is read in the background while pack's walk goes
 * on past it (the files after it are read and encoded meanwhile); its
 * chunks and records are still written in manifest order. These check what
 * that must not change: packing the same tree twice gives the same frames,
 * a large file that cannot be opened is left out and named while the files
 * after it ship, and a drive that fills while a large file is being read
 * ahead stops the pack cleanly (the process ends, the drive is left clean).
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, packFiles, packFrames, shipmentDir, snapshot, tempDir } from '../support.js';

/** `n` MiB of bytes that compress somewhat and differ from `seed` to seed. */
function largeBytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n << 20);
  for (let i = 0; i < b.length; i += 4) b.writeUInt32LE((Math.imul(i >>> 12, 2654435761) ^ Math.imul(i, seed)) >>> 0, i);
  return b;
}

describe('pack reads large files ahead of the walk', () => {
  const root = tempDir();
  const home = join(root, 'home');
  const src = join(root, 'src');

  beforeAll(() => {
    assert.equal(brickpost(home, ['keygen']).code, 0);
    // Large files first and between small ones, so small files are encoded while a large one is read.
    mkdirSync(join(src, 'b-small'), { recursive: true });
    writeFileSync(join(src, 'a-large.bin'), largeBytes(9, 7));
    for (let i = 0; i < 60; i++) writeFileSync(join(src, 'b-small', `f${String(i).padStart(2, '0')}.txt`), `small file ${i}\n`.repeat(50 + i));
    writeFileSync(join(src, 'c-large.bin'), largeBytes(12, 11));
    // A copy of a large file's bytes: its chunks are deduplicated against the first one's.
    writeFileSync(join(src, 'd-copy.bin'), largeBytes(9, 7));
    writeFileSync(join(src, 'e-last.txt'), 'last\n');
  });

  test('the same tree packed twice gives the same frames, and ingests to the same tree', () => {
    // The dataset's secret is made by its first shipment: pack once, then copy the home so both packs share it.
    const seedDrive = join(root, 'seed');
    mkdirSync(seedDrive);
    const seed = join(root, 'seed-src');
    mkdirSync(seed);
    writeFileSync(join(seed, 'x'), 'x\n');
    assert.equal(brickpost(home, ['pack', seed, '--to', seedDrive, '--dataset', 'same']).code, 0);
    const home2 = join(root, 'home2');
    cpSync(home, home2, { recursive: true });
    const drives = [join(root, 'one'), join(root, 'two')];
    for (const [i, h] of [home, home2].entries()) {
      mkdirSync(drives[i]!);
      const r = brickpost(h, ['pack', src, '--to', drives[i]!, '--dataset', 'same', '--full', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(lastEvent(r).result.chunksDeduplicated > 0, true, 'the copy of a large file is deduplicated');
    }
    const a = packFiles(shipmentDir(drives[0]!)).map((p) => packFrames(p, join(home, 'age-identity.txt')));
    const b = packFiles(shipmentDir(drives[1]!)).map((p) => packFrames(p, join(home2, 'age-identity.txt')));
    assert.equal(a.length, b.length);
    a.forEach((f, i) => assert.ok(f.equals(b[i]!), `pack ${i} frames differ between two packs of one tree`));
    const dest = join(root, 'dest-same');
    const r = brickpost(home, ['ingest', drives[0]!, dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('a large file that cannot be opened is left out and named; the files after it ship', () => {
    const drive = join(root, 'gone');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'gone', '--json'], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'source-open@1' },
    });
    assert.equal(r.code, 0, r.stderr);
    const s = lastEvent(r).result;
    assert.deepEqual(s.entries.notShipped, { 'vanished while packing': 1 });
    const warned = r.stdout
      .split('\n')
      .filter((l) => l.includes('"NOT_SHIPPED"'))
      .map((l) => JSON.parse(l) as { path: string; message: string });
    assert.deepEqual(warned, [{ type: 'warning', code: 'NOT_SHIPPED', message: 'not shipped: "a-large.bin": vanished while packing', path: 'a-large.bin' }]);
    const dest = join(root, 'dest-gone');
    assert.equal(brickpost(home, ['ingest', drive, dest]).code, 0);
    assert.equal(existsSync(join(dest, 'a-large.bin')), false);
    for (const f of ['c-large.bin', 'd-copy.bin', 'e-last.txt', join('b-small', 'f59.txt')]) {
      assert.ok(readFileSync(join(dest, f)).equals(readFileSync(join(src, f))), `${f} shipped as it is`);
    }
  });

  test('a drive that fills while a large file is read ahead stops the pack with NO_SPACE and seals no shipment', () => {
    const drive = join(root, 'full');
    mkdirSync(drive);
    const r = brickpost(home, ['pack', src, '--to', drive, '--dataset', 'full', '--json'], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'drive-write@4' },
    });
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.equal(lastEvent(r).code, 'NO_SPACE');
    // What was written stays as a part for `pack --resume`; nothing is sealed.
    const bags = existsSync(join(drive, 'brickpost')) ? readdirSync(join(drive, 'brickpost')) : [];
    assert.deepEqual(
      bags.filter((b) => !b.endsWith('.part')),
      [],
    );
  });
});
