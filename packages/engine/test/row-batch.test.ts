/**
 * The planner's rows of the journal (ops and the planned tree) are
 * inserted a batch at a time: every statement of the journal, and its
 * connection handed out, sees each row added before it; a commit keeps
 * them, a rollback drops those not committed, and a close without a
 * commit leaves none.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DestDb, type OpInsert } from '../src/ingest/dest-db.js';
import { BATCH_ROWS } from '../src/ingest/row-batch.js';

const root = mkdtempSync(join(tmpdir(), 'bp-row-batch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function journal(name: string): DestDb {
  const dir = join(root, name);
  mkdirSync(dir);
  return new DestDb(dir);
}

const op = (n: number, kind: OpInsert['kind'] = 'install'): OpInsert => ({
  shipment: 'S',
  n,
  kind,
  path: `d/f${n}`,
  mode: 0o644,
  mtime: String(n),
  oldMode: null,
  oldMtime: null,
  target: n % 2 ? 'tree' : null,
  attrs: null,
  oldAttrs: null,
});

test('each read sees every row added before it, whole batches and the rest', () => {
  const db = journal('reads');
  db.begin();
  // Two whole batches and 5 rows more; a lookup after each of the last rows.
  const total = 2 * BATCH_ROWS + 5;
  for (let n = 0; n < total; n++) {
    db.addOp(op(n));
    db.scratch.addNew(`d/f${n}`, 'file', 'stage', n, Buffer.from([n]), 'd', null);
    if (n >= 2 * BATCH_ROWS) assert.deepEqual(db.scratch.newFile(`d/f${n}`), { action: 'stage', n, digest: Buffer.from([n]) });
  }
  db.addOp(op(total, 'mkdir'));
  const installs = db.installsAfter('S', -1);
  assert.deepEqual(
    installs.map((r) => [r.n, r.path, r.target]),
    Array.from({ length: total }, (_, n) => [n, `d/f${n}`, n % 2 ? 'tree' : null]),
  );
  // Through the connection itself, as other modules read the journal.
  db.scratch.addNew('d/last', 'file', 'keep', null, null, 'd', null);
  assert.equal(db.db.prepare('SELECT COUNT(*) FROM new').pluck().get(), total + 1);
  assert.deepEqual(
    [...db.ops('S', 'undo')].reverse().map((r) => [r.n, r.kind, r.mtime]),
    Array.from({ length: total + 1 }, (_, n) => [n, n === total ? 'mkdir' : 'install', String(n)]),
  );
  db.commit();
  db.close();
});

test('a rollback drops the rows not committed, a commit keeps them; a close without a commit leaves none', () => {
  const db = journal('tx');
  db.begin();
  for (let n = 0; n < BATCH_ROWS + 3; n++) db.addOp(op(n));
  db.commit(true);
  for (let n = BATCH_ROWS + 3; n < 2 * BATCH_ROWS + 10; n++) db.addOp(op(n));
  db.rollback();
  assert.equal(db.db.prepare('SELECT COUNT(*) FROM ops').pluck().get(), BATCH_ROWS + 3);
  db.begin();
  for (let n = 100; n < 103; n++) db.addOp(op(n));
  db.close();
  const again = new DestDb(join(root, 'tx'));
  assert.deepEqual(
    again.db.prepare('SELECT n FROM ops ORDER BY n').pluck().all(),
    Array.from({ length: BATCH_ROWS + 3 }, (_, n) => n),
  );
  again.close();
});
