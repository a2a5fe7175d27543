/**
 * The browse index behind the desktop's drive view: the first look at a
 * shipment builds it in the home's cache (never on the drive), every later
 * look reuses that file; a damaged, foreign or other-manifest file under its
 * name is built again; two manifests under one shipment id never share one;
 * a folder past the limit is capped and counted; the shipment's signature
 * is still checked on every look; old indexes are pruned; builders in
 * one process or in two leave one complete file. Shipments are
 * written by the crafting writer of `@brickpost/engine/testing`, signed by a
 * publisher the subscriber's home trusts.
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { copyFileSync, linkSync, mkdirSync, readdirSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Engine } from '@brickpost/engine';
import type { FolderListing, ListEntry } from '@brickpost/engine/api';
import { craftShipment, newParty, type PartyKeys } from '@brickpost/engine/testing';
import { FOLDER_LIMIT, shipmentFolder } from '@brickpost/desktop/host';
import { brickpost, diffSnapshots, publisherAndSubscriber, ROOT, snapshot, tempDir } from '../support.js';

const names = (entries: ListEntry[]): string[] => entries.map((e) => e.path);
const cacheOf = (home: string): string => join(home, 'cache', 'browse');
const indexes = (home: string): string[] => readdirSync(cacheOf(home)).filter((n) => n.endsWith('.sqlite'));

/** A publisher and a subscriber home trusting it. */
function parties(root: string): { pub: PartyKeys; sub: PartyKeys; home: string } {
  const pub = newParty(join(root, 'pub'));
  const home = join(root, 'sub');
  const sub = newParty(home);
  const e = Engine.open({ home });
  try {
    e.trustAdd(pub.minisignPublicKey, 'pub');
  } finally {
    e.close();
  }
  return { pub, sub, home };
}

/** A drive at `drive` whose shipment holds the folders and empty files of `tree` (paths, folders ending in '/', in manifest order). */
async function drive(drive: string, p: { pub: PartyKeys; sub: PartyKeys }, tree: string[], shipment?: string): Promise<string> {
  mkdirSync(drive, { recursive: true });
  const lines = tree.map((t) =>
    t.endsWith('/')
      ? JSON.stringify({ t: 'dir', p: t.slice(0, -1), mode: 0o755, mtime: '0' })
      : JSON.stringify({ t: 'file', p: t, size: 0, mode: 0o644, mtime: '0', c: [] }),
  );
  const dirs = tree.filter((t) => t.endsWith('/')).length;
  const s = await craftShipment({
    drive,
    signingKey: p.pub.signingKey,
    recipients: [p.sub.recipient],
    ...(shipment !== undefined ? { shipment } : {}),
    manifest: (l) => [
      JSON.stringify(l.header),
      ...lines,
      ...l.packs.map((x) => JSON.stringify(x)),
      JSON.stringify({ t: 'end', dirs, files: tree.length - dirs, bytes: 0, chunks: 0, packs: l.packs.length }),
    ],
  });
  return s.id;
}

const look = (e: Engine, d: string, folder: string, limit = 100): Promise<FolderListing> => e.listFolder({ drive: d, folder, limit });

test('the first look builds the index in the home, later looks reuse it; a large folder is capped', async () => {
  const root = tempDir('bp-browse-');
  const p = parties(root);
  const many = Array.from({ length: FOLDER_LIMIT + 3 }, (_, i) => `many/f${String(i).padStart(5, '0')}`);
  const d = join(root, 'drive');
  await drive(d, p, ['docs/', 'docs/a.txt', 'docs/deep/', 'docs/deep/c.txt', 'many/', ...many, 'z.txt']);
  const before = snapshot(d);
  const engine = Engine.open({ home: p.home });
  try {
    const top = await look(engine, d, '');
    assert.deepEqual([names(top.entries), top.total, top.indexBuilt], [['docs', 'many', 'z.txt'], 3, true]);
    assert.equal(indexes(p.home).length, 1);
    const file = join(cacheOf(p.home), indexes(p.home)[0]!);
    const ino = statSync(file).ino;

    const deep = await look(engine, d, 'docs/deep/');
    assert.deepEqual([deep.folder, names(deep.entries), deep.total, deep.indexBuilt], ['docs/deep', ['docs/deep/c.txt'], 1, false]);
    assert.deepEqual(names((await look(engine, d, '/docs')).entries), ['docs/a.txt', 'docs/deep']);
    assert.equal(statSync(file).ino, ino, 'the same file serves every look');

    const capped = await shipmentFolder(engine, { drive: d, folder: 'many' });
    assert.deepEqual([capped.entries.length, capped.limit, capped.more], [FOLDER_LIMIT, FOLDER_LIMIT, 3]);
    assert.deepEqual([capped.entries[0]?.path, capped.entries.at(-1)?.path], ['many/f00000', `many/f0${FOLDER_LIMIT - 1}`]);
    assert.match(capped.note ?? '', /holds 5,003 entries; the first 5,000 are listed/);

    const code = (folder: string): Promise<string | undefined> =>
      look(engine, d, folder).then(
        () => undefined,
        (e: { code?: string }) => e.code,
      );
    assert.equal(await code('docs/a.txt'), 'USAGE');
    assert.equal(await code('docs/a.txt/x'), 'NOT_FOUND');
    assert.equal(await code('nothing'), 'NOT_FOUND');
    assert.equal(await code('docs/../many'), 'USAGE');
  } finally {
    engine.close();
  }
  const again = Engine.open({ home: p.home });
  try {
    assert.equal((await look(again, d, 'docs')).indexBuilt, false, 'a new engine on the home finds the index');
  } finally {
    again.close();
  }
  assert.deepEqual(diffSnapshots(before, snapshot(d)), [], 'the drive is only read');
});

test('a damaged, foreign or truncated index file is built again', async () => {
  const root = tempDir('bp-browse-bad-');
  const p = parties(root);
  const d = join(root, 'drive');
  await drive(d, p, ['a/', ...Array.from({ length: 3000 }, (_, i) => `a/f${String(i).padStart(4, '0')}`), 'b.txt']);
  const engine = Engine.open({ home: p.home });
  try {
    assert.equal((await look(engine, d, '')).indexBuilt, true);
    const file = join(cacheOf(p.home), indexes(p.home)[0]!);
    const spoil: Array<[string, () => void]> = [
      ['not SQLite', () => writeFileSync(file, 'not an index\n'.repeat(100))],
      ['the catalog', () => copyFileSync(join(p.home, 'catalog.sqlite'), file)],
      ['cut short', () => truncateSync(file, Math.floor(statSync(file).size / 2))],
    ];
    for (const [what, doIt] of spoil) {
      doIt();
      const r = await look(engine, d, 'a', 2);
      assert.deepEqual([r.indexBuilt, names(r.entries), r.total], [true, ['a/f0000', 'a/f0001'], 3000], what);
      assert.equal((await look(engine, d, 'a', 2)).indexBuilt, false, what);
    }
  } finally {
    engine.close();
  }
});

test('two manifests under one shipment id never share an index', async () => {
  const root = tempDir('bp-browse-same-id-');
  const p = parties(root);
  const [d1, d2] = [join(root, 'd1'), join(root, 'd2')];
  const id = await drive(d1, p, ['first/', 'first/one.txt']);
  assert.equal(await drive(d2, p, ['second/', 'second/two.txt'], id), id);
  const engine = Engine.open({ home: p.home });
  try {
    const one = await look(engine, d1, '');
    const [mine] = indexes(p.home);
    const two = await look(engine, d2, '');
    const other = indexes(p.home).find((n) => n !== mine);
    assert.deepEqual([names(one.entries), one.indexBuilt], [['first'], true]);
    assert.deepEqual([names(two.entries), two.indexBuilt], [['second'], true]);
    assert.equal(indexes(p.home).length, 2);
    assert.deepEqual(names((await look(engine, d1, '')).entries), ['first']);

    // The first drive's index put under the second's name is not taken for it.
    copyFileSync(join(cacheOf(p.home), mine!), join(cacheOf(p.home), other!));
    const r = await look(engine, d2, '');
    assert.deepEqual([names(r.entries), r.indexBuilt], [['second'], true]);
  } finally {
    engine.close();
  }
});

test('every look checks the signature; old indexes are pruned', async () => {
  const root = tempDir('bp-browse-trust-');
  const p = parties(root);
  const drives = Array.from({ length: 6 }, (_, i) => join(root, `d${i}`));
  for (const [i, d] of drives.entries()) await drive(d, p, [`f${i}.txt`]);
  const engine = Engine.open({ home: p.home });
  try {
    for (const d of drives) assert.equal((await look(engine, d, '')).indexBuilt, true);
    assert.equal(indexes(p.home).length, 4, 'the 4 most recently used are kept');
    assert.equal((await look(engine, drives[5]!, '')).indexBuilt, false);
    assert.equal((await look(engine, drives[0]!, '')).indexBuilt, true, 'the least recently used was pruned');

    engine.trustRemove('pub');
    const refused = await look(engine, drives[5]!, '').then(
      () => null,
      (e: { code?: string }) => e.code,
    );
    assert.equal(refused, 'UNTRUSTED_PUBLISHER');
  } finally {
    engine.close();
  }
});

test('two looks at once build one index', async () => {
  const root = tempDir('bp-browse-race-');
  const p = parties(root);
  const d = join(root, 'drive');
  await drive(d, p, ['x/', 'x/y.txt']);
  const engine = Engine.open({ home: p.home });
  try {
    const both = await Promise.all([look(engine, d, ''), look(engine, d, 'x')]);
    assert.deepEqual(
      both.map((r) => names(r.entries)),
      [['x'], ['x/y.txt']],
    );
    assert.deepEqual(both.map((r) => r.indexBuilt).sort(), [false, true]);
    assert.equal(readdirSync(cacheOf(p.home)).length, 1, 'one index, no temporary file left');
  } finally {
    engine.close();
  }
});

test('two processes building at once leave one complete index', async () => {
  const root = tempDir('bp-browse-procs-');
  const p = parties(root);
  const d = join(root, 'drive');
  await drive(d, p, ['x/', ...Array.from({ length: 2000 }, (_, i) => `x/f${String(i).padStart(4, '0')}`)]);
  const script = `import { Engine } from '@brickpost/engine';
const e = Engine.open({ home: process.argv[1] });
const f = await e.listFolder({ drive: process.argv[2], folder: 'x', limit: 3 });
e.close();
process.stdout.write(JSON.stringify([f.total, f.entries.length]));`;
  const run = (): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script, p.home, d], { cwd: ROOT }, (err, out, errOut) => {
        if (err) reject(new Error(`${err.message}\n${errOut}`));
        else resolve(out);
      });
    });
  assert.deepEqual(await Promise.all([run(), run()]), ['[2000,3]', '[2000,3]']);
  assert.deepEqual(readdirSync(cacheOf(p.home)).length, 1, 'one index, no temporary file left');
  const engine = Engine.open({ home: p.home });
  try {
    assert.equal((await look(engine, d, 'x')).indexBuilt, false);
  } finally {
    engine.close();
  }
});

test('every folder lists as Engine.list lists its entries: odd names, links, owners', async () => {
  const root = tempDir('bp-browse-same-');
  const [pub, sub, src, d] = ['pub', 'sub', 'src', 'drive'].map((n) => join(root, n)) as [string, string, string, string];
  mkdirSync(join(src, 'a', 'b'), { recursive: true });
  mkdirSync(d);
  writeFileSync(join(src, 'a', 'one.txt'), 'one\n');
  writeFileSync(Buffer.from(`${join(src, 'a', 'b')}/caf\xe9.txt`, 'latin1'), 'latin-1 name\n');
  writeFileSync(join(src, 'a', 'b', 'bell\u0007 \u202e.txt'), 'ding\n');
  linkSync(join(src, 'a', 'one.txt'), join(src, 'a', 'b', 'again.txt'));
  symlinkSync('../one.txt', join(src, 'a', 'b', 'to-one'));
  for (let i = 0; i < 40; i++) writeFileSync(join(src, `top${i}`), `${i}\n`);
  const recipient = publisherAndSubscriber(pub, sub);
  const r = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--dataset', 'same']);
  assert.equal(r.code, 0, r.stderr);

  const engine = Engine.open({ home: sub });
  try {
    const all: ListEntry[] = [];
    for await (const e of engine.list({ drive: d })) all.push(e);
    assert.ok(all.some((e) => e.type === 'hard') && all.some((e) => e.type === 'link') && all.some((e) => !e.path.isWellFormed()) && all.some((e) => e.owner));
    for (const folder of ['', ...all.filter((e) => e.type === 'dir').map((e) => e.path)]) {
      const prefix = folder === '' ? '' : `${folder}/`;
      const want = all.filter((e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/'));
      const got = await look(engine, d, folder, 1000);
      assert.deepEqual(got.entries, want, `folder ${JSON.stringify(folder)}`);
      assert.equal(got.total, want.length);
    }
    assert.equal((await look(engine, d, '')).indexBuilt, false, 'the entry count the index keeps matches the signed one');
    const odd = all.find((e) => !e.path.isWellFormed())!;
    const code = await look(engine, d, odd.path).then(
      () => undefined,
      (e: { code?: string }) => e.code,
    );
    assert.equal(code, 'USAGE', 'a file with a byte name is found by its name');
  } finally {
    engine.close();
  }
});
