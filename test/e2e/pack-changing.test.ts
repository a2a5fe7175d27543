/**
 * A source file that changes while pack reads it, on both reading paths
 * (the native core and BRICKPOST_NATIVE=0). Pack is held at the
 * `pack-file-read` pausepoint after each read of the file, before its
 * consistency check, and the test changes the file there (a new mtime set
 * explicitly each time, so the change never hides in one clock tick): once
 * (the re-read settles and the drive holds the new content), at every read
 * (pack fails naming the file, exit 5, nothing sealed), and at every read
 * with --allow-changing (shipped as last read, marked `changing`). Nothing
 * waits on the clock: each step waits for the file the pausepoint writes.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, CLI, errorEvent, tempDir, type Run } from '../support.js';

/** Runs pack held at each read of the source's file; `change(k)` changes it (or not) before the K-th check. */
async function packChanging(home: string, args: string[], env: NodeJS.ProcessEnv, change: (k: number) => void): Promise<Run & { reads: number }> {
  const gate = mkdtempSync(join(home, '..', 'gate-'));
  const p = spawn(process.execPath, [CLI, '--home', home, 'pack', ...args], { env: { ...env, BRICKPOST_PAUSE: `pack-file-read*:${gate}` } });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const done = new Promise<number | null>((resolve) => p.on('close', (code) => ((exited = true), resolve(code))));
  let k = 1;
  for (;;) {
    const reached = join(gate, `pack-file-read.${k}.reached`);
    while (!existsSync(reached) && !exited) await new Promise((r) => setTimeout(r, 10));
    if (!existsSync(reached)) break;
    change(k);
    writeFileSync(join(gate, `pack-file-read.${k}.go`), '');
    k++;
  }
  return { code: (await done) ?? -1, stdout, stderr, reads: k - 1 };
}

for (const [path, env] of [
  ['native core', { ...process.env, BRICKPOST_NATIVE: '1' }],
  ['TypeScript path', { ...process.env, BRICKPOST_NATIVE: '0' }],
] as const) {
  for (const size of [4096, 9 << 20]) {
    describe(`a file of ${size} bytes changing while packed (${path})`, () => {
      const root = tempDir();
      const home = join(root, 'home');
      assert.equal(brickpost(home, ['keygen', '--name', 'lab']).code, 0);
      let n = 0;
      /** A fresh source with one file, and an empty drive. */
      const setup = (): { src: string; file: string; drive: string } => {
        n++;
        const src = join(root, `src${n}`);
        const drive = join(root, `drive${n}`);
        mkdirSync(join(src, 'logs'), { recursive: true });
        mkdirSync(drive);
        const file = join(src, 'logs', 'run.log');
        writeFileSync(file, Buffer.alloc(size, 'a'));
        utimesSync(file, 1_700_000_000, 1_700_000_000);
        return { src, file, drive };
      };
      /** Rewrites the file in place, same size, with content `c` and an mtime of its own. */
      const rewrite = (file: string, c: string, k: number): void => {
        writeFileSync(file, Buffer.alloc(size, c));
        utimesSync(file, 1_700_000_000 + k, 1_700_000_000 + k);
      };
      const cat = (drive: string): Buffer =>
        spawnSync(process.execPath, [CLI, '--home', home, 'cat', drive, 'logs/run.log'], { maxBuffer: 64 << 20, env }).stdout;

      test('changed once: read again, and the drive holds the new content', async () => {
        const { src, file, drive } = setup();
        const r = await packChanging(home, [src, '--to', drive, '--dataset', `once${n}`], env, (k) => k === 1 && rewrite(file, 'b', k));
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.reads, 2, 'one read, one re-read');
        assert.doesNotMatch(r.stderr, /CHANGED|changing/);
        assert.ok(cat(drive).equals(Buffer.alloc(size, 'b')), 'the content of the second read');
        const v = brickpost(home, ['verify', '--deep', drive], { env });
        assert.equal(v.code, 0, v.stdout + v.stderr);
        const ls = JSON.parse(
          brickpost(home, ['ls', drive, '--json'], { env })
            .stdout.trim()
            .split('\n')
            .find((l) => l.includes('run.log'))!,
        );
        assert.equal(ls.changing, undefined);
      });

      test('changing at every read: pack fails naming it (exit 5), nothing sealed', async () => {
        const { src, file, drive } = setup();
        const r = await packChanging(home, [src, '--to', drive, '--dataset', `never${n}`, '--json'], env, (k) => rewrite(file, String.fromCharCode(98 + k), k));
        assert.equal(r.code, 5, r.stderr);
        assert.equal(r.reads, 3);
        const e = errorEvent(r);
        assert.equal(e.code, 'SOURCE_CHANGING');
        assert.match(e.message, /1 file of ".*" kept changing while being packed \(read 3 times each\): "logs\/run\.log" was modified while being read/);
        assert.match(e.hint, /--allow-changing/);
        const bags = readdirSync(join(drive, 'brickpost')).filter((x) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(x));
        assert.deepEqual(bags, [], 'no shipment on the drive');
      });

      test('changing at every read with --allow-changing: shipped as last read, marked', async () => {
        const { src, file, drive } = setup();
        const r = await packChanging(home, [src, '--to', drive, '--dataset', `allow${n}`, '--allow-changing'], env, (k) =>
          rewrite(file, String.fromCharCode(98 + k), k),
        );
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.reads, 3);
        assert.match(
          r.stderr,
          /warning: "logs\/run\.log" was modified while being read \(its mtime changed\), and did not settle in 3 reads; shipped as last read, marked as changing/,
        );
        assert.match(r.stderr, /1 file kept changing while read and shipped as last read/);
        assert.ok(cat(drive).equals(Buffer.alloc(size, 'd')), 'what the third read gave (changed to d before it, to e after it)');
        const ls = brickpost(home, ['ls', '-l', drive], { env });
        assert.match(ls.stdout, /logs\/run\.log {2}\(changing while packed\)$/m);
        const entry = JSON.parse(
          brickpost(home, ['ls', drive, '--json'], { env })
            .stdout.trim()
            .split('\n')
            .find((l) => l.includes('run.log'))!,
        );
        assert.equal(entry.changing, true);
        const v = brickpost(home, ['verify', '--deep', drive], { env });
        assert.equal(v.code, 0, v.stdout + v.stderr);
      });
    });
  }
}

describe('pack --snapshot off btrfs', () => {
  test('refused (exit 2), naming the file system the source is on; nothing written', () => {
    const root = tempDir();
    const home = join(root, 'home');
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(src);
    mkdirSync(drive);
    writeFileSync(join(src, 'a.txt'), 'a');
    assert.equal(brickpost(home, ['keygen', '--name', 'lab']).code, 0);
    const fsType = spawnSync('stat', ['-f', '-c', '%T', src], { encoding: 'utf8' }).stdout.trim();
    const r = brickpost(home, ['pack', src, '--to', drive, '--snapshot']);
    if (fsType === 'btrfs') return assert.notEqual(r.code, 2, 'on btrfs the snapshot is attempted');
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /brickpost: error: pack --snapshot: ".*src" is on a \S+ file system \(".*" mounted at ".*"\); brickpost takes snapshots on btrfs only/,
    );
    assert.match(r.stderr, /brickpost: hint: pack without --snapshot/);
    assert.deepEqual(readdirSync(drive), []);
  });
});
