/**
 * Files the publisher moves (and copies) are installed as copies of the
 * retired file, not as hard links to it: after the ingest, the new files
 * are separate inodes, none shared with the undo data (the retired file is
 * kept by chunks), so each keeps its own mtime, and editing a new file in
 * place changes neither the others nor what rollback restores.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, copyFileSync, utimesSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, publisherAndSubscriber, snapshot, tempDir } from '../support.js';

/** Every regular file under dir, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

describe('moved files are copies of the retired file, not hard links', () => {
  const root = tempDir('bp-adv-undo-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const dest = join(root, 'dest');
  const content = Buffer.alloc(300_000);
  for (let i = 0; i < content.length; i += 32) createHash('sha256').update(String(i)).digest().copy(content, i);
  let v1: Map<string, unknown>;
  let recipient = '';

  const ship = (label: string): void => {
    const drive = join(root, `drive-${label}`);
    mkdirSync(drive);
    const r = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'moves', '--label', label, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const i = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(i.code, 0, i.stdout + i.stderr);
    lastResult = lastEvent(i).result;
  };
  let lastResult: Record<string, any> = {};

  beforeAll(() => {
    mkdirSync(join(src, 'a'), { recursive: true });
    writeFileSync(join(src, 'a', 'data.bin'), content);
    writeFileSync(join(src, 'keep.txt'), 'kept\n');
    recipient = publisherAndSubscriber(pub, sub);
    ship('s1');
    v1 = snapshot(dest);
    // The publisher moves the file and makes a second copy of it elsewhere.
    mkdirSync(join(src, 'b'));
    renameSync(join(src, 'a', 'data.bin'), join(src, 'b', 'moved.bin'));
    copyFileSync(join(src, 'b', 'moved.bin'), join(src, 'b', 'copy.bin'));
    utimesSync(join(src, 'b', 'copy.bin'), 1_700_000_000, 1_700_000_000);
    ship('s2');
  });

  test('DEST is the source: the two new files of one content keep their own mtimes', () => {
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('the new files are separate inodes (link count 1 each), none shared with the undo data; filesLinked counts them', () => {
    const inodes = new Set<number>();
    for (const p of [join(dest, 'b', 'moved.bin'), join(dest, 'b', 'copy.bin')]) {
      const st = lstatSync(p);
      assert.equal(st.nlink, 1, `${p} has ${st.nlink} links`);
      inodes.add(st.ino);
    }
    assert.equal(inodes.size, 2);
    // The retired a/data.bin is kept for rollback by chunks (README "Undo data kept by chunk"), never as a link to a new file.
    const kept = [join(dest, '.brickpost', 'undo'), join(dest, '.brickpost', 'undo-chunks')].filter((d) => existsSync(d)).flatMap((d) => filesUnder(d));
    assert.ok(kept.length > 0, 'the undo data of shipment 2 is on disk');
    for (const p of kept) assert.ok(!inodes.has(lstatSync(p).ino), `${p} shares an inode with a new file`);
    assert.ok(lastResult.filesLinked >= 1, `filesLinked ${lastResult.filesLinked}`);
  });

  test('editing a new file in place leaves the other and the undo data as they were; rollback restores the original bytes', () => {
    appendFileSync(join(dest, 'b', 'moved.bin'), 'local edit');
    assert.ok(readFileSync(join(dest, 'b', 'copy.bin')).equals(content), 'the other new file is unchanged');
    const r = brickpost(sub, ['rollback', dest, '--to', '1', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(v1 as any, snapshot(dest)), []);
    assert.ok(readFileSync(join(dest, 'a', 'data.bin')).equals(content));
  });
});
