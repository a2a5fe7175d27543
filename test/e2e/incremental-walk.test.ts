/**
 * An incremental ingest stages its files from the records its plan kept
 * (RecordStash), not from a second read of the manifest: shipment 2
 * changes a sparse file whose refs fill a 'file' and a 'more' record, a
 * small file in a folder, and adds a file, among files it keeps. DEST then
 * equals the source byte for byte, the summary counts exactly the files
 * written, and a rollback gives shipment 1 back.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, bytes, diffSnapshots, lastEvent, overwriteAt, publisherAndSubscriber, sh, snapshot, tempDir } from '../support.js';

describe('an incremental ingest walks the records its plan kept', () => {
  const root = tempDir('bp-incremental-walk-');
  const src = join(root, 'src');
  const dest = join(root, 'dest');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const recipient = publisherAndSubscriber(pub, sub);
  const pack = (drive: string): void => {
    mkdirSync(drive);
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'walk', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  };

  test('the changed files, a sparse one of two records among them, are built; the rest kept', () => {
    mkdirSync(join(src, 'a/b'), { recursive: true });
    // 1,100 data blocks apart: its refs fill a 'file' record and a 'more' record.
    const sparse = join(src, 'a/sparse.bin');
    writeFileSync(sparse, '');
    const segment = 4096 + (1 << 16);
    for (let i = 0; i < 1100; i++) overwriteAt(sparse, i * segment, bytes(`block ${i}`, 4096));
    for (let i = 0; i < 40; i++) writeFileSync(join(src, i % 2 ? 'a/b' : 'a', `f${i}.txt`), `file ${i}\n`.repeat(i + 1));
    pack(join(root, 'drive1'));
    const first = brickpost(sub, ['ingest', join(root, 'drive1'), dest, '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    sh('cp', ['-a', src, join(root, 'state1')]);

    overwriteAt(sparse, 1099 * segment, bytes('the last block, changed', 4096));
    writeFileSync(join(src, 'a/b/f7.txt'), 'changed\n');
    writeFileSync(join(src, 'a/b/new.txt'), 'new\n');
    pack(join(root, 'drive2'));
    const second = brickpost(sub, ['ingest', join(root, 'drive2'), dest, '--json']);
    assert.equal(second.code, 0, second.stdout + second.stderr);
    const s = lastEvent(second).result;
    assert.equal(s.incremental, true);
    assert.equal(s.filesWritten + s.filesLinked, 3, JSON.stringify(s));
    assert.equal(s.filesUnchanged, 39);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'DEST equals the source');

    const back = brickpost(sub, ['rollback', dest, '--to', '1', '--json']);
    assert.equal(back.code, 0, back.stdout + back.stderr);
    assert.deepEqual(diffSnapshots(snapshot(join(root, 'state1')), snapshot(dest)), [], 'the rollback gives shipment 1 back');
  });
});
