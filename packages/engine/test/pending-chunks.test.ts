// The chunk rows a pack holds before writing them sorted (catalog/pending-chunks.ts), alone and under ShipmentTables over
// a real catalog: every chunk added is found where it was stored, before and after its batch is written, whether the batch
// went out because it was full, because a pack closed, or at sealing; and a batch goes out in id order.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../src/catalog/catalog.js';
import { PENDING_MAX, PendingChunks } from '../src/catalog/pending-chunks.js';
import { insertDataset } from '../src/catalog/published.js';
import { ShipmentTables, type StoredChunk } from '../src/catalog/shipment-tables.js';

const root = mkdtempSync(join(tmpdir(), 'bp-pending-chunks-'));
const catalog = new Catalog(join(root, 'catalog.sqlite'));
afterAll(() => {
  catalog.close();
  rmSync(root, { recursive: true, force: true });
});

/** Chunk id number `i`: random-looking, as keyed ids are. */
const idOf = (i: number): Buffer => createHash('sha256').update(`chunk ${i}`).digest();
/** Where chunk `i` is stored: distinct fields, an offset past 2^32. */
const placeOf = (i: number): StoredChunk => ({ pack: i % 7, offset: 2 ** 33 + i * 1000, frameLen: 100 + (i % 50), len: 4096 + i });

test('held rows are found by id, an id not added is not, and a drain hands them out once, sorted by id, then holds none', () => {
  const p = new PendingChunks();
  const n = 5000;
  for (let i = 0; i < n; i++) p.add(idOf(i), placeOf(i));
  assert.equal(p.size, n);
  for (let i = 0; i < n; i++) assert.deepEqual(p.find(idOf(i)), placeOf(i), `chunk ${i}`);
  for (let i = n; i < n + 100; i++) assert.equal(p.find(idOf(i)), undefined);
  const out: Array<{ id: string; place: StoredChunk }> = [];
  p.drain((id, pack, offset, frameLen, len) => out.push({ id: id.toString('hex'), place: { pack, offset, frameLen, len } }));
  assert.equal(out.length, n);
  const ids = out.map((o) => o.id);
  assert.deepEqual(ids, [...ids].sort());
  const byId = new Map(Array.from({ length: n }, (_, i) => [idOf(i).toString('hex'), placeOf(i)]));
  for (const o of out) assert.deepEqual(o.place, byId.get(o.id));
  assert.equal(p.size, 0);
  assert.equal(p.find(idOf(0)), undefined);
  // Empty, it takes rows again.
  p.add(idOf(1), placeOf(1));
  assert.deepEqual(p.find(idOf(1)), placeOf(1));
});

test('a full batch refuses a row rather than dropping one', () => {
  const p = new PendingChunks();
  for (let i = 0; i < PENDING_MAX; i++) p.add(idOf(i), placeOf(i));
  assert.ok(p.full);
  assert.throws(() => p.add(idOf(PENDING_MAX), placeOf(PENDING_MAX)), /full/);
  assert.deepEqual(p.find(idOf(PENDING_MAX - 1)), placeOf(PENDING_MAX - 1));
});

test('a shipment finds every chunk it stored across full batches, a closed pack and sealing, and the catalog holds each once', () => {
  insertDataset(catalog, { id: 'd1', name: 'pending', secret: Buffer.alloc(32) }, 'publisher', '2026-01-01T00:00:00Z');
  ShipmentTables.create(
    catalog,
    { id: 'S', datasetId: 'd1', seq: 1, parent: null, label: '', createdAt: '2026-01-01T00:00:00Z', bases: '[]', against: null, layout: '{}' },
    [],
  );
  const tables = new ShipmentTables(catalog, 'd1', 'S');
  tables.begin();
  const inTable = (): number => catalog.db.prepare<[], number>("SELECT count(*) FROM chunks WHERE shipment_id = 'S'").pluck().get()!;
  // More than two batches: the third add past each multiple of PENDING_MAX writes the batch before it.
  const n = 2 * PENDING_MAX + 1000;
  for (let i = 0; i < n; i++) tables.addChunk(idOf(i), placeOf(i));
  assert.equal(inTable(), 2 * PENDING_MAX);
  for (let i = 0; i < n; i += 97) assert.deepEqual(tables.findChunk(idOf(i)), placeOf(i), `chunk ${i}`);
  // A closed pack writes what is held, and commits with it.
  tables.addPack({ index: 0, size: 1, sha256: '0'.repeat(64), chunks: n, share: 0, plain: 1 });
  assert.equal(inTable(), n);
  tables.commit(true);
  for (let i = n; i < n + 10; i++) tables.addChunk(idOf(i), placeOf(i));
  assert.equal(inTable(), n);
  tables.sealing(0, 0, 0);
  assert.equal(inTable(), n + 10);
  for (let i = 0; i < n + 10; i += 101) assert.deepEqual(tables.findChunk(idOf(i)), placeOf(i), `chunk ${i}`);
  assert.equal(tables.findChunk(idOf(n + 10)), undefined);
});
