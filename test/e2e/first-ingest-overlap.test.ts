/**
 * A first ingest into an empty folder stages behind its plan (steps.ts,
 * planAndStage; PlanGate): the walk writes files while the plan still
 * reads the manifest. Checked on a tree of more records than the plan may
 * run ahead of the walk (AHEAD), so the two really interleave: the tree
 * arrives exact, every file through the plan's install op; a staging
 * write that fails part way stops the plan too (its journal rows rolled
 * back), leaves DEST as it was, and the next run applies; and a second
 * shipment into a destination that holds the first plans first, as before.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, diffSnapshots, errorEvent, lastEvent, publisherAndSubscriber, snapshot, tempDir, type Node } from '../support.js';

/** Folders and files per folder: 12,000 files, more records than the plan may run ahead of the walk (plan-gate.ts, AHEAD: 4,096). */
const FOLDERS = 60;
const PER_FOLDER = 200;

/** The ops the journal of DEST keeps, by kind. */
function opKinds(dest: string): Record<string, number> {
  const db = new Database(join(dest, '.brickpost', 'journal.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, COUNT(*) AS n FROM ops GROUP BY kind').all() as Array<{ kind: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  } finally {
    db.close();
  }
}

describe('first ingest, staged behind the plan', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const drive = join(root, 'drive');
  let want: Map<string, Node>;

  beforeAll(() => {
    for (let d = 0; d < FOLDERS; d++) {
      const dir = join(src, `d${String(d).padStart(2, '0')}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < PER_FOLDER; f++) writeFileSync(join(dir, `f${f}.txt`), `folder ${d} file ${f}\n`.repeat(1 + (f % 7)));
    }
    // Files at the top are staged flat, the others in the staging tree.
    writeFileSync(join(src, 'top.txt'), 'top\n');
    writeFileSync(join(src, 'empty.txt'), '');
    want = snapshot(src);
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'overlap', '--json']);
    assert.equal(p.code, 0, p.stderr);
  }, 300_000);

  test('the tree arrives exact, each file installed by the op the plan wrote for it', () => {
    const dest = join(root, 'dest-exact');
    const r = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = lastEvent(r).result;
    assert.equal(s.files, FOLDERS * PER_FOLDER + 2);
    assert.equal(s.filesWritten, FOLDERS * PER_FOLDER + 2);
    assert.deepEqual(diffSnapshots(want, snapshot(dest)), []);
    const kinds = opKinds(dest);
    assert.equal(kinds.install, FOLDERS * PER_FOLDER + 2);
    assert.equal(kinds.mkdir, FOLDERS);
    assert.equal(kinds.retire, undefined);
  });

  test('a staging write that fails part way stops the plan: DEST as it was, no ops kept, and the next run applies', () => {
    const dest = join(root, 'dest-fail');
    const r = brickpost(sub, ['ingest', drive, dest, '--json'], { env: { ...process.env, BRICKPOST_FAILPOINT: 'stage-write@40' } });
    assert.equal(r.code, 5, r.stderr);
    assert.equal(errorEvent(r).code, 'NO_SPACE');
    assert.deepEqual(readdirSync(dest), ['.brickpost'], 'DEST holds nothing of the shipment');
    const staging = join(dest, '.brickpost', 'staging');
    assert.equal(existsSync(staging) && readdirSync(staging).length > 0, false, 'no staged files are left');
    // The plan was stopped well before its end (its rows are committed every 20,000 records and at its end): none are kept.
    assert.deepEqual(opKinds(dest), {});
    const again = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(diffSnapshots(want, snapshot(dest)), []);
  });

  test('a second shipment into that destination plans first: the changed file is retired, the others kept', () => {
    const dest = join(root, 'dest-exact');
    writeFileSync(join(src, 'd00', 'f0.txt'), 'changed\n');
    const drive2 = join(root, 'drive2');
    mkdirSync(drive2);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    const p = brickpost(pub, ['pack', src, '--to', drive2, '--recipient', recipient, '--dataset', 'overlap', '--json']);
    assert.equal(p.code, 0, p.stderr);
    const r = brickpost(sub, ['ingest', drive2, dest, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = lastEvent(r).result;
    assert.equal(s.filesWritten, 1);
    assert.equal(s.filesUnchanged, FOLDERS * PER_FOLDER + 1);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });
});
