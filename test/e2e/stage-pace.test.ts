/**
 * The native stage writer asks for syncs of DEST's file system as it goes
 * (stage.rs, Pacer): every 8,192 small files or 32 MiB, a thread of its own
 * calls syncfs(2), so the disk writes while the files are made and the sync
 * before the commit finds little left. Seen with strace: syncfs calls made
 * by the brickpost process itself (the commit's syncs run `sync -f`, another
 * process), and the tree still arrives byte for byte.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadNative } from '@brickpost/native';
import { CLI, brickpost, diffSnapshots, hasTool, publisherAndSubscriber, snapshot, tempDir } from '../support.js';

const native = loadNative();
// As in native-path.test.ts: optional where Rust is not installed or the core is switched off; a core that failed to build fails here.
const optionalAbsent = native.binding === null && (native.disabled || native.reason?.startsWith('cargo not found') === true);
const why = optionalAbsent
  ? `no native core here (${native.reason})`
  : process.platform !== 'linux'
    ? 'syncfs is Linux only'
    : hasTool('strace', ['-V'])
      ? null
      : 'strace is not installed (it sees the syncs)';

describe.skipIf(why)(`the stage writer syncs as it goes${why ? ` [skipped: ${why}]` : ''}`, () => {
  test('an ingest of 12,000 small files: syncfs from the process itself while staging, and the tree byte for byte', () => {
    const root = tempDir('bp-stage-pace-');
    const src = join(root, 'src');
    const pub = join(root, 'pub');
    const sub = join(root, 'sub');
    const drive = join(root, 'drive');
    const dest = join(root, 'dest');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(src, `d${d}`), { recursive: true });
      for (let f = 0; f < 300; f++) writeFileSync(join(src, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`.repeat(1 + (f % 7)));
    }
    const recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(drive);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'pace']);
    assert.equal(p.code, 0, p.stdout + p.stderr);
    const log = join(root, 'strace.log');
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=syncfs,execve', '-o', log, process.execPath, CLI, '--home', sub, 'ingest', drive, dest], {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, BRICKPOST_NATIVE: '1' },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const lines = readFileSync(log, 'utf8').split('\n');
    // The processes that ran `sync` (the commit's syncs); every other syncfs is the brickpost process's own.
    const syncPids = new Set(lines.filter((l) => /execve\("[^"]*\/sync"/.test(l)).map((l) => l.split(' ')[0]));
    const own = lines.filter((l) => /\bsyncfs\(/.test(l) && !syncPids.has(l.split(' ')[0]));
    assert.ok(syncPids.size > 0, 'the commit synced through `sync -f`');
    assert.ok(own.length >= 1, `the stage writer asked for a sync while staging 12,000 files:\n${lines.filter((l) => l.includes('syncfs')).join('\n')}`);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'DEST is the source');
  });
});
