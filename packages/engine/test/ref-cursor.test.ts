// The stat cache's window over the reference tree (pack/ref-cursor.ts), over a real catalog: whatever the order of the
// lookups, each finds its row or none, and the row it names as the one before is the row before it in the tree.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../src/catalog/catalog.js';
import { insertDataset } from '../src/catalog/published.js';
import { ShipmentTables } from '../src/catalog/shipment-tables.js';
import { TreeQueries, treeStatKey } from '../src/catalog/trees.js';
import { ReferenceCursor } from '../src/pack/ref-cursor.js';

const root = mkdtempSync(join(tmpdir(), 'bp-ref-cursor-'));
const catalog = new Catalog(join(root, 'catalog.sqlite'));
afterAll(() => {
  catalog.close();
  rmSync(root, { recursive: true, force: true });
});

// Names that sort differently by bytes and by fold key, a prefix before `/` and after it, and more than a window holds.
const paths = Array.from({ length: 1500 }, (_, i) => {
  const letter = 'abcdefghij'[i % 10]!;
  return `${i % 3 ? letter : letter.toUpperCase()}${i % 7 === 0 ? '.x' : '/f'}${String(i).padStart(4, '0')}`;
});
/** The tree's order: SQLite compares text by its UTF-8 bytes. */
const sorted = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
const before = new Map(sorted.map((p, i) => [p, i > 0 ? sorted[i - 1]! : null]));

insertDataset(catalog, { id: 'd1', name: 'cursor', secret: Buffer.alloc(32) }, 'publisher', '2026-01-01T00:00:00Z');
ShipmentTables.create(
  catalog,
  { id: 'R', datasetId: 'd1', seq: 1, parent: null, label: '', createdAt: '2026-01-01T00:00:00Z', bases: '[]', against: null, layout: '{}' },
  [],
);
const tables = new ShipmentTables(catalog, 'd1', 'R');
for (const [i, path] of paths.entries())
  tables.addTreeFile({ path, size: i, mode: 0o644, mtimeNs: String(i), ctimeNs: String(i), ino: String(i), chunks: Buffer.alloc(36, i % 256), sigId: null });

/** A deterministic shuffle (a linear congruential generator). */
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Looks every path of `order` up with one cursor; checks each answer; returns how many named the row before. */
function lookUp(order: string[]): number {
  const cursor = new ReferenceCursor(new TreeQueries(catalog), 'R');
  let withPrev = 0;
  for (const path of order) {
    const found = cursor.find(path);
    if (!before.has(path)) {
      assert.equal(found, undefined, path);
      continue;
    }
    assert.ok(found, path);
    assert.equal(found.row.path, path);
    const i = paths.indexOf(path);
    // The key SQL builds from the row is the one treeStatKey builds from a walk's entry.
    assert.equal(found.row.stat, treeStatKey(i, 0o644, BigInt(i), BigInt(i), BigInt(i)));
    if (found.prev !== null) {
      assert.equal(found.prev, before.get(path), `the row before ${path}`);
      withPrev++;
    }
  }
  return withPrev;
}

test('in the tree order every row but the first comes with the row before it', () => {
  assert.equal(lookUp(sorted), sorted.length - 1);
});

test('in the order they were written, shuffled, reversed, with paths the tree lacks: each row, and only ever the true row before', () => {
  const absent = (p: string): string => `${p}~new`;
  lookUp(paths);
  lookUp(shuffled(paths, 7));
  lookUp([...sorted].reverse());
  lookUp(sorted.flatMap((p, i) => (i % 5 === 0 ? [absent(p), p] : [p])));
  // Rows skipped (files removed), a lookup out of order, then a new file before the next row: the window's first row still names the right one before it.
  lookUp(sorted.filter((_, i) => i % 40 !== 3).flatMap((p, i) => (i % 97 === 0 ? [sorted[(i * 13) % sorted.length]!, absent(p), p] : [p])));
});
