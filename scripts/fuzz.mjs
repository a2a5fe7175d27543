#!/usr/bin/env node
// Runs the fuzz targets of packages/manifest and packages/engine (their
// fuzz*.test.ts, through Vitest) far longer than `npm test` does, with a random seed
// unless one is given. Each target stops after --runs cases or --seconds,
// whichever comes first. A failure prints the seed and the counterexample's
// path to replay it:
//
//   npm run fuzz -- --seed S --only "target name" --path "P"
//
// Options: --runs N (default 100000 per target), --seconds N (default 60
// per target), --seed S, --only NAME (the targets whose name contains
// it), --path P, --budget-ms N (per-case time budget, default 200). A
// case that runs for 30 s is a hang: its input is written to the temp
// folder and the run fails.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    only: { type: 'string' },
    path: { type: 'string' },
    'budget-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write('usage: npm run fuzz -- [--runs N] [--seconds N] [--seed S] [--only NAME] [--path P] [--budget-ms N]\n');
  process.exit(0);
}
const seed = values.seed ?? String(randomInt(2 ** 31 - 1));
const files = [
  'packages/manifest/test/fuzz.test.ts',
  'packages/manifest/test/fuzz-signed.test.ts',
  'packages/manifest/test/fuzz-custody.test.ts',
  'packages/engine/test/fuzz.test.ts',
].map((f) => join(root, f));
if (!existsSync(join(root, 'packages', 'engine', 'dist', 'src', 'index.js'))) {
  process.stderr.write('brickpost: error: the workspace is not built; run npx tsc -b first\n');
  process.exit(2);
}
const env = {
  ...process.env,
  BRICKPOST_FUZZ_SEED: seed,
  BRICKPOST_FUZZ_RUNS: values.runs,
  BRICKPOST_FUZZ_SECONDS: values.seconds,
  ...(values.only === undefined ? {} : { BRICKPOST_FUZZ_ONLY: values.only }),
  ...(values.path === undefined ? {} : { BRICKPOST_FUZZ_PATH: values.path }),
  ...(values['budget-ms'] === undefined ? {} : { BRICKPOST_FUZZ_BUDGET_MS: values['budget-ms'] }),
};
process.stderr.write(`brickpost: fuzzing with seed ${seed}, at most ${values.runs} runs or ${values.seconds} s per target (replay: --seed ${seed})\n`);
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', ...files], { stdio: 'inherit', cwd: root, env });
process.stderr.write(`brickpost: fuzzing with seed ${seed} ${r.status === 0 ? 'found nothing' : 'failed'}\n`);
process.exit(r.status ?? 1);
