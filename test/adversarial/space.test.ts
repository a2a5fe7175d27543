/**
 * Free space is checked before every large write of received data, not
 * only before staging: `ingest --gather` copying a drive of a set into a
 * destination on a small file system, and `verify --deep` rebuilding a
 * missing data drive into a small temporary folder, are refused with
 * NO_SPACE and the shortfall before anything is written. Needs root, to
 * mount small tmpfs file systems.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, publisherAndSubscriber, makeDataset, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

const root = tempDir('bp-adv-space-');
const mounted: string[] = [];

/** A tmpfs of `size` at root/name, or the reason there cannot be one. */
function tmpfs(name: string, size: string): string | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'needs root to mount a small file system' };
  const m = join(root, name);
  mkdirSync(m);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', m]);
  if (r.status !== 0) return { skip: `cannot mount a tmpfs here: ${String(r.stderr).trim()}` };
  mounted.push(m);
  return m;
}

describe('free space for gathered drives and rebuilt packs', () => {
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const set = [1, 2, 3].map((i) => join(root, 'set', `d${i}`));
  const small = tmpfs('small', '1m');
  const tmp = tmpfs('tmp', '512k');

  beforeAll(() => {
    makeDataset(src, '6M', 31);
    const recipient = publisherAndSubscriber(pub, sub);
    for (const d of set) mkdirSync(d, { recursive: true });
    const r = brickpost(pub, ['pack', src, ...set.flatMap((d) => ['--to', d]), '--recipient', recipient, '--dataset', 'space', '--json'], {
      env: { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });
  afterAll(() => {
    for (const m of mounted) spawnSync('umount', [m]);
  });

  test.skipIf(typeof small !== 'string')(
    `ingest --gather onto a small file system: refused before copying, with the shortfall (exit 5)${typeof small === 'string' ? '' : ` [skipped: ${small.skip}]`}`,
    () => {
      const slot = join(root, 'slot-a', 'd1');
      cpSync(set[0]!, slot, { recursive: true });
      const dest = join(small as string, 'dest');
      const o = run(sub, ['ingest', slot, dest, '--gather']);
      assertRefused(o, {
        code: 'NO_SPACE',
        exit: 5,
        names: /destination folder ".*" has [0-9]+ bytes free, gathering drive 1 of the set needs [0-9]+ \(short by [0-9]+\)/,
      });
      const gathered = join(dest, '.brickpost', 'gather');
      assert.deepEqual(existsSync(gathered) ? readdirSync(gathered, { recursive: true }) : [], [], 'nothing was copied');
    },
  );

  test.skipIf(typeof tmp !== 'string')(
    `verify --deep rebuilding a missing data drive into a small TMPDIR: refused before rebuilding (exit 5)${typeof tmp === 'string' ? '' : ` [skipped: ${tmp.skip}]`}`,
    () => {
      const kept = [1, 2].map((i) => {
        const to = join(root, 'slot-b', `d${i + 1}`);
        cpSync(set[i]!, to, { recursive: true });
        return to;
      });
      const o = run(sub, ['verify', '--deep', kept[0]!, '--drive', kept[1]!], { env: { ...process.env, TMPDIR: tmp as string } });
      assertRefused(o, {
        code: 'NO_SPACE',
        exit: 5,
        names: /temporary folder ".*" has [0-9]+ bytes free, rebuilding data drive 1 from parity needs [0-9]+ \(short by [0-9]+\)/,
      });
      assert.deepEqual(readdirSync(tmp as string), [], 'the temporary folder is left empty');
    },
  );
});
