#!/usr/bin/env node
// Runs the whole suite with Vitest (vitest.config.ts: one project per
// package and per folder of test/, two files at a time) over the TypeScript
// tests, against the built workspace (`tsc -b` first; `npm test` does it).
// Extra arguments are passed to `vitest run` (for example -t 'name part').
// Set BRICKPOST_TEST_ONLY=path1,path2 to run a subset: files or folders, as
// sources (test/e2e, packages/engine/test/x.test.ts) or as the compiled paths
// of earlier releases (test/dist/e2e, packages/engine/dist/test).
// The run ends with the counts CI reads (# tests, # pass, # fail, # skipped).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A source path for `p`, which may be a compiled one (X/dist/test/a.test.js, test/dist/A). */
export function sourcePath(p) {
  return p
    .trim()
    .replace(/^\.\//, '')
    .replace(/\/$/, '')
    .replace(/^test\/dist(\/|$)/, 'test$1')
    .replace(/^(.+)\/dist\/test(\/|$)/, '$1/test$2')
    .replace(/\.test\.js$/, '.test.ts');
}

const only = (process.env.BRICKPOST_TEST_ONLY ?? '').split(',').filter((p) => p.trim() !== '');
const filters = [];
for (const p of only.map(sourcePath)) {
  const abs = join(root, p);
  if (existsSync(abs)) filters.push(abs);
  else process.stderr.write(`brickpost: ${p} (BRICKPOST_TEST_ONLY) does not exist here: left out\n`);
}
if (only.length > 0 && filters.length === 0) {
  process.stderr.write('brickpost: error: none of the paths in BRICKPOST_TEST_ONLY exists\n');
  process.exit(2);
}
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2), ...filters], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
