/**
 * Files in folders a shipment creates are staged at their paths in the
 * staging tree (DEST/.brickpost/staging/ID/tree/), and the commit moves each
 * such folder in whole instead of renaming its files one by one. Checked
 * here on real files and the real journal: which install ops the planner
 * marks, that a name the tree cannot hold is staged flat and still lands
 * inside its moved folder, that the commit takes no step for the files a
 * folder moved in whole holds, that a kill after any step of the install phase
 * resumes to the exact tree, and that a folder found in the way at commit
 * is merged into file by file, keeping what it held.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, bytes, CLI, diffSnapshots, lastEvent, publisherAndSubscriber, snapshot, tempDir, type Node } from '../support.js';

/** Runs brickpost with a failpoint armed, asserting that it died there. */
function killedAt(home: string, point: string, args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, '--home', home, '--quiet', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, BRICKPOST_FAILPOINT: point },
  });
  assert.equal(r.signal, 'SIGKILL', `expected to die at ${point}; exited ${r.status}: ${r.stderr}`);
}

/** The install ops the journal of DEST keeps: path and target (STAGED_IN_TREE is 'tree'). */
function installOps(dest: string): Map<string, string | null> {
  const db = new Database(join(dest, '.brickpost', 'journal.sqlite'), { readonly: true });
  try {
    const rows = db.prepare("SELECT path, target FROM ops WHERE kind = 'install'").all() as Array<{ path: string; target: string | null }>;
    return new Map(rows.map((r) => [r.path, r.target]));
  } finally {
    db.close();
  }
}

/** A name that is not UTF-8 (byte 0xff), inside the new folder `a/b`. */
const ODD = Buffer.concat([Buffer.from('a/b/odd-'), Buffer.from([0xff]), Buffer.from('.bin')]);

/**
 * The snapshot of `root` (which reads names as UTF-8) with the odd file
 * moved aside meanwhile and its folder's times kept; asserts the odd file
 * is there with its bytes.
 */
function snapshotWithOdd(root: string, aside: string): Map<string, Node> {
  const odd = Buffer.concat([Buffer.from(root + '/'), ODD]);
  assert.ok(readFileSync(odd).equals(bytes('odd', 5000)), 'the file whose name is not UTF-8 is in its folder');
  const folder = join(root, 'a', 'b');
  const st = lstatSync(folder);
  renameSync(odd, aside);
  try {
    utimesSync(folder, st.atime, st.mtime);
    return snapshot(root);
  } finally {
    renameSync(aside, odd);
    utimesSync(folder, st.atime, st.mtime);
  }
}

describe('staging tree', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const drive = join(root, 'drive');
  let want: Map<string, Node>;

  beforeAll(() => {
    // Folders nested three deep, files beside folders, a root-level file, an empty folder, and one inside a folder moved in whole.
    for (const d of ['a/b/c', 'a/e', 'a/void', 'z/y', 'empty']) mkdirSync(join(src, d), { recursive: true });
    const files: Array<[string, number]> = [
      ['top.txt', 100],
      ['a/one.bin', 70_000],
      ['a/b/two.bin', 3_000],
      ['a/b/c/three.bin', 1_500_000],
      ['a/e/four.txt', 10],
      ['z/y/five.bin', 9_000_000],
      ['z/six.txt', 0],
    ];
    for (const [p, n] of files) writeFileSync(join(src, p), bytes(p, n));
    writeFileSync(Buffer.concat([Buffer.from(src + '/'), ODD]), bytes('odd', 5000));
    want = snapshotWithOdd(src, join(root, 'aside'));
    mkdirSync(drive);
    const recipient = publisherAndSubscriber(pub, sub);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 't']);
    assert.equal(p.code, 0, p.stderr);
  });

  /** DEST holds the tree as shipped, and `extra`. */
  const check = (dest: string, extra: string[] = []): void => {
    const got = snapshotWithOdd(dest, join(root, 'aside'));
    for (const e of extra) got.delete(e);
    assert.deepEqual(diffSnapshots(want, got), []);
  };

  test('the planner stages files of created folders in the tree, others flat; the commit moves the folders in', () => {
    const dest = join(root, 'dest');
    const r = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(r.code, 0, r.stderr);
    check(dest);
    const ops = installOps(dest);
    assert.equal(ops.get('top.txt'), null, 'a file of DEST itself is staged flat');
    for (const p of ['a/one.bin', 'a/b/two.bin', 'a/b/c/three.bin', 'a/e/four.txt', 'z/y/five.bin', 'z/six.txt']) assert.equal(ops.get(p), 'tree', p);
    // The journal keeps a name that is not UTF-8 in its own encoding: the one path not listed above.
    const odd = [...ops.keys()].filter((p) => !want.has(p));
    assert.equal(odd.length, 1, [...ops.keys()].join(', '));
    assert.equal(ops.get(odd[0]!), null, 'a name the stage writer cannot take is staged flat');
    assert.deepEqual(readdirSync(join(dest, '.brickpost', 'staging')), [], 'nothing is left staged');
  });

  // Before the second shipment below (the home refuses an older one after it). The journal holds 8 mkdir ops (a, a/b, a/b/c,
  // a/e, a/void, empty, z, z/y) and 8 installs; the install phase of the first ingest takes a step for each folder (a/void,
  // which the staging tree lacks, is made inside `a` once `a` moved in) and for the two files staged flat (top.txt and the
  // odd name), none for the 6 files that moved in with folders `a` and `z`.
  const STEPS = 10;
  test('the install phase takes no step for the files a folder moved in whole holds', () => {
    const dest = join(root, 'dest-steps');
    const r = brickpost(sub, ['ingest', drive, dest], { env: { ...process.env, BRICKPOST_FAILPOINT: `apply-install@${STEPS + 1}` } });
    assert.equal(r.code, 0, r.stderr);
    check(dest);
  });
  for (let k = 1; k <= STEPS; k++) {
    test(`killed after install op ${k}: ingest again gives the exact tree`, () => {
      const dest = join(root, `dest-kill-${k}`);
      killedAt(sub, `apply-install@${k}`, ['ingest', drive, dest]);
      const again = brickpost(sub, ['ingest', drive, dest]);
      assert.equal(again.code, 0, again.stderr);
      check(dest);
    });
  }

  test('a folder found in the way at commit is merged into file by file, keeping what it holds', () => {
    const dest = join(root, 'dest-way');
    // Killed after the first op: folder `a` moved in whole; `z` is still staged.
    killedAt(sub, 'apply-install@1', ['ingest', drive, dest]);
    assert.ok(existsSync(join(dest, 'a', 'b', 'c', 'three.bin')), 'the first folder moved in with its files');
    assert.ok(!existsSync(join(dest, 'z')));
    mkdirSync(join(dest, 'z', 'y'), { recursive: true });
    writeFileSync(join(dest, 'z', 'y', 'local.txt'), 'made here\n');
    const again = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(again.code, 0, again.stderr);
    check(dest, ['z/y/local.txt']);
    assert.equal(readFileSync(join(dest, 'z', 'y', 'local.txt'), 'utf8'), 'made here\n');
  });

  test('a second shipment into existing folders stages flat, into a new folder in the tree', () => {
    const dest = join(root, 'dest2');
    assert.equal(brickpost(sub, ['ingest', drive, dest]).code, 0);
    mkdirSync(join(src, 'a', 'new', 'deeper'), { recursive: true });
    writeFileSync(join(src, 'a', 'new', 'deeper', 'n.bin'), bytes('n', 20_000));
    writeFileSync(join(src, 'a', 'e', 'added.txt'), 'added\n');
    const drive2 = join(root, 'drive2');
    mkdirSync(drive2);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    try {
      assert.equal(brickpost(pub, ['pack', src, '--to', drive2, '--recipient', recipient, '--dataset', 't']).code, 0);
      const r = brickpost(sub, ['ingest', drive2, dest]);
      assert.equal(r.code, 0, r.stderr);
      const ops = installOps(dest);
      assert.equal(ops.get('a/new/deeper/n.bin'), 'tree');
      assert.equal(ops.get('a/e/added.txt'), null, 'a folder DEST has: staged flat');
      assert.ok(readFileSync(join(dest, 'a', 'new', 'deeper', 'n.bin')).equals(bytes('n', 20_000)));
      assert.equal(readFileSync(join(dest, 'a', 'e', 'added.txt'), 'utf8'), 'added\n');
    } finally {
      rmSync(join(src, 'a', 'new'), { recursive: true, force: true });
      rmSync(join(src, 'a', 'e', 'added.txt'), { force: true });
    }
  });

  test('a file moved into a new folder is copied from the one DEST has, into the staging tree, not built from the drive', () => {
    const moved = join(root, 'src-moved');
    mkdirSync(join(moved, 'keep'), { recursive: true });
    const data = bytes('moved', 300_000);
    writeFileSync(join(moved, 'keep', 'moved.bin'), data);
    writeFileSync(join(moved, 'keep', 'other.txt'), 'stays\n');
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    const drives = [join(root, 'drive-moved-1'), join(root, 'drive-moved-2')];
    for (const d of drives) mkdirSync(d);
    assert.equal(brickpost(pub, ['pack', moved, '--to', drives[0]!, '--recipient', recipient, '--dataset', 'moved']).code, 0);
    const dest = join(root, 'dest-moved');
    assert.equal(brickpost(sub, ['ingest', drives[0]!, dest]).code, 0);
    mkdirSync(join(moved, 'new', 'deeper'), { recursive: true });
    renameSync(join(moved, 'keep', 'moved.bin'), join(moved, 'new', 'deeper', 'moved.bin'));
    assert.equal(brickpost(pub, ['pack', moved, '--to', drives[1]!, '--recipient', recipient, '--dataset', 'moved']).code, 0);
    const r = brickpost(sub, ['ingest', drives[1]!, dest, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(installOps(dest).get('new/deeper/moved.bin'), 'tree');
    assert.equal(lastEvent(r).result.filesLinked, 1, r.stdout);
    assert.ok(readFileSync(join(dest, 'new', 'deeper', 'moved.bin')).equals(data));
    assert.deepEqual(diffSnapshots(snapshot(moved), snapshot(dest)), []);
  });

  // The journal is read 512 ops at a time; past the page where a folder moved in whole, the pages are read without its files.
  test('a folder moved in whole across pages of the journal: the folders below it are still made, its files take no step', () => {
    const big = join(root, 'src-big');
    for (const d of ['big/m', 'big/n-empty', 'big/o/p-empty']) mkdirSync(join(big, d), { recursive: true });
    for (let i = 0; i < 1300; i++) writeFileSync(join(big, 'big', `f${String(i).padStart(4, '0')}.txt`), `file ${i}\n`);
    writeFileSync(join(big, 'big', 'm', 'x.txt'), 'in m\n');
    writeFileSync(join(big, 'last.txt'), 'at the top\n');
    const bigDrive = join(root, 'drive-big');
    mkdirSync(bigDrive);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    assert.equal(brickpost(pub, ['pack', big, '--to', bigDrive, '--recipient', recipient, '--dataset', 'big']).code, 0);
    // Steps: the 5 folders (big, big/m, big/n-empty, big/o, big/o/p-empty) and last.txt, staged flat; none for the 1,301 files below big.
    const dest = join(root, 'dest-big');
    const r = brickpost(sub, ['ingest', bigDrive, dest], { env: { ...process.env, BRICKPOST_FAILPOINT: 'apply-install@7' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(installOps(dest).size, 1302);
    assert.deepEqual(diffSnapshots(snapshot(big), snapshot(dest)), []);
  });
});
