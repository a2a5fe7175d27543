/**
 * Crash safety of ingest: the process is SIGKILLed at random moments; after
 * every kill the destination holds no partial file under a final name (each
 * visible file is complete and correct), and running ingest again finishes
 * the job with a tree identical to the source.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, CLI, diffSnapshots, makeDataset, snapshot, tempDir } from '../support.js';

const KILLS = Number(process.env.BRICKPOST_KILLS ?? 8);

describe('ingest killed at random points', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const drive = join(root, 'drive');
  const home = join(root, 'home');
  let full = 0;

  beforeAll(() => {
    makeDataset(src, '30M', 11);
    mkdirSync(drive);
    assert.equal(brickpost(home, ['keygen']).code, 0);
    assert.equal(brickpost(home, ['pack', src, '--to', drive]).code, 0);
    const t0 = performance.now();
    assert.equal(brickpost(home, ['ingest', drive, join(root, 'timing')]).code, 0);
    full = performance.now() - t0;
  });

  test(`${KILLS} kills, then a re-run completes`, async () => {
    const want = snapshot(src);
    // Deterministic spread of kill points over the whole run, commit included.
    for (let k = 0; k < KILLS; k++) {
      const dest = join(root, `dest-${k}`);
      const delay = Math.round(full * (0.1 + (0.95 * k) / KILLS));
      const child = spawn(process.execPath, [CLI, '--home', home, '--quiet', 'ingest', drive, dest], { stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      await exited;
      clearTimeout(timer);
      if (existsSync(dest)) {
        const seen = snapshot(dest);
        for (const [path, node] of seen) {
          const w = want.get(path);
          assert.ok(w, `kill ${k} at ${delay} ms: ${path} is not in the source`);
          if (node.type === 'file') assert.equal(node.sha256, w.sha256, `kill ${k} at ${delay} ms: ${path} is visible but incomplete`);
        }
      }
      const again = brickpost(home, ['ingest', drive, dest]);
      assert.equal(again.code, 0, `re-run after kill ${k} at ${delay} ms: ${again.stderr}`);
      assert.deepEqual(diffSnapshots(want, snapshot(dest)), [], `after kill ${k} at ${delay} ms`);
      rmSync(dest, { recursive: true, force: true });
    }
  });

  test('pack killed at random points leaves no shipment that passes for complete', async () => {
    const t0 = performance.now();
    const probe = join(root, 'probe-drive');
    mkdirSync(probe);
    assert.equal(brickpost(home, ['pack', src, '--to', probe]).code, 0);
    const packTime = performance.now() - t0;
    for (let k = 0; k < 4; k++) {
      const d = join(root, `pack-drive-${k}`);
      mkdirSync(d);
      const delay = Math.round(packTime * (0.2 + 0.25 * k));
      const child = spawn(process.execPath, [CLI, '--home', home, '--quiet', 'pack', src, '--to', d], { stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const code = await exited;
      clearTimeout(timer);
      const v = brickpost(home, ['verify', d]);
      if (code === 0) assert.equal(v.code, 0, `pack finished before the kill at ${delay} ms, and its shipment verifies`);
      // Killed after the sealed shipment was renamed into place (while the catalog is tidied), the drive holds a complete one.
      else
        assert.ok(
          v.code === 2 || v.code === 0,
          `killed at ${delay} ms: the drive holds no shipment, or only a complete one that verifies (exit ${v.code}: ${v.stderr.trim()})`,
        );
      const again = brickpost(home, ['pack', src, '--to', d]);
      assert.equal(again.code, 0, again.stderr);
    }
  });
});
