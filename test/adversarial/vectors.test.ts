/**
 * Hostile drives, ingested: every refusal vector of the testkit
 * (packages/engine/testkit: path, signature, bag, encryption, pack, chunk
 * and manifest attacks, built with the test-only crafting writer of
 * `@brickpost/engine/testing`), plus a manifest nested 3000 folders deep,
 * run as `brickpost ingest` into an empty DEST that sits next to canary
 * files. For each: a documented exit code and the error the vector names,
 * quoting the offending object; DEST holds nothing but .brickpost; nothing
 * else in the work folder changed (canaries, drive); peak memory bounded.
 * (testkit.test.ts checks each vector in its own mode; this adds the
 * memory bound and the canaries, in the ingest mode every receiver runs.)
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVector, loadVectors, newParty, type Parties, type Vector } from '@brickpost/engine/testing';
import { ROOT, tempDir } from '../support.js';
import { assertRefused, run, treeDigest } from './harness.js';

const root = tempDir('bp-adv-');
const EMPTY = treeDigest(mkdtempSync(join(root, 'empty-')));

/** A manifest whose folders nest 3000 deep: the path grammar's length limit stops it before anything is created. */
function deepNesting(): Vector {
  const dirs: string[] = [];
  let p = 'd';
  for (let i = 0; i < 3000; i++, p += '/d') dirs.push(`dir ${p}`);
  return {
    name: 'resource_deep_nesting',
    expect: 'UNSAFE_PATH',
    exit: 4,
    command: 'ingest',
    quote: 'nested deeper than 128',
    comment: 'folders nested 3000 deep, a path of 6000 bytes',
    body: ['chunk hello "hello, world\\n"', '', 'header', ...dirs, `file ${p}/x hello`, 'packs', 'end', ''].join('\n'),
  } as Vector;
}

describe('hostile drives, ingested', () => {
  const selfHome = join(root, 'homes', 'self');
  let parties: Parties;
  // Ingest vectors as they are; the bag vectors (written for keyless verify) refuse the same way on
  // ingest, except two keyless-fixity findings that do not touch the data ingest uses (it reads only
  // the listed, authenticated payload files): an unlisted extra file, and a Payload-Oxum that lies.
  const verifyOnly = new Set(['bag_extra_payload_file', 'bag_payload_oxum_lie']);
  const vectors = [
    ...loadVectors(join(ROOT, 'packages', 'engine', 'testkit')).filter(
      (v) => v.expect !== 'ok' && (v.command === 'ingest' || (v.name.startsWith('bag_') && !verifyOnly.has(v.name))),
    ),
    deepNesting(),
  ];

  beforeAll(() => {
    parties = { self: newParty(selfHome), stranger: newParty(join(root, 'homes', 'stranger')) };
  });

  test('there are at least 40 hostile drives, across the areas', () => {
    assert.ok(vectors.length >= 40, `${vectors.length} vectors`);
    const areas = new Set(vectors.map((v) => v.name.split('_')[0]));
    for (const a of ['seal', 'bag', 'age', 'pack', 'chunk', 'manifest', 'resource']) assert.ok(areas.has(a), `no ${a} vector`);
  });

  for (const v of vectors) {
    test(`${v.name}: ${v.expect}`, async () => {
      const work = mkdtempSync(join(root, `${v.name}-`));
      const drive = join(work, 'drive');
      const jail = join(work, 'jail');
      const dest = join(jail, 'dest');
      const home = join(work, 'home');
      mkdirSync(drive);
      mkdirSync(dest, { recursive: true });
      mkdirSync(join(work, 'scratch'));
      writeFileSync(join(jail, 'canary.txt'), 'must stay as it is\n');
      writeFileSync(join(work, 'canary-outside.txt'), 'must stay too\n');
      cpSync(selfHome, home, { recursive: true });
      await buildVector(v.body, parties, drive, join(work, 'scratch'));
      const around = treeDigest(work, ['home', 'jail/dest']);
      const o = run(home, ['ingest', drive, dest]);
      assertRefused(o, { code: v.expect, exit: v.exit, ...(v.quote !== undefined ? { names: v.quote } : {}) });
      assert.equal(treeDigest(dest, ['.brickpost']), EMPTY, 'DEST holds nothing but .brickpost');
      assert.equal(treeDigest(work, ['home', 'jail/dest']), around, 'nothing outside DEST changed');
    });
  }
});
