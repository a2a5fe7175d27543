#!/usr/bin/env node
// Runs the whole suite with Node's test runner over the compiled tests of
// every workspace. Extra arguments are passed to `node --test` (for example
// --test-name-pattern). Set BRICKPOST_TEST_ONLY=path1,path2 to run a subset.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dirs = process.env.BRICKPOST_TEST_ONLY
  ? process.env.BRICKPOST_TEST_ONLY.split(',')
  : ['packages/manifest/dist/test', 'packages/posix/dist/test', 'packages/engine/dist/test', 'apps/cli/dist/test', 'test/dist'];
const targets = dirs.map((d) => join(root, d)).filter((d) => existsSync(d));
// A test file that hangs fails after 30 minutes instead of stalling the run
// (a guard against hangs only: the longest file takes a few minutes on an idle
// machine, several times that on a loaded one).
const args = ['--test', '--test-concurrency=2', '--test-timeout=1800000', ...process.argv.slice(2), ...targets];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
