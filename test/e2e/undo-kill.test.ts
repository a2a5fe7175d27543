/**
 * The chunk undo store at its crash points, each hit by a failpoint
 * (SIGKILL): a commit killed while it turns replaced files into chunks
 * leaves them whole in the undo area (as an earlier brickpost wrote them),
 * and rollback uses them as they are; the next commit turns them into
 * chunks; a rollback killed while it rebuilds a file from chunks is
 * finished by resume; a chunk written but never recorded is swept.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, CLI, diffSnapshots, publisherAndSubscriber, sh, snapshot, tempDir, type Run } from '../support.js';

function bytes(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let o = 0, i = 0; o < n; o += 32, i++) createHash('sha256').update(`${seed}/${i}`).digest().copy(out, o);
  return out;
}

describe('the chunk undo store, killed at its crash points', () => {
  const root = tempDir('bp-undo-kill-');
  const src = join(root, 'src');
  const dest = join(root, 'dest');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const drives: Record<number, string> = {};
  const state = (seq: number): string => join(root, 'states', String(seq));
  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r;
  };
  /** Runs brickpost with a failpoint armed; asserts it was killed there. */
  const killedAt = (failpoint: string, args: string[]): void => {
    const r = spawnSync(process.execPath, [CLI, '--home', sub, '--quiet', ...args], { env: { ...process.env, BRICKPOST_FAILPOINT: failpoint } });
    assert.equal(r.signal, 'SIGKILL', `killed at ${failpoint}: ${String(r.stderr)}`);
  };
  const undoFiles = (): string[] =>
    readdirSync(join(dest, '.brickpost', 'undo'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  const storeFiles = (): string[] =>
    readdirSync(join(dest, '.brickpost', 'undo-chunks'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  const recorded = (): string[] => {
    const db = new Database(join(dest, '.brickpost', 'journal.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT hex(hash) FROM undo_chunks').pluck().all() as string[]).map((h) => h.toLowerCase()).sort();
    } finally {
      db.close();
    }
  };
  const isAt = (seq: number): void => assert.deepEqual(diffSnapshots(snapshot(state(seq)), snapshot(dest)), [], `DEST is the tree of shipment ${seq}`);

  beforeAll(() => {
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(join(src, 'd'), { recursive: true });
    mkdirSync(join(root, 'states'));
    for (let seq = 1; seq <= 3; seq++) {
      writeFileSync(join(src, 'big.bin'), Buffer.concat([bytes('big', 3 << 20), bytes(`tail${seq}`, 4096)]));
      writeFileSync(join(src, 'd', 'a.txt'), `version ${seq}\n`.repeat(5000));
      writeFileSync(join(src, `only${seq}.txt`), `only ${seq}\n`);
      drives[seq] = join(root, `drive${seq}`);
      mkdirSync(drives[seq]!);
      ok(brickpost(pub, ['pack', src, '--to', drives[seq]!, '--recipient', recipient, '--dataset', 'k']));
      sh('cp', ['-a', src, state(seq)]);
    }
    ok(brickpost(sub, ['ingest', drives[1]!, dest, '--keep-undo', 'all']));
    ok(brickpost(sub, ['ingest', drives[2]!, dest]));
  });

  test('a commit killed while it stores chunks leaves whole files, and rollback uses them', () => {
    assert.deepEqual(undoFiles(), [], 'shipment 2 kept its replaced files by chunks');
    killedAt('undo-chunk@1', ['ingest', drives[3]!, dest]);
    const h = JSON.parse(ok(brickpost(sub, ['history', dest, '--json'])).stdout);
    assert.deepEqual(
      h.shipments.map((s: { seq: number }) => s.seq),
      [1, 2, 3],
      'the commit itself was recorded',
    );
    isAt(3);
    assert.ok(undoFiles().length > 0, 'the replaced files are still whole in the undo area');
    assert.ok(h.shipments[2].undoBytes > 0, 'history counts whole files too');
    ok(brickpost(sub, ['rollback', dest, '--to', '2']));
    isAt(2);
  });

  test('a chunk written but never recorded is swept; the next commit turns whole files into chunks', () => {
    ok(brickpost(sub, ['ingest', drives[3]!, dest]));
    isAt(3);
    assert.deepEqual(undoFiles(), []);
    assert.deepEqual(storeFiles(), recorded(), 'every chunk in the store is recorded, and every recorded one is there');
  });

  test('a rollback killed while it rebuilds a file from chunks is finished by resume', () => {
    killedAt('undo-rebuild@1', ['rollback', dest, '--to', '1']);
    ok(brickpost(sub, ['resume', dest]));
    isAt(1);
    ok(brickpost(sub, ['prune', dest]));
    assert.deepEqual(storeFiles(), recorded());
    ok(brickpost(sub, ['ingest', drives[2]!, dest]));
    isAt(2);
  });
});
