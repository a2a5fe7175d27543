// The chunks a shipment's recipients hold (pack/held.ts), over a real catalog.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../src/catalog/catalog.js';
import { insertDataset } from '../src/catalog/published.js';
import { ShipmentTables } from '../src/catalog/shipment-tables.js';
import { heldInTrees } from '../src/pack/held.js';

const root = mkdtempSync(join(tmpdir(), 'bp-held-'));
const catalog = new Catalog(join(root, 'catalog.sqlite'));
afterAll(() => {
  catalog.close();
  rmSync(root, { recursive: true, force: true });
});

const id = (n: number): Buffer => Buffer.alloc(32, n);
/** A chunk list of chunks `ns` (0: a hole), 36 bytes an entry. */
const list = (ns: readonly number[]): Buffer => Buffer.concat(ns.map((n) => Buffer.concat([id(n), Buffer.from([0, 0, 1, 0])])));
const dataset = { id: 'd1', name: 'held', secret: Buffer.alloc(32) };
insertDataset(catalog, dataset, 'publisher', '2026-01-01T00:00:00Z');
// A's one file has two chunks and a hole; B's files have one chunk each. The trees' chunk ids are derived from the lists when they are sealed.
for (const [seq, shipment, files] of [
  [1, 'A', [[1, 0, 2]]],
  [2, 'B', [[2], [3], [0]]],
] as const) {
  ShipmentTables.create(
    catalog,
    { id: shipment, datasetId: 'd1', seq, parent: null, label: '', createdAt: '2026-01-01T00:00:00Z', bases: '[]', against: null, layout: '{}' },
    [],
  );
  const t = new ShipmentTables(catalog, 'd1', shipment);
  t.begin();
  files.forEach((chunks, i) => t.addTreeFile({ path: `f${i}`, size: 0, mode: 0o644, mtimeNs: '0', ctimeNs: '0', ino: '0', chunks: list(chunks), sigId: null }));
  t.sealing(files.length, 0, 0);
}

test('a sealed tree holds the distinct chunk ids of its lists, holes left out', () => {
  const ids = catalog.db.prepare<[string], Buffer>('SELECT chunk FROM tree_chunks WHERE shipment_id = ? ORDER BY chunk').pluck();
  assert.deepEqual(ids.all('A'), [id(1), id(2)]);
  assert.deepEqual(ids.all('B'), [id(2), id(3)]);
});

test('one base tree: its chunks are held, and the set names the tree (a row of it needs no lookups)', () => {
  const held = heldInTrees(catalog, ['A']);
  assert.equal(held.any, true);
  assert.equal(held.tree, 'A');
  assert.deepEqual(
    [1, 2, 3].map((n) => held.has(id(n))),
    [true, true, false],
  );
});

test('several base trees: only the chunks every one holds, and no tree named', () => {
  const held = heldInTrees(catalog, ['A', 'B']);
  assert.equal(held.tree, undefined);
  assert.deepEqual(
    [1, 2, 3].map((n) => held.has(id(n))),
    [false, true, false],
  );
});

test('no base: nothing held, no tree', () => {
  const held = heldInTrees(catalog, []);
  assert.equal(held.any, false);
  assert.equal(held.tree, undefined);
  assert.equal(held.has(id(1)), false);
});
