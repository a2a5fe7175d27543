/**
 * rustic, restic's repository format in Rust (multi-threaded, zstd), the
 * fourth peer: a user who wants restic's model at native speed picks it.
 * Settings as for restic: repository on the same disk, compression at its
 * default (zstd level 3), no cache.
 *
 * pack         rustic init + rustic backup .   (in SRC)
 * verify       rustic check                    (structure, metadata only)
 * verify-deep  rustic check --read-data
 * ingest       rustic restore latest DEST
 * pack-incr    rustic backup .                 (second snapshot, same repository)
 *
 * It is found on PATH, in ~/.cargo/bin or in bench/.cache/cargo/bin; where
 * it is missing and cargo is there, the bench installs it once with
 * `cargo install rustic-rs --locked --root bench/.cache/cargo` (several
 * minutes); without cargo the tool is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sh, versionOf } from '../lib/measure.mjs';

const env = (state) => ({ RUSTIC_PASSWORD: 'bench-password', RUSTIC_REPOSITORY: state.repo });
const common = ['--no-cache', '--no-progress', '--log-level', 'warn'];

function cargoBin() {
  for (const c of ['cargo', join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin', 'cargo')]) {
    if (spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0) return c;
  }
  return null;
}

/** The rustic binary, installing it with cargo when it is missing; null and why when it cannot be had. */
function findRustic(ctx) {
  const local = join(ctx.repoRoot, 'bench', '.cache', 'cargo', 'bin', 'rustic');
  for (const c of ['rustic', join(homedir(), '.cargo', 'bin', 'rustic'), local]) {
    if (spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0) return { bin: c };
  }
  const cargo = cargoBin();
  if (!cargo) return { why: 'cargo not found, so rustic (cargo install rustic-rs) is not benchmarked' };
  process.stderr.write('bench: rustic: installing it with cargo install rustic-rs --locked (once; several minutes) ...\n');
  const r = spawnSync(cargo, ['install', 'rustic-rs', '--locked', '--root', join(ctx.repoRoot, 'bench', '.cache', 'cargo')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0 || !existsSync(local)) return { why: `cargo install rustic-rs failed (exit ${r.status})` };
  return { bin: local };
}

let found = null;

export default {
  name: 'rustic',
  requires: [],
  unavailable(ctx) {
    found ??= findRustic(ctx);
    return found.bin ? null : found.why;
  },
  describe: (ctx) => {
    found ??= findRustic(ctx);
    return found.bin ? `${versionOf(found.bin, ['--version'])}; compression default (zstd 3), --no-cache` : '?';
  },
  async setup(ctx) {
    const state = { bin: found.bin, repo: join(ctx.work, 'repo'), dest: join(ctx.work, 'restore') };
    await mkdir(state.dest, { recursive: true });
    return state;
  },
  ops: {
    pack: (state, ctx) => ({
      label: 'init + backup',
      argv: ['bash', '-c', `set -e; ${sh(state.bin)} ${common.join(' ')} init; cd ${sh(ctx.src)}; ${sh(state.bin)} ${common.join(' ')} backup .`],
      env: env(state),
      sync: ctx.work,
    }),
    verify: (state) => ({ label: 'check', argv: [state.bin, ...common, 'check'], env: env(state) }),
    'verify-deep': (state) => ({ label: 'check --read-data', argv: [state.bin, ...common, 'check', '--read-data'], env: env(state) }),
    ingest: (state, ctx) => ({
      label: 'restore',
      argv: [state.bin, ...common, 'restore', 'latest', state.dest],
      env: env(state),
      sync: ctx.work,
    }),
    'pack-incr': (state, ctx) => ({
      label: 'backup (2nd snapshot)',
      argv: ['bash', '-c', `set -e; cd ${sh(ctx.src)}; ${sh(state.bin)} ${common.join(' ')} backup .`],
      env: env(state),
      sync: ctx.work,
      drive: state.repo,
    }),
  },
  outputs: (state) => ({ drive: state.repo, restored: state.dest, exclude: [] }),
};
