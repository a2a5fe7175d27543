/**
 * Crash safety of applying an incremental shipment and of rollback: the
 * process dies (SIGKILL, through a failpoint) at several points of staging
 * and of the journaled commit. Killed while staging, DEST is still exactly
 * the old tree; killed anywhere in the commit, running ingest again gives
 * exactly the new tree. A rollback killed part-way finishes when run again.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, CLI, diffSnapshots, lastEvent, makeDataset, sh, snapshot, tempDir, type Node } from '../support.js';
import { MAKE_DATASET } from '../support.js';

/** Runs brickpost with a failpoint armed; returns the signal it died of, or null when it exited. */
function killedAt(home: string, point: string, args: string[]): { signal: NodeJS.Signals | null; code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, '--home', home, '--quiet', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, BRICKPOST_FAILPOINT: point },
  });
  return { signal: r.signal, code: r.status, stderr: r.stderr };
}

describe('apply and rollback killed at failpoints', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const d1 = join(root, 'd1');
  const d2 = join(root, 'd2');
  const base = join(root, 'dest-v1');
  let v1: Map<string, Node>;
  let v2: Map<string, Node>;

  beforeAll(() => {
    makeDataset(src, '16M', 21);
    mkdirSync(d1);
    mkdirSync(d2);
    assert.equal(brickpost(pub, ['keygen', '--name', 'pub']).code, 0);
    assert.equal(brickpost(sub, ['keygen', '--name', 'sub']).code, 0);
    assert.equal(brickpost(sub, ['trust', 'add', join(pub, 'minisign.pub'), '--name', 'pub']).code, 0);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    assert.equal(brickpost(pub, ['pack', src, '--to', d1, '--recipient', recipient, '--dataset', 'k']).code, 0);
    assert.equal(brickpost(sub, ['ingest', d1, base]).code, 0);
    v1 = snapshot(src);
    // The second version: make_dataset's mutation (edits, inserts, appends, deletes, moves, a renamed folder) and more.
    sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '2', '-q']);
    mkdirSync(join(src, 'fresh', 'deep'), { recursive: true });
    writeFileSync(join(src, 'fresh', 'deep', 'new.txt'), 'new in v2\n');
    appendFileSync(join(src, 'fresh', 'deep', 'new.txt'), 'more\n');
    const some = [...v1.entries()].filter(([, n]) => n.type === 'file' && n.size > 0).map(([p]) => p);
    chmodSync(join(src, some[0]!), 0o600);
    renameSync(join(src, some[1]!), join(src, 'fresh', 'moved-here.bin'));
    v2 = snapshot(src);
    const p = brickpost(pub, ['pack', src, '--to', d2, '--recipient', recipient, '--dataset', 'k', '--json']);
    assert.equal(p.code, 0, p.stderr);
  });

  const copyBase = (name: string): string => {
    const dest = join(root, name);
    rmSync(dest, { recursive: true, force: true });
    sh('cp', ['-a', base, dest]);
    return dest;
  };

  for (const point of ['stage@1', 'stage@3']) {
    test(`killed while staging (${point}): DEST is still the old tree, and ingest again applies`, () => {
      const dest = copyBase(`dest-${point}`);
      const k = killedAt(sub, point, ['ingest', d2, dest]);
      assert.equal(k.signal, 'SIGKILL', `expected to die at ${point}: ${k.stderr}`);
      assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
      const again = brickpost(sub, ['ingest', d2, dest]);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(diffSnapshots(v2, snapshot(dest)), []);
    });
  }

  for (const point of ['apply-retire@1', 'apply-retire@4', 'apply-install@1', 'apply-install@5', 'apply-dirs', 'apply-state']) {
    test(`killed in the commit (${point}): ingest again finishes the new tree`, () => {
      const dest = copyBase(`dest-${point}`);
      const k = killedAt(sub, point, ['ingest', d2, dest]);
      assert.equal(k.signal, 'SIGKILL', `expected to die at ${point}: ${k.stderr}`);
      const again = brickpost(sub, ['ingest', d2, dest, '--json']);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /RESUMED/, 'the interrupted commit is reported');
      assert.deepEqual(diffSnapshots(v2, snapshot(dest)), []);
      const h = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
      assert.deepEqual(
        h.shipments.map((s: { seq: number }) => s.seq),
        [1, 2],
      );
    });
  }

  for (const point of ['rollback-unstage@2', 'rollback-restore@1', 'rollback-restore@3']) {
    test(`rollback killed (${point}): rollback again gives the old tree`, () => {
      const dest = copyBase(`dest-rb-${point}`);
      assert.equal(brickpost(sub, ['ingest', d2, dest]).code, 0);
      assert.deepEqual(diffSnapshots(v2, snapshot(dest)), []);
      const k = killedAt(sub, point, ['rollback', dest, '--to', '1']);
      assert.equal(k.signal, 'SIGKILL', `expected to die at ${point}: ${k.stderr}`);
      const again = brickpost(sub, ['rollback', dest, '--to', '1', '--json']);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.deepEqual(diffSnapshots(v1, snapshot(dest)), []);
      const h = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
      assert.deepEqual(
        h.shipments.map((s: { seq: number }) => s.seq),
        [1],
      );
      // And the shipment applies again after the rollback.
      const re = brickpost(sub, ['ingest', d2, dest, '--json']);
      assert.equal(re.code, 0, re.stderr);
      assert.equal(lastEvent(re).result.alreadyApplied, false);
      assert.deepEqual(diffSnapshots(v2, snapshot(dest)), []);
    });
  }
});
