/**
 * The planner looks DEST's files up through a cursor over the journal's
 * `old` table read in key order: whatever the order of the lookups, each
 * answers exactly as a point query does, and lookups in the table's order
 * read each page once.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dbPath, DestDb } from '../src/ingest/dest-db.js';
import { sweep } from '../src/ingest/dest-view.js';
import { loadOldTree, type OldFile } from '../src/ingest/old-tree.js';
import { comparePaths, CURSOR_PAGE, PathCursor } from '../src/ingest/path-cursor.js';

const root = mkdtempSync(join(tmpdir(), 'bp-path-cursor-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A deterministic generator (xorshift32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

// Names whose orders differ: '-' and '.' before '/', case, U+E000–U+FFFF against characters beyond U+FFFF.
const PARTS = ['a', 'a-b', 'a.b', 'B', 'b', 'z', '\ue000', '\uffef', '😀', '𝔸x', 'é', 'e\u0301'];

function treePaths(r: () => number, n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    const depth = 1 + Math.floor(r() * 3);
    out.add(Array.from({ length: depth }, () => PARTS[Math.floor(r() * PARTS.length)]! + (r() < 0.5 ? '' : String(Math.floor(r() * 50)))).join('/'));
  }
  return [...out];
}

const oldFile = (path: string, i: number): OldFile => ({
  path,
  size: i,
  mode: 0o644,
  mtime: String(1_700_000_000_000_000_000n + BigInt(i)),
  digest: Buffer.from([i & 255, i >> 8]),
  chunks: [],
  ok: i % 3 !== 0,
});

async function* each<T>(xs: T[]): AsyncGenerator<T> {
  yield* xs;
}

test('comparePaths is the order of UTF-8 bytes', () => {
  const r = rng(7);
  const words = treePaths(r, 400);
  for (let k = 0; k < 4000; k++) {
    const a = words[Math.floor(r() * words.length)]!;
    const b = words[Math.floor(r() * words.length)]!;
    assert.equal(Math.sign(comparePaths(a, b)), Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))), `${a} against ${b}`);
  }
  // The case JavaScript's own order gets wrong.
  assert.ok(comparePaths('😀', '\uffef') > 0);
  assert.ok('😀' < '\uffef');
});

test('lookups in any order answer as point queries do, and in order read each page once', async () => {
  const dir = join(root, 'j');
  mkdirSync(dir);
  const db = new DestDb(dir);
  try {
    const r = rng(11);
    const paths = treePaths(r, 3 * CURSOR_PAGE + 77);
    await loadOldTree(db, each(paths.map(oldFile)));
    const absent = treePaths(rng(99), 600)
      .filter((p) => !paths.includes(p))
      .map(dbPath);
    const sorted = paths.map(dbPath).sort(comparePaths);
    // Some files gone (rows the cursor passes over), some new (absent from the table), some asked out of order.
    const asks: string[] = [];
    for (const p of sorted) {
      if (r() < 0.1) continue;
      if (r() < 0.1) asks.push(absent[Math.floor(r() * absent.length)]!);
      asks.push(p);
    }
    for (let k = 0; k < 200; k++) {
      const i = Math.floor(r() * asks.length);
      const j = Math.floor(r() * asks.length);
      [asks[i], asks[j]] = [asks[j]!, asks[i]!];
    }
    for (const order of [sorted, asks, [...asks].reverse()]) {
      const cursor = db.scratch.oldCursor();
      for (const path of order) {
        const p = dbPath(path);
        const want = db.scratch.oldEntry(p);
        const got = cursor.lookup(p);
        assert.deepEqual(got, want, p);
      }
    }

    // In the table's order: each page read once, and no point query.
    let pages = 0;
    let gets = 0;
    const cursor = new PathCursor(
      (after) => {
        pages++;
        return sorted
          .filter((p) => after === null || comparePaths(p, after) > 0)
          .slice(0, CURSOR_PAGE)
          .map((path) => ({ path }));
      },
      (path) => (gets++, sorted.includes(path) ? { path } : undefined),
      (row) => row.path,
    );
    for (const p of sorted) assert.equal(cursor.lookup(p)?.path, p);
    assert.equal(pages, Math.ceil(sorted.length / CURSOR_PAGE));
    assert.equal(gets, 0);
  } finally {
    db.close();
  }
});

test('the planned tree read through a cursor holds the rows added just before, not yet inserted', () => {
  const dir = join(root, 'n');
  mkdirSync(dir);
  const db = new DestDb(dir);
  try {
    db.begin();
    const planned = db.scratch.newCursor();
    // Fewer rows than a batch: they wait in the planner's batch until a read flushes them.
    const paths = ['a', 'a-b', 'a/x', 'b'];
    for (const p of paths) db.scratch.addNew(p, p === 'a' ? 'dir' : 'file', 'keep', null, null, '', null);
    for (const p of paths) assert.deepEqual(planned.lookup(p), { type: p === 'a' ? 'dir' : 'file', action: 'keep' }, p);
    assert.equal(planned.lookup('c'), undefined);
    // A row added after the cursor read its last page is still found (exactly, behind the cursor's end).
    db.scratch.addNew('a/y', 'file', 'stage', 1, null, 'a', null);
    assert.deepEqual(planned.lookup('a/y'), { type: 'file', action: 'stage' });
    db.commit();
  } finally {
    db.close();
  }
});

test('the sweep retires exactly what DEST holds beyond the planned tree, reading it in the tree order', () => {
  const dest = join(root, 'sweep-dest');
  const state = join(dest, '.brickpost');
  mkdirSync(state, { recursive: true });
  const r = rng(5);
  // Folders and files whose names sort around `/`: `a`, `a-b`, `a.b`, `a b`, `a0`, and names beyond U+FFFF.
  const names = ['a', 'a-b', 'a.b', 'a b', 'a0', 'B', '\uffef', '😀'];
  const all: Array<{ p: string; dir: boolean }> = [];
  const make = (rel: string, depth: number): void => {
    for (const n of names) {
      if (r() < 0.3) continue;
      const p = rel ? `${rel}/${n}` : n;
      const dir = depth < 3 && r() < 0.5;
      if (dir) mkdirSync(join(dest, p));
      else writeFileSync(join(dest, p), p);
      all.push({ p, dir });
      if (dir) make(p, depth + 1);
    }
  };
  make('', 0);
  const db = new DestDb(state);
  try {
    db.begin();
    // The planned tree keeps some entries (a folder kept is looked into), replaces some folders by files, and plans more.
    const planned = new Map<string, 'dir' | 'file'>();
    for (const e of all) {
      const parent = e.p.includes('/') ? e.p.slice(0, e.p.lastIndexOf('/')) : '';
      if (parent !== '' && planned.get(parent) !== 'dir') continue;
      if (r() < 0.2) continue;
      planned.set(e.p, e.dir && r() < 0.9 ? 'dir' : 'file');
    }
    planned.set('new-only', 'file');
    for (const [p, type] of planned) db.scratch.addNew(dbPath(p), type, 'keep', null, null, '', null);
    const retired: string[] = [];
    sweep(dest, db, (p) => retired.push(p));
    // What a walk of DEST retires: each entry the plan lacks whose folders the plan keeps as folders (nothing below it).
    const ancestors = (p: string): string[] =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    const want = all.filter((e) => !planned.has(e.p) && ancestors(e.p).every((a) => planned.get(a) === 'dir')).map((e) => e.p);
    assert.deepEqual([...retired].sort(), want.sort());
    assert.ok(retired.length > 5, `the tree retires some entries (${retired.length})`);
    db.commit();
  } finally {
    db.close();
  }
});
