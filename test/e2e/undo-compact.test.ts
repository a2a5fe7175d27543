/**
 * Turning replaced files into chunks of the undo store (undo-compact.ts),
 * on both chunk pipelines: one destination ingests with the native core,
 * another with the TypeScript path (BRICKPOST_NATIVE=0). Shipment 2
 * changes a few bytes of a file past 8 MiB (the large-file path) and one
 * under it, and deletes more files than one batch holds (512), among them
 * 40 with the same bytes (stored at once, they share one chunk). Both stores
 * then hold the same chunks, each a zstd frame whose bytes hash to its
 * name (checked with the zstd tool), no whole file is left behind, and
 * rollback gives shipment 1 back byte for byte on both.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { brickpost, diffSnapshots, hasTool, publisherAndSubscriber, sh, snapshot, tempDir, type Run, bytes, overwriteAt } from '../support.js';

const JS = { ...process.env, BRICKPOST_NATIVE: '0' };
const NATIVE = { ...process.env, BRICKPOST_NATIVE: '1' };
const why = hasTool('zstd') ? null : 'the zstd tool is not installed';

describe.skipIf(why)(`undo files turned into chunks, on both pipelines${why ? ` [skipped: ${why}]` : ''}`, () => {
  const root = tempDir('bp-undo-compact-');
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const states = join(root, 'states');
  const drives: string[] = [];
  const dests = { native: join(root, 'dest-native'), js: join(root, 'dest-js') };
  const envs = { native: NATIVE, js: JS };
  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r;
  };
  const storeFiles = (dest: string): string[] =>
    readdirSync(join(dest, '.brickpost', 'undo-chunks'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .sort();
  const recorded = (dest: string): string[] => {
    const db = new Database(join(dest, '.brickpost', 'journal.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT lower(hex(hash)) FROM undo_chunks ORDER BY 1').pluck().all() as string[]).sort();
    } finally {
      db.close();
    }
  };

  beforeAll(() => {
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(join(src, 'many'), { recursive: true });
    mkdirSync(states);
    writeFileSync(join(src, 'large.bin'), Buffer.concat([bytes('large', 10 << 20), Buffer.from('text '.repeat(200_000))]));
    writeFileSync(join(src, 'small.txt'), 'a line of text\n'.repeat(100_000));
    for (let i = 0; i < 600; i++) writeFileSync(join(src, 'many', `f${i}.txt`), `file ${i}\n`.repeat(1 + (i % 50)));
    for (let i = 0; i < 40; i++) writeFileSync(join(src, 'many', `same${i}.txt`), 'the same bytes in each\n'.repeat(300));
    for (let seq = 1; seq <= 2; seq++) {
      if (seq === 2) {
        overwriteAt(join(src, 'large.bin'), 5 << 20, bytes('edit', 64));
        overwriteAt(join(src, 'small.txt'), 700_000, Buffer.from('an edited line'));
        rmSync(join(src, 'many'), { recursive: true });
      }
      const drive = join(root, `drive${seq}`);
      mkdirSync(drive);
      ok(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'c', '--json']));
      sh('cp', ['-a', src, join(states, String(seq))]);
      drives.push(drive);
    }
    // The home refuses a shipment older than one it applied: each shipment goes to both destinations in turn.
    for (const drive of drives) for (const path of ['native', 'js'] as const) ok(brickpost(sub, ['ingest', drive, dests[path], '--json'], { env: envs[path] }));
  });

  test('no whole file is left, and both stores hold the same recorded chunks', () => {
    for (const dest of Object.values(dests)) {
      const whole = readdirSync(join(dest, '.brickpost', 'undo'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      assert.deepEqual(
        whole.map((e) => e.name),
        [],
        `no whole file is left in ${dest}'s undo area`,
      );
      assert.deepEqual(
        storeFiles(dest).map((f) => f.slice(f.lastIndexOf('/') + 1)),
        recorded(dest),
        'every chunk file is recorded, and every recorded chunk is there',
      );
    }
    assert.deepEqual(recorded(dests.js), recorded(dests.native));
    assert.ok(recorded(dests.native).length > 10);
    const same = createHash('sha256').update('the same bytes in each\n'.repeat(300)).digest('hex');
    assert.ok(recorded(dests.native).includes(same), 'the 40 files of the same bytes are kept by their one chunk');
  });

  test('each chunk file is one zstd frame of bytes that hash to its name', () => {
    for (const f of storeFiles(dests.native)) {
      const raw = sh('zstd', ['-d', '-c', f]);
      assert.equal(createHash('sha256').update(raw).digest('hex'), f.slice(f.lastIndexOf('/') + 1), f);
    }
  });

  test('rollback gives shipment 1 back byte for byte on both', () => {
    for (const path of ['native', 'js'] as const) {
      ok(brickpost(sub, ['rollback', dests[path], '--to', '1'], { env: envs[path] }));
      assert.deepEqual(diffSnapshots(snapshot(join(states, '1')), snapshot(dests[path])), [], `${path}: DEST is shipment 1's tree`);
    }
  });
});
