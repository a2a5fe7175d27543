/**
 * Real trees ship whole and come back exact. A generated tree with every
 * kind of entry (make_dataset.py --entries: names differing only in case or
 * normalisation, backslashes, controls, bytes that are not UTF-8; symbolic
 * links inside and outside; hard-link groups; sparse files; user extended
 * attributes; setuid, setgid and sticky modes; a FIFO and, as root, a
 * device and other owners) is packed and ingested, and the destination is
 * compared entry by entry with the source and with what `tar -x` makes of
 * the same source in the same test; then a second shipment after
 * make_dataset.py --mutate (retargeted and swapped links, a broken and an
 * added hard link, changed attributes and modes, data written into a hole,
 * a case rename), and a rollback to the first. A copy of a real system tree
 * (/usr/share/man: case twins such as _exit.2.gz and _Exit.2.gz, thousands
 * of links) does the same against tar. Ingest with default options leaves
 * links out of DEST, setuid bits, other owners and special files out, and
 * says so.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, lastEvent, MAKE_DATASET, publisherAndSubscriber, sh, tempDir, type Run } from '../support.js';
import { diffTrees, fullSnapshot } from '../tree.js';

const ROOT_ONLY = process.getuid?.() === 0;
const ALL = ['--outside-links', '--acls', ...(ROOT_ONLY ? ['--setid', '--owners', '--specials'] : [])];

const summary = (r: Run): any => {
  assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr.slice(-2000));
  const ev = lastEvent(r);
  assert.equal(ev.type, 'summary', r.stdout.slice(-1000));
  return ev.result;
};

/** What tar makes of `src` in `out`: GNU tar with holes, extended attributes, numeric owners. */
function tarCopy(src: string, out: string): void {
  mkdirSync(out, { recursive: true });
  const archive = `${out}.tar`;
  sh('tar', ['--create', '--sparse', '--xattrs', '--xattrs-include=user.*', '--numeric-owner', '--file', archive, '-C', src, '.']);
  sh('tar', [
    '--extract',
    '--xattrs',
    '--xattrs-include=user.*',
    '--numeric-owner',
    '--same-permissions',
    ...(ROOT_ONLY ? ['--same-owner'] : []),
    '--file',
    archive,
    '-C',
    out,
  ]);
  rmSync(archive);
}

describe('real trees ship whole and come back exact', () => {
  const root = tempDir('bp-trees-');
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  let recipient = '';
  let generated: any = {};

  beforeAll(() => {
    generated = JSON.parse(sh('python3', [MAKE_DATASET, src, '--size', '2M', '--seed', '13', '--entries', '-q']).toString('utf8'));
    mkdirSync(drive);
    recipient = publisherAndSubscriber(pub, sub);
  });

  test('pack ships every entry and says what it carries', () => {
    const s = summary(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'trees', '--json']));
    const e = generated.entries.counts ?? generated.entries;
    assert.deepEqual(s.entries.notShipped, {}, 'nothing left out');
    assert.equal(s.entries.excluded, 0);
    assert.ok(s.entries.links >= 9, `links ${s.entries.links}`);
    assert.ok(s.entries.hardLinks >= 4, `hard links ${s.entries.hardLinks}`);
    assert.ok(s.entries.specials >= 1, 'the FIFO');
    assert.ok(s.entries.sparseFiles >= 4 && s.entries.holeBytes > 50e6, `sparse ${s.entries.sparseFiles}, ${s.entries.holeBytes} bytes of holes`);
    assert.ok(s.entries.withXattrs >= 2);
    assert.ok(e, 'the generator describes its entries');
    // Holes are neither read nor stored: the drive is far smaller than the tree's apparent size.
    assert.ok(s.bytesOnDrive < 10e6, `${s.bytesOnDrive} bytes on the drive`);
  });

  test('ingest with every option gives the source back entry by entry, as tar -x does', () => {
    const dest = join(root, 'dest-all');
    const s = summary(brickpost(sub, ['ingest', drive, dest, ...ALL, '--json']));
    assert.deepEqual(s.notApplied, ROOT_ONLY ? {} : s.notApplied);
    assert.deepEqual(diffTrees(fullSnapshot(src), fullSnapshot(dest, { skipState: true })), []);
    const tarred = join(root, 'tar-out');
    tarCopy(src, tarred);
    assert.deepEqual(diffTrees(fullSnapshot(tarred), fullSnapshot(dest, { skipState: true })), [], 'the same tree as tar -x');
    // Sparse files allocate about what the source allocates.
    const big = 'entries/sparse/big-50M.bin';
    assert.ok(statSync(join(dest, big)).blocks * 512 < 1e6, 'the 50 MiB file with 8 KiB of data stays sparse');
  });

  test('ingest with default options: links out of DEST, setuid bits, other owners and special files are listed, not applied', () => {
    const dest = join(root, 'dest-default');
    const r = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /recorded but not applied: .*symbolic links pointing outside the tree \(--outside-links\)/);
    const s = summary(brickpost(sub, ['ingest', drive, join(root, 'dest-default-json'), '--json']));
    assert.equal(s.notApplied['symbolic links pointing outside the tree (--outside-links)'], 2);
    assert.ok(s.notApplied['entries with setuid or setgid bits (--setid, as root)'] >= 1);
    const list = readFileSync(s.notAppliedList, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      list
        .filter((x) => x.reason.startsWith('symbolic links'))
        .map((x) => x.path)
        .sort(),
      ['entries/links/absolute', 'entries/links/escaping'],
    );
    const want = fullSnapshot(src, { exclude: ['entries/links/absolute', 'entries/links/escaping', 'entries/special/null', 'entries/special/fifo'] });
    const got = fullSnapshot(dest, { skipState: true });
    // What differs is exactly what the policy leaves out: setuid and setgid bits, and owners other than root's here.
    const diffs = diffTrees(want, got, { ignore: ['uid', 'gid', 'mode'], limit: 100 });
    assert.deepEqual(diffs, []);
    assert.equal(existsSync(join(dest, 'entries/links/absolute')), false);
    assert.equal(statSync(join(dest, 'entries/modes/setuid-4755')).mode & 0o7777, 0o755);
  });

  test('a second shipment after --mutate (links swapped, hard links broken and added, attributes, a hole filled, a case rename), then a rollback', () => {
    const dest = join(root, 'dest-all');
    const v1 = fullSnapshot(src);
    const mutation = JSON.parse(sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '14', '-q']).toString('utf8'));
    assert.ok(mutation.entries_changed, 'the generator changed the entries');
    summary(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'trees', '--json']));
    const s = summary(brickpost(sub, ['ingest', drive, dest, ...ALL, '--json']));
    assert.equal(s.incremental, true);
    assert.deepEqual(diffTrees(fullSnapshot(src), fullSnapshot(dest, { skipState: true })), []);
    summary(brickpost(sub, ['rollback', dest, '--to', '1', '--json']));
    assert.deepEqual(diffTrees(v1, fullSnapshot(dest, { skipState: true })), [], 'rolled back to the first tree');
  });

  const system = ['/usr/share/man', '/usr/share/doc'].find((d) => existsSync(d));
  test.skipIf(!system)(
    `a copy of a real system tree (${system ?? 'none found'}) comes back as tar -x gives it${!system ? ` [skipped: neither /usr/share/man nor /usr/share/doc exists on this machine]` : ''}`,
    () => {
      const copy = join(root, 'system');
      cpSync(system!, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      const d = join(root, 'system-drive');
      mkdirSync(d);
      const p = summary(brickpost(pub, ['pack', copy, '--to', d, '--recipient', recipient, '--dataset', 'system', '--strict', '--json']));
      assert.deepEqual(p.entries.notShipped, {});
      assert.ok(p.entries.links > 0, 'system trees hold symbolic links');
      const dest = join(root, 'system-dest');
      summary(brickpost(sub, ['ingest', d, dest, ...ALL, '--json']));
      const tarred = join(root, 'system-tar');
      tarCopy(copy, tarred);
      assert.deepEqual(diffTrees(fullSnapshot(tarred), fullSnapshot(dest, { skipState: true })), []);
    },
  );
});
