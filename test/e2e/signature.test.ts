/**
 * `brickpost signature` through the real CLI on a folder brickpost never
 * wrote: a signed signature file that minisign accepts and zstd decodes,
 * listing every regular file in manifest order with its chunks (SHA-256 of
 * each), skipping symlinks with a warning, leaving the folder untouched.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, snapshot, tempDir } from '../support.js';

describe('signature of a folder brickpost never wrote', () => {
  const root = tempDir();
  const folder = join(root, 'mirror');
  const home = join(root, 'subscriber');
  const out = join(root, 'mirror.bpsig');
  let me: Record<string, string> = {};

  beforeAll(() => {
    mkdirSync(join(folder, 'Data', 'raw'), { recursive: true });
    writeFileSync(join(folder, 'readme.txt'), 'a mirror kept by hand\n');
    writeFileSync(join(folder, 'Data', 'raw', 'big.bin'), pseudoRandom(9 << 20));
    writeFileSync(join(folder, 'Data', 'empty.csv'), '');
    writeFileSync(join(folder, 'b.txt'), 'bee\n');
    symlinkSync('readme.txt', join(folder, 'link'));
    assert.equal(brickpost(home, ['keygen', '--name', 'mirror-keeper']).code, 0);
    me = JSON.parse(brickpost(home, ['whoami', '--json']).stdout);
  });

  test('writes a signed signature file of every file, and changes nothing in the folder', () => {
    const before = snapshot(folder);
    const r = brickpost(home, ['signature', folder, '--out', out, '--dataset', 'survey', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      events.some((e) => e.type === 'warning' && e.code === 'SKIPPED' && e.path === 'link'),
      'the symlink is skipped with a warning',
    );
    assert.ok(
      events.some((e) => e.type === 'progress'),
      'progress events',
    );
    const s = lastEvent(r).result;
    assert.deepEqual(
      { files: s.files, bytes: s.bytes, dataset: s.dataset, datasetId: s.datasetId, state: s.state, warnings: s.warnings },
      { files: 4, bytes: (9 << 20) + 22 + 4, dataset: 'survey', datasetId: null, state: null, warnings: 1 },
    );
    assert.equal(s.fileSize, readFileSync(out).length);
    assert.equal(s.sha256, createHash('sha256').update(readFileSync(out)).digest('hex'));
    assert.deepEqual(diffSnapshots(before, snapshot(folder)), []);
    assert.deepEqual(
      [...snapshot(folder).keys()].filter((k) => k.startsWith('.brickpost')),
      [],
      'no state folder is created',
    );

    const v = spawnSync('minisign', ['-Vm', out, '-p', me.minisignPublicKeyFile!], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, new RegExp(`Trusted comment: brickpost/v1 signature kind:signature dataset:none subscriber:${me.keyId}`));

    const z = spawnSync('zstd', ['-dc', out], { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(z.status, 0, z.stderr);
    const recs = z.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(recs[0], {
      ...recs[0],
      t: 'signature',
      kind: 'signature',
      ids: 'sha256',
      dataset: 'survey',
      subscriber: me.keyId,
      recipient: me.recipient,
      chunker: 'fastcdc-v1',
    });
    const files = recs.filter((x) => x.t === 'file');
    assert.deepEqual(
      files.map((f) => f.p),
      ['b.txt', 'Data/empty.csv', 'Data/raw/big.bin', 'readme.txt'],
      'manifest order',
    );
    assert.deepEqual(files[0].c, [[createHash('sha256').update('bee\n').digest('hex'), 4]]);
    assert.deepEqual(files[1].c, []);
    const big = files[2];
    assert.ok(big.c.length >= 3, 'a 9 MiB file has several chunks');
    assert.equal(
      big.c.reduce((n: number, [, len]: [string, number]) => n + len, 0),
      9 << 20,
    );
    const data = readFileSync(join(folder, 'Data', 'raw', 'big.bin'));
    let at = 0;
    for (const [id, len] of big.c as Array<[string, number]>) {
      assert.equal(
        id,
        createHash('sha256')
          .update(data.subarray(at, at + len))
          .digest('hex'),
      );
      at += len;
    }
    assert.deepEqual(recs.at(-1), { t: 'end', files: 4, chunks: recs.filter((x) => x.c).reduce((n, x) => n + x.c.length, 0), bytes: s.bytes });
  });

  test('the file may not be written inside the folder it describes; a missing folder is a usage error', () => {
    const inside = brickpost(home, ['signature', folder, '--out', join(folder, 'sig.bpsig'), '--json']);
    assert.equal(inside.code, 2, inside.stdout);
    assert.match(lastEvent(inside).message, /inside the folder/);
    const missing = brickpost(home, ['signature', join(root, 'nope'), '--out', join(root, 'n.bpsig')]);
    assert.equal(missing.code, 2);
    const noOut = brickpost(home, ['signature', folder]);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /missing --out/);
  });
});

/** Deterministic incompressible bytes (SHA-256 in counter mode). */
function pseudoRandom(n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let o = 0, i = 0; o < n; o += 32, i++) createHash('sha256').update(`sig/${i}`).digest().copy(out, o);
  return out;
}
