/**
 * The folders the planner keeps for the commit's last phase: every folder
 * of the manifest, in manifest order, with its mode, mtime and attributes,
 * read back a page at a time; names that are not UTF-8 survive.
 */
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_FORMAT, type DirRecord, type ManifestRecord } from '@brickpost/manifest';
import { DestDb } from '../src/ingest/dest-db.js';
import { planApply } from '../src/ingest/apply-plan.js';
import { PlannedDirs } from '../src/ingest/planned-dirs.js';
import { DEFAULT_POLICY } from '../src/ingest/policy.js';

const root = mkdtempSync(join(tmpdir(), 'bp-planned-dirs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SENSITIVE = { caseInsensitive: false, normalizationInsensitive: false, windowsNames: false };

async function* manifest(dirs: DirRecord[]): AsyncGenerator<ManifestRecord> {
  yield {
    t: 'shipment',
    format: MANIFEST_FORMAT,
    shipment: 'S',
    dataset: 'd',
    datasetId: 'D',
    seq: 1,
    parent: null,
    bases: [],
    against: null,
    label: '',
    created: '',
    publisher: 'P',
    secret: '',
    chunker: 'fastcdc-v1',
  };
  for (const d of dirs) {
    yield d;
    yield { t: 'file', p: `${d.p}/f`, size: 0, mode: 0o644, mtime: '1', c: [] };
  }
}

async function all(it: AsyncIterable<DirRecord>): Promise<DirRecord[]> {
  const out: DirRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

function destDb(): { dest: string; db: DestDb } {
  const dest = mkdtempSync(join(root, 'dest-'));
  mkdirSync(join(dest, '.brickpost'));
  return { dest, db: new DestDb(join(dest, '.brickpost')) };
}

test('the plan keeps every folder in manifest order, past a page, with modes, mtimes, attributes and non-UTF-8 names', async () => {
  const dirs: DirRecord[] = [
    { t: 'dir', p: 'a', mode: 0o755, mtime: '1700000000123456789' },
    { t: 'dir', p: 'a/l\udce9t', mode: 0o700, mtime: '5' },
    { t: 'dir', p: 'a/l\udce9t/deep', mode: 0o555, mtime: '6', x: [['user.k', 'dg==']] },
    { t: 'dir', p: 'b', mode: 0o2775, mtime: '0', o: [1000, 1000, 'u', null] },
  ];
  // More than a page (512) of folders, named so that manifest order is not path order.
  for (let i = 1200; i > 0; i--) dirs.push({ t: 'dir', p: `c${String(i).padStart(4, '0')}`, mode: 0o750, mtime: String(i) });
  dirs.splice(4, 1200, ...dirs.slice(4).sort((x, y) => (x.p < y.p ? -1 : 1)));
  const { dest, db } = destDb();
  try {
    const kept = new PlannedDirs(db);
    await planApply(db, dest, 'S', manifest(dirs), { caps: SENSITIVE, policy: DEFAULT_POLICY, dirs: kept });
    assert.deepEqual(await all(kept.records()), dirs);
    // Read twice, the same folders: reading does not consume them.
    assert.equal((await all(kept.records())).length, dirs.length);
  } finally {
    db.close();
  }
});

test('a new plan on the same connection starts with no folders kept', async () => {
  const { dest, db } = destDb();
  try {
    const first = new PlannedDirs(db);
    await planApply(db, dest, 'S', manifest([{ t: 'dir', p: 'old', mode: 0o755, mtime: '1' }]), { caps: SENSITIVE, policy: DEFAULT_POLICY, dirs: first });
    const second = new PlannedDirs(db);
    assert.deepEqual(await all(second.records()), []);
    await planApply(db, dest, 'S', manifest([{ t: 'dir', p: 'new', mode: 0o700, mtime: '2' }]), { caps: SENSITIVE, policy: DEFAULT_POLICY, dirs: second });
    assert.deepEqual(await all(second.records()), [{ t: 'dir', p: 'new', mode: 0o700, mtime: '2' }]);
    second.clear();
    assert.deepEqual(await all(second.records()), []);
  } finally {
    db.close();
  }
});
