/**
 * The do-it-yourself baseline: one tar stream, compressed by zstd at level 3
 * on all cores, encrypted by age to an X25519 recipient.
 *
 * pack         tar -cf - -C SRC . | zstd -T0 -3 | age -r AGE1 > out.tar.zst.age
 * verify       none without the key (the stream carries no signature)
 * verify-deep  age -d -i KEY out | zstd -t     (zstd checks its frame checksums)
 * ingest       age -d -i KEY out | zstd -d | tar -xf - -C DEST
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { sh, versionOf } from '../lib/measure.mjs';

const PIPEFAIL = 'set -euo pipefail; ';

export default {
  name: 'pipeline',
  requires: ['tar', 'zstd', 'age', 'age-keygen'],
  unavailable: () => null,
  describe: () => {
    const zstd = /v\d+\.\d+\.\d+/.exec(versionOf('zstd', ['-V']) ?? '')?.[0] ?? '?';
    return `${versionOf('tar')}, zstd ${zstd} -T0 -3, age ${versionOf('age')}`;
  },
  async setup(ctx) {
    const state = { out: join(ctx.work, 'drive'), key: join(ctx.work, 'key.txt'), dest: join(ctx.work, 'extract') };
    await mkdir(state.out, { recursive: true });
    await mkdir(state.dest, { recursive: true });
    const kg = spawnSync('age-keygen', ['-o', state.key], { encoding: 'utf8' });
    if (kg.status !== 0) throw new Error(`age-keygen failed: ${kg.stderr}`);
    state.recipient = spawnSync('age-keygen', ['-y', state.key], { encoding: 'utf8' }).stdout.trim();
    state.file = join(state.out, 'data.tar.zst.age');
    return state;
  },
  ops: {
    pack: (state, ctx) => ({
      label: 'tar|zstd|age',
      argv: ['bash', '-c', PIPEFAIL + `tar -cf - -C ${sh(ctx.src)} . | zstd -q -T0 -3 | age -r ${sh(state.recipient)} > ${sh(state.file)}`],
      sync: ctx.work,
    }),
    'verify-deep': (state) => ({
      label: 'age -d|zstd -t',
      argv: ['bash', '-c', PIPEFAIL + `age -d -i ${sh(state.key)} ${sh(state.file)} | zstd -q -t`],
    }),
    ingest: (state, ctx) => ({
      label: 'age -d|zstd -d|tar -x',
      argv: ['bash', '-c', PIPEFAIL + `age -d -i ${sh(state.key)} ${sh(state.file)} | zstd -q -d -c | tar -xf - -C ${sh(state.dest)}`],
      sync: ctx.work,
    }),
  },
  outputs: (state) => ({ drive: state.out, restored: state.dest, exclude: [] }),
};
