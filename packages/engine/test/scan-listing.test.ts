// Listing a folder for the walk (scan/listing.ts): the posix addon's one call against Node's fs, and the walk on top.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import { compareFolded, foldKey, fromBytes } from '@brickpost/manifest';
import { listDir } from '../src/scan/listing.js';
import { compileExcludes, walk, measure, measureAside, type SourceEntry, type WalkOptions } from '../src/scan/index.js';

const root = mkdtempSync(join(tmpdir(), 'brickpost-listing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A tree with every kind of entry the walk tells apart, and names that are not ASCII or not UTF-8. */
function makeTree(): string {
  const src = join(root, 'src');
  mkdirSync(join(src, 'Sub', 'deeper'), { recursive: true });
  writeFileSync(join(src, 'b.txt'), 'bee');
  writeFileSync(join(src, 'A.txt'), 'ay');
  writeFileSync(join(src, 'été.txt'), 'summer');
  writeFileSync(Buffer.concat([Buffer.from(`${src}/`), Buffer.from([0x6e, 0xff, 0x2e, 0x62])]), 'not utf-8');
  writeFileSync(join(src, 'Sub', 'deeper', 'x'), 'x'.repeat(5000));
  linkSync(join(src, 'b.txt'), join(src, 'Sub', 'b-again'));
  symlinkSync('../b.txt', join(src, 'Sub', 'to-b'));
  execFileSync('mkfifo', [join(src, 'Sub', 'pipe')]);
  writeFileSync(join(src, 'holes'), '');
  truncateSync(join(src, 'holes'), 1 << 20);
  return src;
}

const src = makeTree();
const canTag = (() => {
  try {
    posix.setXattr(join(src, 'A.txt'), 'user.brickpost.tag', Buffer.from('v'));
    return true;
  } catch {
    return false;
  }
})();

test.skipIf(!posix.available)(
  `the addon and Node fs list a folder alike: the same names, the same fields${posix.available ? '' : ' [skipped: the posix addon is not built here]'}`,
  () => {
    for (const dir of [src, join(src, 'Sub')]) {
      const a = listDir(dir, true, true);
      const b = listDir(dir, true, false);
      assert.deepEqual([...a.names].sort(), [...b.names].sort());
      for (const name of a.names) {
        const sa = a.stat(a.names.indexOf(name));
        const sb = b.stat(b.names.indexOf(name));
        assert.ok(!(sa instanceof Error) && !(sb instanceof Error));
        assert.deepEqual({ ...sa, xattrs: -1 }, sb, name);
        if (sa.kind === 'link') assert.equal(sa.xattrs, -1);
        else assert.ok(sa.xattrs >= 0, `${name}: ${sa.xattrs}`);
      }
    }
    assert.ok(listDir(src, true, true).names.includes(fromBytes(Buffer.from([0x6e, 0xff, 0x2e, 0x62]))));
  },
);

test('the walk yields every entry in manifest order with its kind, hard link, holes and attributes', async () => {
  const skipped: string[] = [];
  const seen: SourceEntry[] = [];
  for await (const e of walk(src, (s) => skipped.push(s.path))) seen.push(e);
  assert.deepEqual(skipped, []);
  const odd = fromBytes(Buffer.from([0x6e, 0xff, 0x2e, 0x62]));
  assert.deepEqual(
    seen.map((e) => [e.path, e.type]),
    [
      ['A.txt', 'file'],
      ['b.txt', 'file'],
      ['holes', 'file'],
      [odd, 'file'],
      ['Sub', 'dir'],
      ['Sub/b-again', 'hard'],
      ['Sub/deeper', 'dir'],
      ['Sub/deeper/x', 'file'],
      ['Sub/pipe', 'special'],
      ['Sub/to-b', 'link'],
      ['été.txt', 'file'],
    ],
  );
  const by = new Map(seen.map((e) => [e.path, e]));
  assert.equal(by.get('Sub/b-again')!.to, 'b.txt');
  assert.equal(by.get('Sub/to-b')!.target, '../b.txt');
  assert.equal(by.get('Sub/pipe')!.kind, 'fifo');
  assert.equal(by.get('Sub/deeper/x')!.size, 5000);
  assert.equal(by.get('holes')!.sparse, true);
  assert.equal(by.get('A.txt')!.sparse, undefined);
  if (canTag) assert.deepEqual(by.get('A.txt')!.attrs.x, [['user.brickpost.tag', Buffer.from('v').toString('base64')]]);
  assert.equal(by.get('b.txt')!.attrs.x, undefined);
  assert.deepEqual(await measure(src), { files: 6, dirs: 2, bytes: 3 + 2 + 6 + 9 + 5000 + (1 << 20), others: 3 });
});

/** What the walk yields, counted as measure counts it. */
async function walked(dir: string, opts: WalkOptions): Promise<Awaited<ReturnType<typeof measure>>> {
  const t = { files: 0, dirs: 0, bytes: 0, others: 0 };
  for await (const e of walk(dir, () => undefined, { ...opts, attributes: false })) {
    if (e.type === 'dir') t.dirs++;
    else if (e.type === 'file') (t.files++, (t.bytes += e.size));
    else t.others++;
  }
  return t;
}

test('measure counts what the walk yields: excluded entries, cache folders, the reserved name and hard links whose first name is left out', async () => {
  mkdirSync(join(src, 'cache'), { recursive: true });
  writeFileSync(join(src, 'cache', 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n');
  writeFileSync(join(src, 'cache', 'big'), 'c'.repeat(700));
  mkdirSync(join(src, '.brickpost'), { recursive: true });
  writeFileSync(join(src, '.brickpost', 'state'), 'state');
  try {
    const cases: WalkOptions[] = [
      {},
      { excludeCaches: true },
      { exclude: compileExcludes(['b.txt', 'deeper']) },
      { exclude: compileExcludes(['*.txt']), excludeCaches: true },
    ];
    const seen: string[] = [];
    for (const opts of cases) {
      const m = await measure(src, opts);
      assert.deepEqual(m, await walked(src, opts), JSON.stringify(opts));
      seen.push(JSON.stringify(m));
    }
    // The cases differ, so the comparison is not of four equal totals.
    assert.equal(new Set(seen).size, cases.length);
  } finally {
    rmSync(join(src, 'cache'), { recursive: true });
    rmSync(join(src, '.brickpost'), { recursive: true });
  }
});

/** The error `p` rejects with; fails the test if it resolves. */
async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  const r = await p.then(
    (v) => ({ v }),
    (e: unknown) => ({ e: e as Error & { code?: string } }),
  );
  if ('v' in r) assert.fail(`resolved with ${JSON.stringify(r.v)}`);
  return r.e;
}

test('measureAside counts on its own thread what measure counts here, with the same excludes, and fails as it fails', async () => {
  for (const opts of [{}, { exclude: compileExcludes(['b.txt', 'deeper/']) }] as WalkOptions[]) {
    const aside = measureAside(src, opts);
    assert.deepEqual(await aside.totals, await measure(src, opts));
    await aside.stop();
  }
  const missing = join(root, 'no-such-folder');
  const here = await failure(measure(missing));
  const there = await failure(measureAside(missing).totals);
  assert.equal(there.code, here.code);
  assert.equal(here.code, 'NOT_FOUND');
  assert.equal(there.message, here.message);
});

test('measureAside stopped before it finishes rejects its totals with CANCELLED and ends its thread', async () => {
  const aside = measureAside(src);
  const totals = failure(aside.totals);
  // Stopped in the turn it started in: no message of the thread can have come yet.
  await aside.stop();
  assert.equal((await totals).code, 'CANCELLED');
  await aside.stop();
});

test('with folders listed ahead the walk still yields every entry once, in manifest order, and measure agrees', async () => {
  const wide = join(root, 'wide');
  // 3 levels of folders whose names sort differently by bytes and by fold key, some empty, one excluded, one a cache.
  const made: string[] = [];
  for (const a of ['b', 'A', 'c', 'D', 'e']) {
    for (const b of ['x', 'Y', 'z', '_']) {
      const dir = join(wide, a, b);
      mkdirSync(dir, { recursive: true });
      made.push(dir);
      if (b !== '_') for (const c of ['2', '1']) mkdirSync(join(dir, c));
      writeFileSync(join(dir, `${a}${b}.txt`), a + b);
      if (b === 'z') writeFileSync(join(dir, '1', 'deep'), 'deep');
    }
  }
  mkdirSync(join(wide, 'c', 'cache'));
  writeFileSync(join(wide, 'c', 'cache', 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n');
  /** The tree as a plain recursive walk in manifest order sees it. */
  const reference = (dir: string, rel: string, out: string[], skip: (rel: string) => boolean): void => {
    const names = readdirSync(dir).sort((x, y) => compareFolded(foldKey(x), x, foldKey(y), y));
    for (const name of names) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (skip(childRel)) continue;
      out.push(childRel);
      if (lstatSync(join(dir, name)).isDirectory()) reference(join(dir, name), childRel, out, skip);
    }
  };
  const cases: Array<{ opts: WalkOptions; skip: (rel: string) => boolean }> = [
    { opts: {}, skip: () => false },
    { opts: { exclude: compileExcludes(['Y', 'e']), excludeCaches: true }, skip: (r) => /(^|\/)(Y|e)$/.test(r) || r === 'c/cache' },
  ];
  for (const { opts, skip } of cases) {
    const want: string[] = [];
    reference(wide, '', want, skip);
    const got: string[] = [];
    for await (const e of walk(wide, () => undefined, { ...opts, attributes: false })) got.push(e.path);
    assert.ok(got.length > 40, `${got.length} entries`);
    assert.deepEqual(got, want, JSON.stringify(opts));
    assert.deepEqual(await measure(wide, opts), await walked(wide, opts));
  }
  assert.equal(made.length, 20);
});
