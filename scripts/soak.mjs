#!/usr/bin/env node
// Soak run of the kill-anywhere harness (test/kill-anywhere): pack and ingest
// SIGKILLed at 200 random points each (BRICKPOST_KILLS), with a random seed
// (BRICKPOST_KILL_SEED to repeat one), printed before and after the run so a
// failure reproduces; and the errno sweep (test/fault/errno-sweep.test.ts):
// every call of pack, verify, ingest, rollback, repair and extract failed
// with an errno (BRICKPOST_FAULT_SWEEP=calls, or all for every errno at every
// call). Runs through Vitest; extra arguments are passed to `vitest run`.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seed = process.env.BRICKPOST_KILL_SEED || String(randomInt(2 ** 47));
const kills = process.env.BRICKPOST_KILLS || '200';
const again = `BRICKPOST_KILL_SEED=${seed} BRICKPOST_KILLS=${kills} npm run soak`;
console.error(`brickpost soak: seed ${seed}, ${kills} kills per command (to repeat: ${again})`);
const started = Date.now();
const sweep = process.env.BRICKPOST_FAULT_SWEEP || 'calls';
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(
  process.execPath,
  [vitest, 'run', ...process.argv.slice(2), join(root, 'test', 'kill-anywhere'), join(root, 'test', 'fault', 'errno-sweep.test.ts')],
  {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, BRICKPOST_KILL_SEED: seed, BRICKPOST_KILLS: kills, BRICKPOST_FAULT_SWEEP: sweep },
  },
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
if (r.status === 0) console.error(`brickpost soak: passed in ${minutes} min (seed ${seed})`);
else console.error(`brickpost soak: error: failed after ${minutes} min with seed ${seed}; to repeat: ${again}`);
process.exit(r.status ?? 1);
