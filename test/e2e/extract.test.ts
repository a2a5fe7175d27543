/**
 * Taking files off a drive without ingesting it, and leaving things out on
 * purpose, through the real CLI: extract writes the named files and folders
 * (a hard link whose file was not named holds the file), byte for byte and
 * with their metadata, and refuses what it cannot do before writing
 * anything; cat writes one file (a sparse file's holes as zeros); both work
 * on a drive set with a data drive missing. pack --exclude, --exclude-from
 * and --exclude-caches leave entries out and count them; --strict fails
 * when part of the source cannot be read, and says which.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, bytes, CLI, lastEvent, overwriteAt, MAKE_DATASET, publisherAndSubscriber, sh, tempDir, type Run } from '../support.js';
import { diffTrees, fullSnapshot } from '../tree.js';

const summary = (r: Run): any => {
  assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr.slice(-2000));
  return lastEvent(r).result;
};

describe('extract, cat and pack filters', () => {
  const root = tempDir('bp-extract-');
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  let recipient = '';

  beforeAll(() => {
    sh('python3', [MAKE_DATASET, src, '--size', '1M', '--seed', '17', '--entries', '-q']);
    mkdirSync(drive);
    recipient = publisherAndSubscriber(pub, sub);
    summary(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'ex', '--json']));
  });

  test('extract takes named files and folders, with their metadata, and a hard link whose file was not named', () => {
    const out = join(root, 'out1');
    const s = summary(
      brickpost(sub, ['extract', drive, 'entries/links', 'entries/hardlinks/two', 'entries/modes/mode-0664', '--to', out, '--same-permissions', '--json']),
    );
    assert.ok(s.files >= 4 && s.links >= 5, JSON.stringify(s));
    const want = fullSnapshot(src);
    const got = fullSnapshot(out);
    const under = (p: string): boolean => ['entries/links', 'entries/hardlinks/two', 'entries/modes/mode-0664'].some((x) => p === x || p.startsWith(`${x}/`));
    for (const [path, e] of got.entries) {
      if (!under(path)) continue;
      const w = want.entries.get(path);
      assert.ok(w, `extracted ${path} is in the source`);
      assert.deepEqual({ ...e, mtimeNs: e.type === 'dir' ? 0n : e.mtimeNs }, { ...w, mtimeNs: w.type === 'dir' ? 0n : w.mtimeNs }, path);
    }
    assert.equal(existsSync(join(out, 'entries/links/absolute')), false, 'a link out of the tree is not created by default');
    assert.equal(readFileSync(join(out, 'entries/hardlinks/two/tri.dat')).length > 0, true, 'the hard link holds its file');
    assert.deepEqual(readdirSync(join(out, 'entries')).sort(), ['hardlinks', 'links', 'modes'], 'nothing else was written');
    assert.equal(statSync(join(out, 'entries/modes/mode-0664')).mode & 0o777, 0o664);
  });

  test('extract refuses before writing anything: a path the shipment lacks, an entry in the way', () => {
    const out = join(root, 'out2');
    const missing = brickpost(sub, ['extract', drive, 'no/such', '--to', out, '--json']);
    assert.equal(missing.code, 2);
    assert.equal(lastEvent(missing).code, 'NOT_FOUND');
    assert.match(lastEvent(missing).message, /holds no "no\/such"/);
    mkdirSync(join(out, 'entries/xattrs'), { recursive: true });
    writeFileSync(join(out, 'entries/xattrs/file.txt'), 'mine');
    const inTheWay = brickpost(sub, ['extract', drive, 'entries/xattrs', '--to', out, '--json']);
    assert.equal(inTheWay.code, 2);
    assert.match(lastEvent(inTheWay).message, /does not replace what is already in .*"entries\/xattrs\/file\.txt"/);
    assert.equal(readFileSync(join(out, 'entries/xattrs/file.txt'), 'utf8'), 'mine');
    assert.deepEqual(readdirSync(join(out, 'entries/xattrs')), ['file.txt'], 'nothing was written');
  });

  test('extract of an incremental shipment refuses files that reuse data it does not carry, counting each file once', () => {
    // A sparse file of 1,100 data blocks apart: its refs fill a 'file' record and a 'more' record.
    const inc = join(root, 'inc');
    const [first, second] = [join(root, 'inc-drive1'), join(root, 'inc-drive2')];
    for (const d of [inc, first, second]) mkdirSync(d);
    const sparse = join(inc, 'sparse.bin');
    writeFileSync(sparse, '');
    const segment = 4096 + (1 << 16);
    for (let i = 0; i < 1100; i++) overwriteAt(sparse, i * segment, bytes(`block ${i}`, 4096));
    writeFileSync(join(inc, 'small.txt'), 'kept\n');
    summary(brickpost(pub, ['pack', inc, '--to', first, '--recipient', recipient, '--dataset', 'inc', '--json']));
    overwriteAt(sparse, 0, bytes('changed', 4096));
    writeFileSync(join(inc, 'small.txt'), 'changed\n');
    summary(brickpost(pub, ['pack', inc, '--to', second, '--recipient', recipient, '--dataset', 'inc', '--json']));
    const out = join(root, 'out-inc');
    const r = brickpost(sub, ['extract', second, 'sparse.bin', 'small.txt', '--to', out, '--json']);
    assert.equal(lastEvent(r).code, 'BASIS_MISSING', r.stdout.slice(-2000) + r.stderr.slice(-2000));
    assert.match(lastEvent(r).message, /^1 of the files to extract reuse data .*"sparse\.bin"; nothing was written/);
    assert.equal(existsSync(join(out, 'sparse.bin')) || existsSync(join(out, 'small.txt')), false, 'nothing was written');
  });

  test('cat writes one file, a sparse file with its holes as zeros, a hard link as its file', () => {
    for (const p of ['entries/sparse/hole-first.bin', 'entries/hardlinks/two/tri.dat', 'entries/xattrs/file.txt']) {
      const r = spawnSync(process.execPath, [CLI, '--home', sub, 'cat', drive, p], { maxBuffer: 1 << 30 });
      assert.equal(r.status, 0, String(r.stderr));
      assert.ok(Buffer.compare(r.stdout, readFileSync(join(src, p))) === 0, p);
    }
    const dir = brickpost(sub, ['cat', drive, 'entries/links']);
    assert.equal(dir.code, 2);
    assert.match(dir.stderr, /is a folder/);
  });

  test('extract and cat from a drive set with a data drive missing (rebuilt from the parity)', () => {
    const set = [1, 2, 3].map((i) => join(root, `set${i}`));
    for (const d of set) mkdirSync(d);
    summary(brickpost(pub, ['pack', src, ...set.flatMap((d) => ['--to', d]), '--recipient', recipient, '--dataset', 'ex-set', '--json']));
    rmSync(set[0]!, { recursive: true });
    const out = join(root, 'out-set');
    summary(brickpost(sub, ['extract', set[1]!, 'entries/names', '--drive', set[2]!, '--to', out, '--json']));
    assert.deepEqual(diffTrees(fullSnapshot(join(src, 'entries/names')), fullSnapshot(join(out, 'entries/names')), { ignore: ['uid', 'gid'] }), []);
    const r = spawnSync(process.execPath, [CLI, '--home', sub, 'cat', set[2]!, 'entries/xattrs/file.txt', '--drive', set[1]!]);
    assert.equal(r.status, 0, String(r.stderr));
    assert.ok(Buffer.compare(r.stdout, readFileSync(join(src, 'entries/xattrs/file.txt'))) === 0);
  });

  test('pack --exclude, --exclude-from and --exclude-caches leave entries out and count them', () => {
    const tree = join(root, 'filtered');
    mkdirSync(join(tree, 'keep'), { recursive: true });
    mkdirSync(join(tree, 'build/obj'), { recursive: true });
    mkdirSync(join(tree, 'cache'), { recursive: true });
    writeFileSync(join(tree, 'keep/a.txt'), 'a');
    writeFileSync(join(tree, 'keep/b.tmp'), 'b');
    writeFileSync(join(tree, 'build/obj/x.o'), 'x');
    writeFileSync(join(tree, 'notes.bak'), 'n');
    writeFileSync(join(tree, 'cache/CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n');
    writeFileSync(join(tree, 'cache/blob'), 'c');
    const list = join(root, 'excludes.txt');
    writeFileSync(list, '# editor backups\n*.bak\n');
    const d = join(root, 'filtered-drive');
    mkdirSync(d);
    const s = summary(
      brickpost(pub, [
        'pack',
        tree,
        '--to',
        d,
        '--dataset',
        'filtered',
        '--exclude',
        '*.tmp',
        '--exclude',
        'build/',
        '--exclude-from',
        list,
        '--exclude-caches',
        '--json',
      ]),
    );
    assert.equal(s.entries.excluded, 4);
    const listed = brickpost(pub, ['ls', d])
      .stdout.trim()
      .split('\n')
      .map((l) => l.split(/\s+/).pop());
    assert.deepEqual(listed, ['keep', 'keep/a.txt']);
  });

  test.skipIf(!(process.getuid?.() === 0))(
    `pack --strict fails when part of the source cannot be read, and says which; without it the rest ships${!(process.getuid?.() === 0) ? ` [skipped: runs pack as the unprivileged user nobody, which needs root to arrange]` : ''}`,
    () => {
      const tree = join(root, 'locked');
      mkdirSync(join(tree, 'closed'), { recursive: true });
      writeFileSync(join(tree, 'open.txt'), 'o');
      writeFileSync(join(tree, 'closed/secret.txt'), 's');
      writeFileSync(join(tree, 'unreadable.txt'), 'u');
      chmodSync(join(tree, 'closed'), 0o700);
      chmodSync(join(tree, 'unreadable.txt'), 0o600);
      chmodSync(root, 0o755);
      const home = join(root, 'nobody-home');
      const d = join(root, 'locked-drive');
      for (const p of [home, d]) {
        mkdirSync(p);
        chownSync(p, 65534, 65534);
      }
      const as = { uid: 65534, gid: 65534 };
      assert.equal(brickpost(home, ['keygen'], as).code, 0);
      const strict = brickpost(home, ['pack', tree, '--to', d, '--dataset', 'locked', '--strict', '--json'], as);
      assert.equal(strict.code, 5, strict.stdout.slice(-1000));
      assert.equal(lastEvent(strict).code, 'SOURCE_INCOMPLETE');
      assert.match(strict.stdout, /not shipped: \\"closed\\": its contents cannot be read/);
      assert.match(strict.stdout, /not shipped: \\"unreadable.txt\\": cannot be read/);
      assert.deepEqual(
        readdirSync(join(d, 'brickpost')).filter((n) => !n.endsWith('.custody')),
        [],
        'nothing shipped',
      );
      const loose = summary(brickpost(home, ['pack', tree, '--to', d, '--dataset', 'locked', '--json'], as));
      assert.deepEqual(loose.entries.notShipped, { 'its contents cannot be read (permission denied)': 1, 'cannot be read (permission denied)': 1 });
    },
  );
});
