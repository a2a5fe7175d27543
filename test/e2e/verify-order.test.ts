/**
 * Keyless verify hashes payload files on several threads at once, each
 * taking the next file as soon as it is done with its own; its report still
 * lists the problems in payload manifest order, the same on every run.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, makeDataset, overwriteAt, publisherAndSubscriber, shipmentDir, tempDir } from '../support.js';

describe('keyless verify of a drive with several damaged payload files', () => {
  const root = tempDir('bp-verify-order-');
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drive = join(root, 'drive');
  let bag = '';
  /** Payload paths in payload manifest order. */
  let payload: string[] = [];

  beforeAll(() => {
    makeDataset(src, '6M', 7);
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'order', '--json'], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(p.code, 0, p.stdout + p.stderr);
    bag = shipmentDir(drive);
    payload = readFileSync(join(bag, 'manifest-sha256.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(l.indexOf(' ') + 2));
  });

  const problems = (): Array<{ code: string; path?: string }> => {
    const r = brickpost(sub, ['verify', drive, '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const summary = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; result?: { problems: Array<{ code: string; path?: string }> } })
      .find((e) => e.type === 'summary');
    assert.ok(summary?.result, r.stdout);
    return summary.result.problems;
  };

  test('every damaged file is named once, in payload manifest order, on every run', () => {
    const packs = payload.filter((p) => p.startsWith('data/packs/'));
    assert.ok(packs.length >= 4, `expected several packs, got ${packs.join(', ')}`);
    // Damaged: the first pack, a pack in the middle and the last, and one pack missing (found before reading).
    const damaged = [packs[0]!, packs[2]!, packs[packs.length - 1]!];
    for (const rel of damaged) overwriteAt(join(bag, rel), 100, Buffer.from('damage'));
    rmSync(join(bag, packs[1]!));
    const expected = payload.filter((p) => damaged.includes(p) || p === packs[1]);
    for (let run = 0; run < 2; run++) {
      const found = problems().filter((p) => p.path !== undefined && p.path.startsWith(bag + '/'));
      assert.deepEqual(
        found.map((p) => p.path!.slice(bag.length + 1)),
        expected,
        JSON.stringify(found),
      );
      assert.deepEqual(
        found.map((p) => p.code),
        expected.map((p) => (p === packs[1] ? 'FILE_MISSING' : 'FIXITY_MISMATCH')),
      );
    }
  });
});
