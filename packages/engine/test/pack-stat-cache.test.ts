/**
 * The stat cache of a second pack, at the engine level: which files it
 * takes from the reference tree and which it reads again, and the tree rows
 * it writes for them (a hit's rows are copied in SQL a run at a time). The
 * oracle is a `rehash` pack of the same source, which reads every file and
 * writes every row itself: both trees must be equal, row for row. The tests
 * build on one chain.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PackOptions, PackSummary } from '../src/api/index.js';
import { Engine } from '../src/engine.js';

/** A tree as the catalog holds it: its files' rows (every column but the shipment) and its chunk ids, sorted. */
interface Tree {
  files: Map<string, string>;
  chunks: string[];
}

describe('stat cache', () => {
  const root = mkdtempSync(join(tmpdir(), 'bp-stat-cache-'));
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  let pub: Engine;
  let recipient = '';
  const chain: PackSummary[] = [];

  const pack = async (extra: Partial<PackOptions> = {}): Promise<PackSummary> => {
    const s = await pub.pack({ source: src, drives: [drive], recipients: [recipient], dataset: 'cache', recovery: 0, ...extra }, () => undefined);
    chain.push(s);
    return s;
  };

  const tree = (s: PackSummary): Tree => {
    const db = new Database(join(root, 'pub', 'catalog.sqlite'), { readonly: true });
    try {
      const files = new Map<string, string>();
      const rows = db
        .prepare('SELECT path, size, mode, mtime_ns, ctime_ns, ino, hex(chunks) AS chunks, sig_id FROM tree_files WHERE shipment_id = ?')
        .all(s.shipmentId) as Array<{ path: string }>;
      for (const r of rows) files.set(r.path, JSON.stringify(r));
      const chunks = (db.prepare('SELECT hex(chunk) FROM tree_chunks WHERE shipment_id = ? ORDER BY chunk').pluck().all(s.shipmentId) as string[]).sort();
      // The tree's chunk ids are derived from its chunk lists when it is sealed: they must be the lists' distinct ids, holes left out.
      const listed = new Set<string>();
      for (const r of files.values()) {
        const list = (JSON.parse(r) as { chunks: string }).chunks;
        for (let at = 0; at < list.length; at += 72) if (!/^0{64}$/.test(list.slice(at, at + 64))) listed.add(list.slice(at, at + 64));
      }
      assert.deepEqual(chunks, [...listed].sort(), `the chunk ids of tree ${s.shipmentId}`);
      return { files, chunks };
    } finally {
      db.close();
    }
  };

  const chunkListOf = (t: Tree, path: string): string => (JSON.parse(t.files.get(path)!) as { chunks: string }).chunks;

  /** Writes `data` to `file` and sets its mtime to `at` (seconds). */
  const put = (file: string, data: string | Buffer, at = 1_700_000_000): void => {
    writeFileSync(file, data);
    utimesSync(file, at, at);
  };

  beforeAll(() => {
    // Names whose manifest order is not the catalog's path order: `B.txt` folds before `c.txt` but sorts before `a.txt`,
    // and `a.b`, `a-c` sort before the folder `a`'s files (`a/…`) in the catalog but come after them in the walk.
    mkdirSync(join(src, 'a'), { recursive: true });
    mkdirSync(join(src, 'deep', 'x', 'y'), { recursive: true });
    mkdirSync(drive);
    for (let i = 0; i < 40; i++) put(join(src, 'a', `f${String(i).padStart(2, '0')}.txt`), `file ${i}\n`.repeat(10 + i));
    for (const name of ['a.b', 'a-c', 'B.txt', 'a.txt', 'c.txt', 'empty']) put(join(src, name), name === 'empty' ? '' : `${name}\n`.repeat(50));
    put(join(src, 'deep', 'x', 'y', 'z.txt'), 'deep\n');
    // A folder whose names alternate in case, in letter order: the walk takes them a, B, c, D…, the catalog's order is
    // B, D…, a, c…, so the file after each is somewhere else in the window (the window misses and pauses, the cache still hits).
    mkdirSync(join(src, 'mixed'));
    for (let i = 0; i < 300; i++) {
      const letter = 'abcdefghijklmnopqrstuvwxyz'[i % 26]!;
      put(join(src, 'mixed', `${i % 2 ? letter.toUpperCase() : letter}${String(i).padStart(3, '0')}`), `mixed ${i}\n`);
    }
    // Files of several chunks, whose ids the tree gets through brickpost_chunk_ids (a file of one chunk gets its id in SQL).
    put(join(src, 'mid.bin'), randomBytes(6 << 20));
    put(join(src, 'big.bin'), randomBytes(40 << 20));
    // Holes where the file system keeps them: all-zero ids in the list, which are no chunks of the tree.
    const sparse = join(src, 'sparse.bin');
    writeFileSync(sparse, randomBytes(64 << 10));
    const fd = openSync(sparse, 'r+');
    writeSync(fd, randomBytes(64 << 10), 0, 64 << 10, 8 << 20);
    closeSync(fd);
    utimesSync(sparse, 1_700_000_000, 1_700_000_000);
    pub = Engine.open({ home: join(root, 'pub') });
    pub.keygen({ name: 'publisher' });
    const sub = Engine.open({ home: join(root, 'sub') });
    recipient = sub.keygen({ name: 'subscriber' }).recipient;
    sub.close();
  });

  afterAll(() => {
    pub.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('an unchanged tree: every file a hit, and the tree the same as the one read', async () => {
    const first = await pack();
    assert.equal(first.filesRead, first.files);
    const t1 = tree(first);
    const chunks = (path: string): number => chunkListOf(t1, path).length / 72;
    assert.ok(chunks('mid.bin') > 1, `mid.bin has ${chunks('mid.bin')} chunks`);
    assert.ok(chunks('big.bin') > 16, `big.bin has ${chunks('big.bin')} chunks`);
    assert.ok(t1.chunks.length > 40, `${t1.chunks.length} chunk ids`);
    const s = await pack();
    assert.equal(s.filesUnchanged, s.files);
    assert.equal(s.filesRead, 0);
    assert.deepEqual(tree(s), t1);
  });

  test('a file whose mtime, ctime, size, inode or mode changed is read again; renamed, removed and replaced files leave the tree', async () => {
    const before = tree(chain[chain.length - 1]!);
    const a = (n: number): string => join(src, 'a', `f${String(n).padStart(2, '0')}.txt`);
    // mtime only: same bytes, another time.
    utimesSync(a(3), 1_700_000_100, 1_700_000_100);
    // Same size, other bytes, the mtime set back: only the ctime tells.
    const five = readFileSync(a(5), 'utf8');
    put(a(5), five.replace('file 5', 'FILE 5'));
    assert.equal(statSync(a(5)).size, Buffer.byteLength(five));
    // A copy put in its place: the same bytes and times, another inode.
    copyFileSync(a(7), join(root, 'seven'));
    utimesSync(join(root, 'seven'), 1_700_000_000, 1_700_000_000);
    renameSync(join(root, 'seven'), a(7));
    // Longer, with the same mtime.
    put(a(8), readFileSync(a(8), 'utf8') + 'one more line\n');
    chmodSync(a(9), 0o600);
    renameSync(a(11), join(src, 'a', 'g11.txt'));
    unlinkSync(a(13));
    unlinkSync(a(15));
    symlinkSync('f16.txt', a(15));
    put(join(src, 'a', 'f14x.txt'), 'new\n');
    unlinkSync(join(src, 'a.b'));

    const s = await pack();
    const read = ['a/f03.txt', 'a/f05.txt', 'a/f07.txt', 'a/f08.txt', 'a/f09.txt', 'a/g11.txt', 'a/f14x.txt'];
    assert.equal(s.filesRead, read.length);
    assert.equal(s.filesUnchanged + s.filesRead, s.files);
    const t = tree(s);
    for (const gone of ['a/f11.txt', 'a/f13.txt', 'a/f15.txt', 'a.b']) assert.equal(t.files.has(gone), false, gone);
    assert.notEqual(chunkListOf(t, 'a/f05.txt'), chunkListOf(before, 'a/f05.txt'));
    assert.equal(chunkListOf(t, 'a/g11.txt'), chunkListOf(before, 'a/f11.txt'));
    // The chunks of the removed files are the tree's no more (each had its own bytes).
    for (const gone of ['a/f13.txt', 'a/f15.txt', 'a.b']) assert.equal(t.chunks.includes(chunkListOf(before, gone).slice(0, 64)), false, gone);

    // Read again from the source, the tree is the same, row for row.
    const r = await pack({ rehash: true });
    assert.equal(r.filesRead, r.files);
    assert.deepEqual(tree(r), t);
  });

  test('after a rehash, the next pack takes every file from the tree again', async () => {
    const last = tree(chain[chain.length - 1]!);
    const s = await pack();
    assert.equal(s.filesRead, 0);
    assert.equal(s.filesUnchanged, s.files);
    assert.deepEqual(tree(s), last);
  });
});
