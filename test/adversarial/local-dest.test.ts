/**
 * Changes a local user makes to a destination, through the real CLI: a kept
 * file hard-linked to a file elsewhere when only its mode and time change;
 * a folder of DEST replaced by a link to a folder outside holding files of
 * the same size and time; a kept file or folder swapped for a link while a
 * commit is under way (the commit killed, the link planted, the commit
 * resumed); and DEST, or its state folder, being a symbolic link. In each,
 * nothing outside DEST changes (bytes, mode or time), and DEST ends as the
 * shipment's tree or is refused unchanged.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CLI, brickpost, diffSnapshots, lastEvent, publisherAndSubscriber, sh, snapshot, tempDir } from '../support.js';
import { assertRefused, run, treeDigest } from './harness.js';

/** What must not change of an entry outside DEST: mode, mtime to the nanosecond, link count, and content. */
function facts(p: string): Record<string, unknown> {
  const st = lstatSync(p, { bigint: true });
  return {
    mode: st.mode & 0o7777n,
    mtimeNs: st.mtimeNs,
    nlink: st.nlink,
    bytes: st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : null,
  };
}

/** Bytes that do not compress or repeat, so each file is its own chunks. */
function noise(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i += 32) createHash('sha256').update(`${seed}/${i}`).digest().copy(out, i);
  return out;
}

describe('local changes to the destination', () => {
  const root = tempDir('bp-adv-local-');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let recipient = '';
  let drives = 0;

  /** Packs `src` as the next shipment of `dataset`; returns the drive. */
  const pack = (src: string, dataset: string, extra: string[] = []): string => {
    const drive = join(root, `drive-${++drives}`);
    mkdirSync(drive);
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', dataset, '--json', ...extra]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return drive;
  };
  const ingest = (drive: string, dest: string): Record<string, any> => {
    const r = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return lastEvent(r).result;
  };
  /** Runs ingest armed with a failpoint, which kills it there (SIGKILL). */
  const killedAt = (point: string, drive: string, dest: string): void => {
    const r = spawnSync(process.execPath, [CLI, '--home', sub, 'ingest', drive, dest], {
      env: { ...process.env, BRICKPOST_FAILPOINT: point },
      encoding: 'utf8',
    });
    assert.equal(r.signal, 'SIGKILL', `killed at ${point}: ${r.status} ${r.stderr}`);
  };

  beforeAll(() => {
    recipient = publisherAndSubscriber(pub, sub);
  });

  test('a kept file hard-linked to a file outside DEST gets a new mode and time: the outside file keeps its own', () => {
    const src = join(root, 'hl-src');
    mkdirSync(join(src, 'f'), { recursive: true });
    writeFileSync(join(src, 'f', 'keep.txt'), noise('keep', 20_000));
    writeFileSync(join(src, 'other.txt'), 'other\n');
    chmodSync(join(src, 'f', 'keep.txt'), 0o644);
    const dest = join(root, 'hl-dest');
    ingest(pack(src, 'hardlink'), dest);
    const v1 = snapshot(dest);
    const outside = join(root, 'hl-outside.txt');
    linkSync(join(dest, 'f', 'keep.txt'), outside);
    const was = facts(outside);

    chmodSync(join(src, 'f', 'keep.txt'), 0o755);
    utimesSync(join(src, 'f', 'keep.txt'), 1_600_000_000, 1_600_000_000);
    const result = ingest(pack(src, 'hardlink'), dest);
    assert.deepEqual(facts(outside), was, 'the file outside DEST keeps its mode, time and bytes');
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'DEST is the source');
    assert.notEqual(lstatSync(join(dest, 'f', 'keep.txt')).ino, lstatSync(outside).ino, 'DEST holds a copy, not the shared inode');
    assert.equal(result.filesLinked, 1, `copied from the old file, not read from the drive: ${JSON.stringify(result)}`);

    const r = brickpost(sub, ['rollback', dest, '--to', '1', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(facts(outside), was, 'rollback leaves the outside file as it was');
    assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
  });

  test('a folder of DEST replaced by a link to a folder of the same files: refused unchanged, then a repair shipment gives the source; the outside folder untouched', () => {
    const src = join(root, 'fl-src');
    mkdirSync(join(src, 'a'), { recursive: true });
    for (const n of [1, 2, 3]) writeFileSync(join(src, 'a', `${n}.bin`), noise(`a${n}`, 50_000));
    writeFileSync(join(src, 'b.txt'), 'first\n');
    const dest = join(root, 'fl-dest');
    ingest(pack(src, 'folderlink'), dest);
    // The folder moves out of DEST (cp -a keeps sizes and times) and a link to it takes its place.
    const outside = join(root, 'fl-outside');
    sh('cp', ['-a', join(dest, 'a'), outside]);
    rmSync(join(dest, 'a'), { recursive: true });
    symlinkSync(outside, join(dest, 'a'));
    const outsideWas = snapshot(outside);
    const outsideDigest = treeDigest(outside);
    const destWas = treeDigest(dest, ['.brickpost']);

    writeFileSync(join(src, 'b.txt'), 'second\n');
    const drive2 = pack(src, 'folderlink');
    const request = join(root, 'fl-request.bpsig');
    const o = run(sub, ['ingest', drive2, dest, '--request-out', request]);
    assertRefused(o, { code: 'BASIS_MISSING', exit: 6, names: /"a\/[123]\.bin"/ });
    assert.equal(treeDigest(dest, ['.brickpost']), destWas, 'DEST unchanged, the link still there');
    assert.equal(treeDigest(outside), outsideDigest, 'the outside folder unchanged');

    const subKey = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(pub, ['trust', 'add', subKey, '--name', 'subscriber']).code, 0);
    ingest(pack(src, 'folderlink', ['--against', request]), dest);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'DEST is the source');
    assert.ok(lstatSync(join(dest, 'a')).isDirectory(), 'a/ is a real folder again');
    assert.deepEqual(diffSnapshots(outsideWas, snapshot(outside)), [], 'the outside folder keeps its files, modes and times');
    assert.equal(treeDigest(outside), outsideDigest);
  });

  describe('an entry swapped for a link during the commit', () => {
    const src = join(root, 'sw-src');
    let drive2 = '';
    let destCount = 0;
    /**
     * A destination at shipment 1. --allow-older: the catalog knows this home
     * applied shipment 2 to an earlier case's destination (a resumed commit
     * records its ingest too), and a new destination behind it is refused by
     * default.
     */
    const fresh = (): string => {
      const d = join(root, `sw-dest-${++destCount}`);
      const r = brickpost(sub, ['ingest', drive1, d, '--allow-older', '--json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return d;
    };
    let drive1 = '';

    beforeAll(() => {
      mkdirSync(join(src, 'd'), { recursive: true });
      writeFileSync(join(src, 'm.txt'), 'mode and time change\n');
      writeFileSync(join(src, 'c.txt'), 'content changes\n');
      writeFileSync(join(src, 'd', 'x.txt'), 'in a folder\n');
      chmodSync(join(src, 'm.txt'), 0o644);
      drive1 = pack(src, 'swap');
      writeFileSync(join(src, 'c.txt'), 'content changed\n');
      chmodSync(join(src, 'm.txt'), 0o755);
      utimesSync(join(src, 'm.txt'), 1_600_000_000, 1_600_000_000);
      utimesSync(join(src, 'd'), 1_500_000_000, 1_500_000_000);
      drive2 = pack(src, 'swap');
    });

    test('a kept file: the resumed commit refuses the link (exit 4), the file it points to keeps its mode and time; put back, the commit finishes', () => {
      const dest = fresh();
      killedAt('apply-retire@1', drive2, dest);
      const outside = join(root, 'sw-outside.txt');
      writeFileSync(outside, 'not part of DEST\n');
      chmodSync(outside, 0o600);
      utimesSync(outside, 1_000_000_000, 1_000_000_000);
      const was = facts(outside);
      const aside = join(root, 'sw-m-aside');
      renameSync(join(dest, 'm.txt'), aside);
      symlinkSync(outside, join(dest, 'm.txt'));

      assertRefused(run(sub, ['ingest', drive2, dest]), { code: 'UNSAFE_ENTRY', exit: 4, names: 'm.txt' });
      assert.deepEqual(facts(outside), was, 'nothing was set through the link');
      rmSync(join(dest, 'm.txt'));
      renameSync(aside, join(dest, 'm.txt'));
      ingest(drive2, dest);
      assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
      assert.deepEqual(facts(outside), was);
    });

    test('a kept folder: the resumed commit refuses the link (exit 4), the folder it points to keeps its mode and time; put back, the commit finishes', () => {
      const dest = fresh();
      killedAt('apply-dirs@1', drive2, dest);
      const outside = join(root, 'sw-outside-dir');
      mkdirSync(outside, { mode: 0o700 });
      writeFileSync(join(outside, 'x.txt'), 'in a folder\n');
      utimesSync(outside, 1_000_000_000, 1_000_000_000);
      const was = facts(outside);
      const aside = join(root, 'sw-d-aside');
      renameSync(join(dest, 'd'), aside);
      symlinkSync(outside, join(dest, 'd'));

      assertRefused(run(sub, ['ingest', drive2, dest]), { code: 'UNSAFE_ENTRY', exit: 4, names: /"[^"]*\/d"/ });
      assert.deepEqual(facts(outside), was, 'nothing was set through the link');
      rmSync(join(dest, 'd'));
      renameSync(aside, join(dest, 'd'));
      ingest(drive2, dest);
      assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
      assert.deepEqual(facts(outside), was);
    });
  });

  test('DEST a symbolic link the user made: resolved once, every command works through it; DEST/.brickpost a link: refused (exit 4), its target untouched', () => {
    const src = join(root, 'dl-src');
    mkdirSync(src);
    writeFileSync(join(src, 'one.txt'), 'one\n');
    const drive1 = pack(src, 'destlink');
    writeFileSync(join(src, 'two.txt'), 'two\n');
    const drive2 = pack(src, 'destlink');
    const real = join(root, 'dl-real');
    mkdirSync(real);
    const link = join(root, 'dl-link');
    symlinkSync(real, link);

    assert.equal(ingest(drive1, link).dest, realpathSync(real), 'the summary names the real folder');
    const v1 = snapshot(real);
    ingest(drive2, link);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link the user made stays');
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(real)), []);
    const h = brickpost(sub, ['history', link, '--json']);
    assert.equal(h.code, 0, h.stdout + h.stderr);
    assert.equal(brickpost(sub, ['rollback', link, '--to', '1']).code, 0);
    assert.deepEqual(diffSnapshots(v1, snapshot(real)), []);
    assert.equal(brickpost(sub, ['receipt', link, '--out', join(root, 'dl-receipt.json')]).code, 0);

    // The state folder moved out and linked back: ingest and rollback refuse it.
    const state = join(root, 'dl-state');
    renameSync(join(real, '.brickpost'), state);
    symlinkSync(state, join(real, '.brickpost'));
    const stateWas = treeDigest(state);
    const destWas = treeDigest(real);
    assertRefused(run(sub, ['ingest', drive2, real]), { code: 'UNSAFE_ENTRY', exit: 4, names: '.brickpost' });
    assertRefused(run(sub, ['rollback', real, '--to', '1']), { code: 'UNSAFE_ENTRY', exit: 4, names: '.brickpost' });
    assert.equal(treeDigest(state), stateWas, 'the linked state folder is untouched');
    assert.equal(treeDigest(real), destWas);

    // A new destination whose state folder is a link to an empty folder.
    const empty = join(root, 'dl-empty');
    mkdirSync(empty);
    const dest = join(root, 'dl-new');
    mkdirSync(dest);
    symlinkSync(empty, join(dest, '.brickpost'));
    assertRefused(run(sub, ['ingest', drive1, dest]), { code: 'UNSAFE_ENTRY', exit: 4, names: '.brickpost' });
    assert.deepEqual(readdirSync(empty), []);
    assert.deepEqual(readdirSync(dest), ['.brickpost']);
  });
});
