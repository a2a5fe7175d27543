/**
 * Kill anywhere: `brickpost pack` and `brickpost ingest` are SIGKILLed at
 * random moments (not only at failpoints), for a first shipment, an
 * incremental one (whose commit then keeps the replaced files by chunks)
 * and a 3-drive set; `brickpost rollback` from the incremental one back to
 * the first, its undo data rebuilt from the chunk undo store. Each scenario first runs its command twice
 * uninterrupted to measure its run time T; each trial then kills the
 * command after a delay drawn uniformly from [0, T) and, in half of the
 * trials, kills the run that recovers from it too (pack --resume, or ingest
 * finishing its journal); then runs it once more without a kill. After
 * every kill: no partial file under a final name in DEST, every catalog
 * and journal passes PRAGMA integrity_check, a DEST that is neither tree
 * has a commit journaled, a shipment under its final name verifies. At the
 * end: DEST is the source tree and its state folder holds nothing left
 * over; the drive holds no `.part` and one complete shipment per pack run,
 * which verifies deeply and ingests to the source tree, and the catalog's
 * record of its tree (what the next incremental shipment builds on) is
 * that of an uninterrupted run.
 *
 * BRICKPOST_KILLS (default 50) is the kills per command, spread over its
 * three scenarios; BRICKPOST_KILL_SEED (default fixed) the seed;
 * BRICKPOST_KILL_ONLY=NAME,… runs only those scenarios and
 * BRICKPOST_KILL_AT=MS[,MS] one trial with those delays, to reproduce a
 * failure. `npm run soak` runs 200 kills each with a random seed.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { tempDir } from '../support.js';
import { runSeed, stream } from './random.js';
import { ingestTrial, KNOWN, packTrial, type Trial } from './trials.js';
import { buildWorld, type World } from './world.js';

const KILLS = Number(process.env.BRICKPOST_KILLS ?? 50);
const SEED = runSeed();
const SIZE = process.env.BRICKPOST_KILL_SIZE ?? '8M';
const ONLY = process.env.BRICKPOST_KILL_ONLY?.split(',').filter(Boolean);
const AT = process.env.BRICKPOST_KILL_AT?.split(',').filter(Boolean).map(Number);
/** How often a trial kills the recovering run as well. */
const AGAIN = 1 / 2;

const SCENARIOS = {
  pack: ['pack-full', 'pack-incremental', 'pack-set'],
  ingest: ['ingest-full', 'ingest-incremental', 'ingest-set'],
  rollback: ['rollback-incremental'],
} as const;

function report(t: Trial): string {
  return [
    `${t.scenario} trial ${t.index}:`,
    ...t.runs.map((r) => `  ${r}`),
    ...t.problems.map((p) => `  PROBLEM: ${p}`),
    ...t.known.map((p) => `  KNOWN BUG: ${p}`),
  ].join('\n');
}

function reproduce(name: string, t: Trial): string {
  const delays = t.runs
    .map((r) => /SIGKILL at (\d+) ms/.exec(r)?.[1])
    .filter(Boolean)
    .join(',');
  return `reproduce: BRICKPOST_KILL_SEED=${SEED} BRICKPOST_KILL_ONLY=${name} BRICKPOST_KILL_AT=${delays} npx vitest run test/kill-anywhere`;
}

describe(`kill anywhere (seed ${SEED}, ${KILLS} kills per command)`, () => {
  let w: World;
  beforeAll(() => {
    w = buildWorld(tempDir('bp-kill-'), SIZE);
  });

  for (const [command, names] of Object.entries(SCENARIOS)) {
    const per = Math.ceil(KILLS / names.length);
    for (const name of names) {
      const skip = ONLY && !ONLY.includes(name) ? 'not in BRICKPOST_KILL_ONLY' : false;
      test.skipIf(skip)(
        `${name}: ${AT ? `kills at ${AT.join(', ')} ms` : `${per} kills at random points`}${skip ? ` [skipped: ${skip}]` : ''}`,
        async (ctx) => {
          // eslint-disable-next-line prefer-const -- assigned once, in the loop below
          let reference: string[] | undefined;
          const trial = (i: number, delays: number[]): Promise<Trial> =>
            command === 'pack'
              ? packTrial(
                  w,
                  w.pack.find((s) => s.name === name)!,
                  i,
                  delays,
                  reference,
                )
              : ingestTrial(
                  w,
                  w.ingest.find((s) => s.name === name)!,
                  i,
                  delays,
                );
          // The run time T: the quicker of two uninterrupted runs (one alone may be slowed down by a busy machine).
          const refs = [await trial(0, [])];
          reference = refs[0]!.tree;
          refs.push(await trial(0, []));
          for (const ref of refs) assert.deepEqual([...ref.problems, ...ref.known], [], `the uninterrupted run fails its own checks:\n${report(ref)}`);
          const T = Math.min(...refs.map((r) => r.ms));
          const rand = stream(SEED, name);
          const failed: Trial[] = [];
          const known: Trial[] = [];
          let kills = 0;
          let first = 0;
          let trials = 0;
          const started = performance.now();
          // Until enough runs were actually killed (a delay past the end of a run kills nothing); bounded, should runs be too quick to hit.
          while (AT ? trials < 1 : kills < per && trials < per * 3) {
            trials++;
            const delays = AT ?? [Math.floor(rand() * T), ...(rand() < AGAIN ? [Math.floor(rand() * T)] : [])];
            const t = await trial(trials, delays);
            kills += t.kills;
            if (t.kills > 0) first++;
            if (t.problems.length > 0) failed.push(t);
            if (t.known.length > 0) known.push(t);
          }
          void ctx.annotate(
            `${name}: T = ${Math.round(T)} ms; ${kills} kills (${first} of the command, ${kills - first} of the run recovering from a kill) in ${trials} trials, ${Math.round((performance.now() - started) / 1000)} s`,
          );
          // The two engine bugs this harness found (fixed): each has a check of its own.
          const what = command === 'pack' ? `no orphan .part after a kill (${KNOWN.orphanPart})` : `nothing left over in DEST/.brickpost (${KNOWN.stateTmp})`;
          const shown = failed.slice(0, 5).map((t) => `${report(t)}\n  ${reproduce(name, t)}`);
          const shownKnown = known.slice(0, 3).map((t) => `${report(t)}\n  ${reproduce(name, t)}`);
          assert.equal(known.length, 0, `${what}: seed ${SEED}: ${known.length} of ${trials} trials:\n${shownKnown.join('\n')}`);
          assert.equal(failed.length, 0, `seed ${SEED}: ${failed.length} of ${trials} trials failed:\n${shown.join('\n')}`);
          if (!AT) assert.ok(kills >= per, `only ${kills} of ${trials} runs were still running at their kill (T = ${Math.round(T)} ms)`);
        },
      );
    }
  }
});
