/**
 * How the benchmarks start brickpost: as a user's `brickpost` command starts
 * it, with the Node flags of apps/cli/bin/brickpost.js's shebang line (run
 * through `env -S`), but with the Node running the bench.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The launcher, apps/cli/bin/brickpost.js. */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'brickpost.js');

/** The Node flags the launcher's shebang gives (`#!/usr/bin/env -S node FLAG…`). */
export function nodeFlags(cli = CLI) {
  const first = readFileSync(cli, 'utf8').split('\n', 1)[0];
  const m = /^#!\S*env -S node(?: (.*))?$/.exec(first);
  return m?.[1] ? m[1].trim().split(/\s+/) : [];
}

/** argv that runs the launcher `cli` as its shebang would: [node, …flags, cli]. */
export function cliArgv(cli = CLI) {
  return [process.execPath, ...nodeFlags(cli), cli];
}
