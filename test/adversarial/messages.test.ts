/**
 * What a refusal says about a small hostile drive, on the native core and
 * on the TypeScript path (BRICKPOST_NATIVE=0), for ingest and verify
 * --deep: a decompression bomb names the file, the pack and the offset of
 * its frame and says what to do; a chunk frame past the end of an intact
 * pack is the manifest's inconsistency (MALFORMED), not damage, and no
 * hint sends the user to repair; an age header cut short in the manifest
 * names the manifest. Each drive is built from its testkit vector, and a
 * variant of each (another file, another offset) is refused the same way.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { buildVector, loadVectors, newParty, type Parties } from '@brickpost/engine/testing';
import { ROOT, tempDir } from '../support.js';
import { assertRefused, run, type Outcome } from './harness.js';

const PATHS: Array<[string, Record<string, string>]> = [
  ['native core', {}],
  ['TypeScript path', { BRICKPOST_NATIVE: '0' }],
];
const vectors = new Map(loadVectors(join(ROOT, 'packages', 'engine', 'testkit')).map((v) => [v.name, v]));

/** The body of testkit vector `name`, with `edit` applied (a variant of the same fault). */
function body(name: string, edit: (b: string) => string = (b) => b): string {
  const v = vectors.get(name);
  assert.ok(v, `no vector ${name}`);
  return edit(v.body);
}

describe('messages about a small hostile drive', () => {
  const root = tempDir('bp-adv-msg-');
  const home = join(root, 'self');
  let parties: Parties;
  const drives = new Map<string, string>();
  const cases: Record<string, string> = {
    bomb: body('chunk_decompression_bomb'),
    // The bomb behind another file's chunk, further into the pack.
    bombVariant: body('chunk_decompression_bomb', (b) => b.replace('frame hello bomb', 'frame noise bomb')),
    pastEnd: body('chunk_frame_past_pack_end'),
    pastEndVariant: body('chunk_read_behind_out_of_range'),
    ageCut: body('age_manifest_header_truncated'),
    ageCutVariant: body('age_manifest_header_truncated', (b) => b.replace('truncate manifest 50', 'truncate manifest 120')),
  };
  const cli = (args: string[], env: Record<string, string>): Outcome => run(home, args, { env: { ...process.env, ...env } });
  const problem = (o: Outcome, code: string): Record<string, any> =>
    o.events.find((e) => e.type === 'summary')!.result.problems.find((p: { code: string }) => p.code === code);

  beforeAll(async () => {
    parties = { self: newParty(home), stranger: newParty(join(root, 'stranger')) };
    for (const [name, b] of Object.entries(cases)) {
      const work = mkdtempSync(join(root, `${name}-`));
      mkdirSync(join(work, 'drive'));
      mkdirSync(join(work, 'scratch'));
      await buildVector(b, parties, join(work, 'drive'), join(work, 'scratch'));
      drives.set(name, join(work, 'drive'));
    }
  });

  for (const [name, env] of PATHS) {
    const tag = env['BRICKPOST_NATIVE'] ?? '1';
    for (const [c, file] of [
      ['bomb', 'sub/a.txt'],
      ['bombVariant', 'z.bin'],
    ] as const) {
      test(`${name}: a decompression bomb behind ${file} is refused naming the file, the pack and the offset, with a hint`, () => {
        const where = new RegExp(
          `^"${file.replace('.', '\\.')}": its chunk frame at plaintext offset [0-9]+ of pack "data/packs/000/000000\\.age" \\([0-9]+ bytes\\): .*1073741824`,
        );
        const ing = cli(['ingest', drives.get(c)!, join(root, `dest-${c}-${tag}`)], env);
        const ev = assertRefused(ing, { code: 'LIMIT_EXCEEDED', exit: 4, names: where });
        assert.match(String(ev.hint), /checks the pack against its signed SHA-256/);
        const deep = cli(['verify', '--deep', drives.get(c)!], env);
        assertRefused(deep, { code: 'LIMIT_EXCEEDED', exit: 4, names: where });
        assert.ok(problem(deep, 'LIMIT_EXCEEDED').hint, 'the problem has a hint');
      });
    }

    for (const [c, file] of [
      ['pastEnd', 'a.txt'],
      ['pastEndVariant', 'c.txt'],
    ] as const) {
      test(`${name}: a frame of ${file} past the end of an intact pack is MALFORMED, not damage, and no hint proposes repair`, () => {
        const where = new RegExp(
          `^data/manifest\\.age: the entry "${file.replace('.', '\\.')}" names a chunk frame at plaintext offset [0-9]+ of pack "data/packs/000/00000[01]\\.age" \\([0-9]+ bytes\\), past the end of that pack, which matches its signed SHA-256`,
        );
        const ing = cli(['ingest', drives.get(c)!, join(root, `dest-${c}-${tag}`)], env);
        const ev = assertRefused(ing, { code: 'MALFORMED', exit: 1, names: where });
        assert.match(String(ev.hint), /ask the publisher for a new drive/);
        const deep = cli(['verify', '--deep', drives.get(c)!], env);
        const last = assertRefused(deep, { code: 'MALFORMED', exit: 1, names: where });
        assert.equal(problem(deep, 'TRUNCATED'), undefined, 'no "pack ends early" damage is reported');
        assert.match(String(last.hint), /ask the publisher for a new drive/);
        assert.doesNotMatch(String(last.hint), /repair|damaged/);
      });
    }

    test(`${name}: an age header cut short in the manifest names the manifest, however short`, () => {
      for (const c of ['ageCut', 'ageCutVariant']) {
        const o = cli(['ingest', drives.get(c)!, join(root, `dest-${c}-${tag}`)], env);
        assertRefused(o, { code: 'TRUNCATED', exit: 1, names: '"data/manifest.age"' });
        const deep = cli(['verify', '--deep', drives.get(c)!], env);
        assertRefused(deep, { code: 'TRUNCATED', exit: 1, names: '"data/manifest.age"' });
      }
    });
  }
});
