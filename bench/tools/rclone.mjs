/**
 * rclone, what a user would pick to move a bucket's objects to and from a
 * disk, for the s3 scenario: `rclone copy` with its defaults, the remote
 * given on the command line (`:s3:`) and its settings in RCLONE_S3_*.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { versionOf } from '../lib/measure.mjs';
import { sameTree } from '../scenarios/s3.mjs';

export default {
  name: 'rclone',
  requires: ['rclone'],
  scenarios: ['s3'],
  unavailable: (ctx) => (ctx.s3 ? null : 'the s3 scenario did not start its server'),
  describe: () => `${versionOf('rclone', ['version']).split('\n')[0]}; rclone copy, 4 transfers`,
  async setup(ctx) {
    const state = { local: join(ctx.work, 'local') };
    await mkdir(state.local, { recursive: true });
    return state;
  },
  ops: {
    's3-pack': (state, ctx) => ({
      label: 'copy bucket -> folder',
      argv: ['rclone', 'copy', ':s3:bench-src/ds', state.local],
      env: ctx.s3.rcloneEnv,
      sync: ctx.work,
      drive: state.local,
      check: () => sameTree(ctx, state.local),
    }),
    's3-ingest': (state, ctx) => ({
      label: 'copy folder -> bucket',
      argv: ['rclone', 'copy', state.local, ':s3:bench-dst/rclone'],
      env: ctx.s3.rcloneEnv,
      check: () => sameTree(ctx, join(ctx.s3.root, 'bench-dst', 'rclone')),
    }),
  },
  outputs: (state) => ({ drive: state.local, restored: null, exclude: [] }),
};
