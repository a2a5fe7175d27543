/**
 * BorgBackup, the other common choice for encrypted, deduplicated archives
 * on a drive. Settings, chosen to match brickpost's job:
 *
 * - `borg init --encryption=repokey-blake2`: authenticated encryption
 *   (AES-256-CTR + keyed BLAKE2b), the key in the repository behind a
 *   passphrase, as brickpost encrypts every pack;
 * - `--compression zstd,3` instead of borg's default lz4, to compress like
 *   brickpost and the pipeline do;
 * - BORG_BASE_DIR in the work folder, so the cache and security folders
 *   start empty and are cleaned up; borg is single-threaded by design;
 * - `check --repository-only` (segment CRCs, no key) stands for the key-less
 *   verify; `check --verify-data` (decrypt and check every chunk) for
 *   `verify --deep`;
 * - the incremental scenario's second pack is a second archive of the
 *   source, changed in place, in the same repository (same paths, so its
 *   files cache applies; its bytes: what the repository grew by).
 */
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { versionOf } from '../lib/measure.mjs';

const env = (state) => ({
  BORG_PASSPHRASE: 'bench-password',
  BORG_REPO: state.repo,
  BORG_BASE_DIR: state.base,
  BORG_RELOCATED_REPO_ACCESS_IS_OK: 'yes',
});

export default {
  name: 'borg',
  requires: ['borg'],
  unavailable: () => null,
  describe: () => `${versionOf('borg')}; repokey-blake2, zstd,3`,
  async setup(ctx) {
    const state = { repo: join(ctx.work, 'repo'), base: join(ctx.work, 'base'), dest: join(ctx.work, 'extract') };
    await mkdir(state.base, { recursive: true });
    await mkdir(state.dest, { recursive: true });
    return state;
  },
  ops: {
    pack: (state, ctx) => ({
      label: 'init + create',
      argv: ['bash', '-c', 'set -e; borg init --encryption=repokey-blake2; borg create --compression zstd,3 ::bench .'],
      cwd: ctx.src,
      env: env(state),
      sync: ctx.work,
    }),
    verify: (state) => ({ label: 'check --repository-only', argv: ['borg', 'check', '--repository-only'], env: env(state) }),
    'verify-deep': (state) => ({ label: 'check --verify-data', argv: ['borg', 'check', '--verify-data'], env: env(state) }),
    ingest: (state, ctx) => ({
      label: 'extract',
      argv: ['borg', 'extract', '::bench'],
      cwd: state.dest,
      env: env(state),
      sync: ctx.work,
    }),
    'pack-incr': (state, ctx) => ({
      label: 'create (2nd archive)',
      argv: ['borg', 'create', '--compression', 'zstd,3', '::bench2', '.'],
      cwd: ctx.src,
      env: env(state),
      sync: ctx.work,
      drive: state.repo,
    }),
  },
  outputs: (state) => ({ drive: state.repo, restored: state.dest, exclude: [] }),
};
