/**
 * restic, the backup tool a user would pick to put encrypted, deduplicated
 * snapshots on a drive. Settings, chosen to match brickpost's job:
 *
 * - repository on the same local disk as the brickpost "drive", format v2,
 *   compression `auto` (restic's default; zstd at its fastest default level,
 *   the counterpart of zstd -3);
 * - `--no-cache` everywhere: the repository is local, so restic's cache only
 *   duplicates local reads, and the receiver of a drive has no cache for it;
 * - `restic check` (structure only) stands for the key-less verify, though
 *   it needs the password and reads only metadata; `check --read-data` is
 *   the counterpart of `verify --deep`;
 * - the incremental scenario's second pack is a second `backup` of the
 *   source, changed in place, into the same repository (same paths, so
 *   restic finds its parent snapshot; its bytes: what the repository grew
 *   by).
 */
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { sh, versionOf } from '../lib/measure.mjs';

const env = (state) => ({ RESTIC_PASSWORD: 'bench-password', RESTIC_REPOSITORY: state.repo });

export default {
  name: 'restic',
  requires: ['restic'],
  unavailable: () => null,
  describe: () => `${versionOf('restic', ['version'])}; repo v2, compression auto, --no-cache`,
  async setup(ctx) {
    const state = { repo: join(ctx.work, 'repo'), dest: join(ctx.work, 'restore') };
    await mkdir(state.dest, { recursive: true });
    return state;
  },
  ops: {
    pack: (state, ctx) => ({
      label: 'init + backup',
      argv: ['bash', '-c', `set -e; restic init -q --no-cache --repository-version 2; cd ${sh(ctx.src)}; restic backup -q --no-cache .`],
      env: env(state),
      sync: ctx.work,
    }),
    verify: (state) => ({ label: 'check', argv: ['restic', 'check', '-q', '--no-cache'], env: env(state) }),
    'verify-deep': (state) => ({
      label: 'check --read-data',
      argv: ['restic', 'check', '-q', '--no-cache', '--read-data'],
      env: env(state),
    }),
    ingest: (state, ctx) => ({
      label: 'restore',
      argv: ['restic', 'restore', '-q', '--no-cache', 'latest', '--target', state.dest],
      env: env(state),
      sync: ctx.work,
    }),
    'pack-incr': (state, ctx) => ({
      label: 'backup (2nd snapshot)',
      argv: ['bash', '-c', `set -e; cd ${sh(ctx.src)}; restic backup -q --no-cache .`],
      env: env(state),
      sync: ctx.work,
      drive: state.repo,
    }),
  },
  outputs: (state) => ({ drive: state.repo, restored: state.dest, exclude: [] }),
};
