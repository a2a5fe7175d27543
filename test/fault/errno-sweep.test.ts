/**
 * The errno sweep (npm run soak): the matrices of errno-ingest,
 * errno-rollback, errno-pack and errno-drive over every call their commands
 * make instead of a few per phase, each with the errnos of its kind in turn
 * (BRICKPOST_FAULT_SWEEP=calls, the soak's default) or with every one of
 * them (BRICKPOST_FAULT_SWEEP=all, slower by the number of errnos). Without
 * BRICKPOST_FAULT_SWEEP it is skipped: npm test runs the fast matrices.
 * BRICKPOST_FAULT_ONLY=NAME,… (ingest, ingest-next, rollback, pack, verify,
 * verify-deep, repair, extract) sweeps only those commands.
 *
 * SQLite files and lock files are not failed here: their errors have tests
 * of their own.
 */
import { beforeAll, describe, test } from 'vitest';
import { join } from 'node:path';
import { sh, tempDir } from '../support.js';
import { ingestFirst, ingestNext, rollbackTo1 } from './dest-cases.js';
import { damage, extractMatrix, packMatrix, repairMatrix, verifyMatrix } from './drive-cases.js';
import { runMatrix, type CommandMatrix, type Coverage } from './matrix.js';
import { buildWorld, type World } from './world.js';

const SWEEP = process.env.BRICKPOST_FAULT_SWEEP;
const coverage: Coverage = SWEEP === 'all' ? 'all' : 'calls';
const ONLY = process.env.BRICKPOST_FAULT_ONLY?.split(',').filter(Boolean);
const skip = SWEEP ? false : 'set BRICKPOST_FAULT_SWEEP=calls (or all) to sweep every call; npm run soak does';

const MATRICES: Record<string, (w: World, damaged: string) => CommandMatrix> = {
  ingest: (w) => ingestFirst(w),
  'ingest-next': (w) => ingestNext(w),
  rollback: (w) => rollbackTo1(w),
  pack: (w) => packMatrix(w),
  verify: (w) => verifyMatrix(w, false),
  'verify-deep': (w) => verifyMatrix(w, true),
  repair: (w, damaged) => repairMatrix(w, damaged),
  extract: (w) => extractMatrix(w),
};

describe.skipIf(skip)(`errno sweep over every call (${SWEEP ?? 'off'})${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let w: World;
  let damaged: string;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-errno-sweep-'));
    damaged = join(w.root, 'damaged');
    sh('cp', ['-a', w.drive1, damaged]);
    damage(damaged);
  });

  for (const [name, make] of Object.entries(MATRICES)) {
    if (ONLY && !ONLY.includes(name)) continue;
    test(name, async (t) => {
      await runMatrix(t, make(w, damaged), coverage);
    });
  }
});
