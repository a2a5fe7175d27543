/**
 * Windows name rules at ingest: names Windows cannot create (reserved
 * device names with or without an extension, a trailing dot or space,
 * `< > : " | ? *`) are refused with UNSAFE_PATH where the rules apply (on
 * Windows, on FAT, exFAT and NTFS destinations, and with --windows-names),
 * before anything is written; on other destinations they are valid names
 * and are ingested. (Case folding is covered by the manifest_fold_* and
 * ok_fold_* vectors of the testkit.)
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVector, newParty, type Parties } from '@brickpost/engine/testing';
import { brickpost, diffSnapshots, publisherAndSubscriber, snapshot, tempDir } from '../support.js';
import { assertRefused, run } from './harness.js';

const WINDOWS_BAD = ['CON', 'nul.txt', 'Com1.tar.gz', 'LPT9', 'aux .log', 'trailing.', 'space ', 'ab:c', 'why?', 'x<y>', 'q"uote', 'pi|pe', 'star*'];

describe('windows name rules', () => {
  const root = tempDir('bp-adv-names-');
  const selfHome = join(root, 'homes', 'self');
  let parties: Parties;

  beforeAll(() => {
    parties = { self: newParty(selfHome), stranger: newParty(join(root, 'homes', 'stranger')) };
  });

  test('off Windows, these names are valid: a real shipment of them ingests as it is', () => {
    const src = join(root, 'src');
    mkdirSync(join(src, 'dir.'), { recursive: true });
    for (const n of WINDOWS_BAD) writeFileSync(join(src, n), `${n}\n`);
    writeFileSync(join(src, 'dir.', 'PRN'), 'printer\n');
    const pub = join(root, 'publisher');
    const sub = join(root, 'subscriber');
    const recipient = publisherAndSubscriber(pub, sub);
    const drive = join(root, 'drive');
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'names', '--json']);
    assert.equal(p.code, 0, p.stdout + p.stderr);
    const dest = join(root, 'dest');
    const i = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(i.code, 0, i.stdout + i.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
    // The same drive with --windows-names into a fresh destination: refused, nothing written.
    const strict = join(root, 'dest-strict');
    assertRefused(run(sub, ['ingest', drive, strict, '--windows-names']), { code: 'UNSAFE_PATH', exit: 4, names: /on windows: / });
    assert.deepEqual(existsSync(strict) ? readdirSync(strict).filter((f) => f !== '.brickpost') : [], []);
  });

  for (const name of [...WINDOWS_BAD, 'dir./ok.txt']) {
    test(`with --windows-names, ${JSON.stringify(name)} is refused (UNSAFE_PATH, exit 4), DEST holds nothing`, async () => {
      const work = mkdtempSync(join(root, 'case-'));
      const drive = join(work, 'drive');
      const dest = join(work, 'dest');
      const home = join(work, 'home');
      mkdirSync(drive);
      mkdirSync(join(work, 'scratch'));
      cpSync(selfHome, home, { recursive: true });
      const dirs = name.includes('/') ? [`dir ${JSON.stringify(name.split('/')[0])}`] : [];
      const body = ['chunk hello "hello\\n"', '', 'header', ...dirs, `file ${JSON.stringify(name)} hello`, 'packs', 'end', ''].join('\n');
      await buildVector(body, parties, drive, join(work, 'scratch'));
      const o = run(home, ['ingest', drive, dest, '--windows-names']);
      assertRefused(o, { code: 'UNSAFE_PATH', exit: 4, names: `unsafe path ${JSON.stringify(name.split('/')[0])} on windows: ` });
      assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
      assert.equal(run(home, ['ingest', drive, join(work, 'dest-posix')]).code, 0, 'without the rules the same drive ingests');
    });
  }
});
