/**
 * Folders after an ingest carry the mode and mtime their records give,
 * nested, read-only, named in bytes that are not UTF-8, and more of them
 * than the commit reads at a time; whether the commit ran whole (the
 * folders come from the plan) or was killed before its folder phase and
 * finished by the next run (the folders come from the stored manifest).
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, CLI, COMMAND_TIMEOUT, publisherAndSubscriber, tempDir } from '../support.js';
import { diffTrees, fullSnapshot } from '../tree.js';

describe('folder modes and mtimes after ingest', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');

  beforeAll(() => {
    const latin1 = Buffer.concat([Buffer.from(`${src}/l`), Buffer.from([0xe9]), Buffer.from('t')]);
    mkdirSync(join(src, 'a', 'b', 'c'), { recursive: true });
    mkdirSync(latin1);
    writeFileSync(join(src, 'a', 'b', 'c', 'inside.txt'), 'in a read-only folder\n');
    writeFileSync(Buffer.concat([latin1, Buffer.from('/f.txt')]), 'latin-1 folder\n');
    // 700 folders: more than one page of the commit's folder reads.
    for (let i = 0; i < 700; i++) mkdirSync(join(src, 'many', `d${String(i).padStart(3, '0')}`), { recursive: true });
    // Times set deepest first (a folder's own mtime changes when its content does), each distinct.
    const t = 1_600_000_000;
    for (let i = 0; i < 700; i++) utimesSync(join(src, 'many', `d${String(i).padStart(3, '0')}`), t, t + i + 0.25);
    utimesSync(join(src, 'many'), t, t - 1);
    utimesSync(join(src, 'a', 'b', 'c'), t, t + 1000);
    utimesSync(join(src, 'a', 'b'), t, t + 2000);
    utimesSync(join(src, 'a'), t, t + 3000);
    utimesSync(latin1, t, t + 4000.5);
    chmodSync(join(src, 'a', 'b', 'c'), 0o555);
    chmodSync(join(src, 'a', 'b'), 0o700);
    chmodSync(join(src, 'many', 'd007'), 0o750);
    mkdirSync(drive);
    const recipient = publisherAndSubscriber(pub, sub);
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'folders']);
    assert.equal(r.code, 0, r.stderr);
  });

  const same = (dest: string): string[] =>
    diffTrees(fullSnapshot(src, { dirTimes: true }), fullSnapshot(dest, { dirTimes: true, skipState: true }), { ignore: ['blocks'] });

  test('an ingest gives every folder its mode and mtime', () => {
    const dest = join(root, 'dest');
    const r = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(same(dest), []);
  });

  test('killed before the folder phase, the next ingest gives them from the stored manifest', () => {
    const dest = join(root, 'dest-killed');
    const k = spawnSync(process.execPath, [CLI, '--home', sub, '--quiet', 'ingest', drive, dest], {
      encoding: 'utf8',
      timeout: COMMAND_TIMEOUT,
      env: { ...process.env, BRICKPOST_FAILPOINT: 'apply-dirs' },
    });
    assert.equal(k.signal, 'SIGKILL', `expected to die at apply-dirs: ${k.stderr}`);
    const r = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(same(dest), []);
  });
});
