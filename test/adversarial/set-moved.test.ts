/**
 * A pack moved from one drive of a set to another, through the real CLI.
 * The signed set file says which drive holds each pack, and each drive's
 * payload manifest lists only its own, so the move is not a harmless
 * relocation: the drive that lost the pack is damaged, the one that got it
 * carries a file it does not list. Ingest of every drive is refused naming
 * the pack, with DEST empty; verify names the missing and the unexpected
 * file on their drives; and the set without the damaged drive still
 * ingests, its share rebuilt from parity, to the source.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, makeDataset, publisherAndSubscriber, shipmentDir, snapshot, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

describe('a pack moved to another drive of its set', () => {
  const root = tempDir('bp-adv-moved-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drives = [1, 2, 3].map((i) => join(root, `d${i}`));
  /** The bag-relative path of the pack moved from drive 1 to drive 2. */
  let moved = '';

  beforeAll(() => {
    makeDataset(src, '6M', 43);
    const recipient = publisherAndSubscriber(pub, sub);
    for (const d of drives) mkdirSync(d);
    const r = brickpost(pub, ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--dataset', 'moved', '--recipient', recipient, '--json'], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const bag1 = shipmentDir(drives[0]!);
    const packs = readdirSync(join(bag1, 'data', 'packs', '000')).sort();
    assert.ok(packs.length >= 2, `drive 1 holds several packs: ${packs.join(', ')}`);
    moved = `data/packs/000/${packs[1]}`;
    const bag2 = shipmentDir(drives[1]!);
    assert.equal(existsSync(join(bag2, moved)), false, 'packs are numbered across the set: drive 2 has no file of that name');
    renameSync(join(bag1, moved), join(bag2, moved));
  });

  test('ingest of every drive: refused (exit 1) naming the pack, DEST empty', () => {
    const dest = join(root, 'dest-all');
    const ev = assertRefused(run(sub, ['ingest', ...drives, dest]), { code: 'FILE_MISSING', exit: 1, names: `"${moved}" is missing` });
    assert.ok(String(ev.path).startsWith(drives[0]!), `the error's path is on drive 1: ${ev.path}`);
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
  });

  test('verify: drive 1 lacks the pack (FILE_MISSING), drive 2 carries a file it does not list (UNEXPECTED_FILE)', () => {
    for (const [d, code] of [
      [drives[0]!, 'FILE_MISSING'],
      [drives[1]!, 'UNEXPECTED_FILE'],
    ] as const) {
      const r = brickpost(sub, ['verify', d, '--json']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const summary = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((e) => e.type === 'summary');
      const problems = summary.result.problems as Array<{ code: string; message: string }>;
      assert.deepEqual(
        problems.map((p) => p.code),
        [code],
        JSON.stringify(problems),
      );
      assert.ok(problems[0]!.message.includes(moved), problems[0]!.message);
    }
  });

  test('the set without the drive that lost the pack ingests to the source (its share rebuilt from parity; the extra file is not read)', () => {
    const dest = join(root, 'dest-23');
    const r = brickpost(sub, ['ingest', drives[1]!, drives[2]!, dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(lastEvent(r).result.files > 0, true);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('put back, the pack makes the three drives whole again', () => {
    renameSync(join(shipmentDir(drives[1]!), moved), join(shipmentDir(drives[0]!), moved));
    const dest = join(root, 'dest-back');
    const r = brickpost(sub, ['ingest', ...drives, dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });
});
