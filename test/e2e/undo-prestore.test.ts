/**
 * The undo data of a large replaced file stored while the shipment is
 * staged (prestore.ts), before the commit: shipment 2 changes a few bytes
 * of a 24 MiB file (past the 8 MiB from which files are stored ahead) and
 * a small file. Each case ingests it into a copy of DEST after shipment 1:
 * uninterrupted, the old version is recorded by chunks and the store holds
 * exactly the recorded chunks; killed once the commit began, the next run
 * finishes it and the chunks stored ahead are recorded or swept, never
 * left; a staging that fails leaves no chunk file and DEST as it was. Each
 * then rolls back to shipment 1 byte for byte. The chunks of the new
 * version taken from the old one are checked against the ids computed
 * while storing ahead: an old file changed in DEST behind its size and
 * mtime is still refused.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, bytes, diffSnapshots, errorEvent, overwriteAt, publisherAndSubscriber, sh, snapshot, tempDir, type Run } from '../support.js';

const CLI = join(import.meta.dirname, '..', '..', 'apps', 'cli', 'bin', 'brickpost.js');
const BIG = 24 << 20;

describe('undo data of large replaced files stored while staging', () => {
  const root = tempDir('bp-undo-prestore-');
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const states = join(root, 'states');
  const base = join(root, 'dest-1');
  const drives: string[] = [];
  let n = 0;

  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r;
  };
  /** A copy of DEST after shipment 1, and of the subscriber's home then. */
  const fresh = (): { dest: string; home: string } => {
    const dest = join(root, `dest-${++n}-case`);
    const home = join(root, `sub-${n}-case`);
    sh('cp', ['-a', base, dest]);
    sh('cp', ['-a', join(root, 'sub-1'), home]);
    return { dest, home };
  };
  const storeFiles = (dest: string): string[] => {
    const store = join(dest, '.brickpost', 'undo-chunks');
    if (!existsSync(store)) return [];
    return readdirSync(store, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  };
  const journal = <T>(dest: string, sql: string): T[] => {
    const db = new Database(join(dest, '.brickpost', 'journal.sqlite'), { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  };
  const recorded = (dest: string): string[] =>
    journal<{ h: string }>(dest, 'SELECT lower(hex(hash)) AS h FROM undo_chunks')
      .map((r) => r.h)
      .sort();
  const wholeUndoFiles = (dest: string): string[] =>
    readdirSync(join(dest, '.brickpost', 'undo'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  /** After shipment 2: the old big.bin is kept by chunks, nothing else is in the store, nothing whole is left; rollback gives shipment 1. */
  const settled = (dest: string, home: string): void => {
    assert.deepEqual(diffSnapshots(snapshot(join(states, '2')), snapshot(dest)), [], 'DEST is the tree of shipment 2');
    const sizes = journal<{ size: number }>(dest, "SELECT size FROM undo_files WHERE rel = '' ORDER BY size DESC").map((r) => r.size);
    assert.equal(sizes[0], BIG, `the old big.bin is kept by chunks: ${JSON.stringify(sizes)}`);
    assert.deepEqual(wholeUndoFiles(dest), [], 'no whole file is left in the undo area');
    assert.deepEqual(storeFiles(dest), recorded(dest), 'every chunk file is recorded, and every recorded chunk is there');
    assert.ok(recorded(dest).length >= 20, 'the old big.bin is in the store');
    ok(brickpost(home, ['rollback', dest, '--to', '1', '--json']));
    assert.deepEqual(diffSnapshots(snapshot(join(states, '1')), snapshot(dest)), [], 'rollback gives shipment 1 back');
  };

  beforeAll(() => {
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(join(src, 'd'), { recursive: true });
    mkdirSync(states);
    writeFileSync(join(src, 'big.bin'), bytes('big', BIG));
    writeFileSync(join(src, 'd', 'notes.txt'), 'a note\n'.repeat(20_000));
    for (let seq = 1; seq <= 2; seq++) {
      if (seq === 2) {
        overwriteAt(join(src, 'big.bin'), 9 << 20, bytes('edit', 4096));
        writeFileSync(join(src, 'd', 'notes.txt'), 'another note\n'.repeat(20_000));
      }
      const drive = join(root, `drive${seq}`);
      mkdirSync(drive);
      ok(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'p', '--json']));
      sh('cp', ['-a', src, join(states, String(seq))]);
      drives.push(drive);
    }
    ok(brickpost(sub, ['ingest', drives[0]!, base, '--json']));
    sh('cp', ['-a', sub, join(root, 'sub-1')]);
  });

  test('uninterrupted: the old version is recorded by chunks, the store holds exactly those', () => {
    const { dest, home } = fresh();
    ok(brickpost(home, ['ingest', drives[1]!, dest, '--json']));
    settled(dest, home);
  });

  test('killed once the commit began: the next run finishes it, the chunks stored ahead recorded or swept', () => {
    const { dest, home } = fresh();
    const r = spawnSync(process.execPath, [CLI, '--home', home, '--quiet', 'ingest', drives[1]!, dest], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'apply-retire' },
    });
    assert.equal(r.signal, 'SIGKILL', `killed after the first retire: ${String(r.stderr)}`);
    assert.ok(storeFiles(dest).length > 0, 'the chunks of the old big.bin were stored before the commit');
    assert.deepEqual(recorded(dest), [], 'and none is recorded yet');
    ok(brickpost(home, ['resume', dest, '--json']));
    settled(dest, home);
  });

  test('a staging that fails leaves no chunk file and DEST as it was; the next run applies it', () => {
    const { dest, home } = fresh();
    const r = brickpost(home, ['ingest', drives[1]!, dest, '--json'], { env: { ...process.env, BRICKPOST_FAILPOINT: 'stage-write@3' } });
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.equal(errorEvent(r).code, 'NO_SPACE');
    assert.deepEqual(diffSnapshots(snapshot(join(states, '1')), snapshot(dest)), [], 'DEST is still the tree of shipment 1');
    assert.deepEqual(storeFiles(dest), [], 'no chunk file is left in the store');
    ok(brickpost(home, ['ingest', drives[1]!, dest, '--json']));
    settled(dest, home);
  });

  test('an old version changed in DEST without its size or mtime changing: refused, DEST and the store as they were', () => {
    const { dest, home } = fresh();
    const big = join(dest, 'big.bin');
    const st = lstatSync(big, { bigint: true });
    overwriteAt(big, 2 << 20, bytes('local', 4096));
    utimesSync(big, Number(st.atimeNs) / 1e9, Number(st.mtimeNs) / 1e9);
    const was = snapshot(dest);
    const r = brickpost(home, ['ingest', drives[1]!, dest, '--json']);
    assert.equal(r.code, 6, r.stdout + r.stderr);
    const ev = errorEvent(r);
    assert.equal(ev.code, 'BASIS_MISSING');
    assert.match(ev.message, /big\.bin.*without its size or mtime changing/);
    assert.deepEqual(diffSnapshots(was, snapshot(dest)), [], 'DEST as it was');
    assert.deepEqual(storeFiles(dest), [], 'no chunk file is left in the store');
  });
});
