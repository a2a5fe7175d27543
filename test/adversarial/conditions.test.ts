/**
 * Hostile conditions around genuine drives, through the real CLI: two
 * ingests into one destination at once, two packs in one home at once, a
 * replayed older shipment, a shipment of another dataset or publisher, a
 * full destination disk (before and during the ingest), a read error on
 * the drive, a read-only destination, a pack that is a FIFO or a symbolic
 * link, and links planted in the destination that point outside it. Each
 * leaves the destination at its previous tree (digest before == after) or at the new
 * one, never in between, and files outside it that links point at keep
 * their bytes.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CLI, brickpost, diffSnapshots, lastEvent, MAKE_DATASET, makeDataset, publisherAndSubscriber, sh, shipmentDir, snapshot, tempDir } from '../support.js';
import { assertBounded, assertRefused, run, treeDigest } from './harness.js';

const env = { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) };

describe('hostile conditions', () => {
  const root = tempDir('bp-adv-cond-');
  const src = join(root, 'src');
  const v1 = join(root, 'v1');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  const drive1 = join(root, 'drive1');
  const drive2 = join(root, 'drive2');
  /** A bigger source and its shipment, so that a job runs long enough for another to start beside it. */
  const big = join(root, 'big');
  const bigDrive = join(root, 'big-drive');
  /** DEST after shipment 1: each case starts from a copy. */
  const base = join(root, 'dest-base');
  let n = 0;
  const fresh = (): string => {
    const d = join(root, `dest-${++n}`);
    sh('cp', ['-a', base, d]);
    return d;
  };
  const unchanged = (dest: string, digest: string): void => assert.equal(treeDigest(dest, ['.brickpost']), digest, 'DEST is at its previous tree');

  beforeAll(() => {
    makeDataset(src, '6M', 11);
    const recipient = publisherAndSubscriber(pub, sub);
    for (const [d, label] of [
      [drive1, 's1'],
      [drive2, 's2'],
    ] as const) {
      if (label === 's2') {
        sh('cp', ['-a', src, v1]);
        sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '3', '-q']);
      }
      mkdirSync(d);
      const r = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--dataset', 'cond', '--label', label, '--json'], { env });
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
    const r = brickpost(sub, ['ingest', drive1, base, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(snapshot(v1), snapshot(base)), []);
    makeDataset(big, '48M', 12);
    mkdirSync(bigDrive);
    assert.equal(brickpost(pub, ['pack', big, '--to', bigDrive, '--recipient', recipient, '--dataset', 'big']).code, 0);
  });

  /**
   * Starts a brickpost job held at its pausepoint `lock-held` (just after it
   * took its lock) until `release()`; the promise `done` gives its exit code.
   * The second job thus always meets the lock, however fast the first would
   * have finished.
   */
  const startHolding = async (home: string, args: string[], lock: string): Promise<{ done: Promise<number | null>; release: () => void }> => {
    const gate = mkdtempSync(join(root, 'gate-'));
    const p = spawn(process.execPath, [CLI, '--home', home, ...args], { stdio: 'ignore', env: { ...env, BRICKPOST_PAUSE: `lock-held:${gate}` } });
    const done = new Promise<number | null>((resolve) => p.on('close', resolve));
    const exited = done.then(() => 'exited' as const);
    const reached = (async () => {
      while (!existsSync(join(gate, 'lock-held.reached'))) await new Promise((r) => setTimeout(r, 10));
      return 'reached' as const;
    })();
    assert.equal(await Promise.race([reached, exited]), 'reached', 'the first job reaches its lock');
    assert.ok(existsSync(lock), `the first job holds ${lock}`);
    return { done, release: () => writeFileSync(join(gate, 'lock-held.go'), '') };
  };

  test('two ingests into one destination at once: the second refuses with a lock message (exit 7)', async () => {
    const dest = join(root, 'dest-twice');
    const first = await startHolding(sub, ['ingest', bigDrive, dest], join(dest, '.brickpost', 'lock'));
    const second = run(sub, ['ingest', bigDrive, dest]);
    first.release();
    assertRefused(second, { code: 'LOCKED', exit: 7, names: /destination ".*dest-twice" is in use by brickpost process [0-9]+/ });
    assert.equal(await first.done, 0, 'the first ingest completes');
    assert.deepEqual(diffSnapshots(snapshot(big), snapshot(dest)), []);
  });

  test('two packs in one home at once: the second refuses (exit 7) instead of waiting on the catalog', async () => {
    const d1 = join(root, 'busy1');
    const d2 = join(root, 'busy2');
    mkdirSync(d1);
    mkdirSync(d2);
    const first = await startHolding(pub, ['pack', big, '--to', d1, '--dataset', 'busy1'], join(pub, 'pack.lock'));
    const second = run(pub, ['pack', src, '--to', d2, '--dataset', 'busy2']);
    first.release();
    assert.equal(await first.done, 0);
    assertRefused(second, { code: 'LOCKED', exit: 7, names: /is packing in brickpost process [0-9]+/ });
    assert.deepEqual(
      readdirSync(join(d2)).filter((f) => f !== 'brickpost'),
      [],
    );
  });

  for (const [what, plant] of [
    ['a FIFO', (file: string) => sh('mkfifo', [file])],
    ['a symbolic link to a file elsewhere', (file: string) => symlinkSync(join(root, 'v1', readdirSync(join(root, 'v1'))[0]!), file)],
  ] as const) {
    test(`a pack replaced by ${what}: refused at once (exit 1), never read or waited on`, () => {
      const drive = join(root, `drive-${what.split(' ')[1]}`);
      sh('cp', ['-a', drive1, drive]);
      const bag = shipmentDir(drive);
      const pack = join(bag, 'data', 'packs', '000', '000000.age');
      rmSync(pack);
      plant(pack);
      const dest = join(root, `dest-${what.split(' ')[1]}`);
      const o = run(sub, ['ingest', drive, dest], { timeout: 60_000 });
      assertRefused(o, { code: 'MALFORMED', exit: 1, names: /data\/packs\/000\/000000\.age.* is (not a regular file|a symbolic link)/ });
      assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
    });
  }

  test('an older shipment replayed onto a newer destination is refused (exit 6); DEST unchanged', () => {
    const dest = fresh();
    assert.equal(brickpost(sub, ['ingest', drive2, dest]).code, 0);
    const digest = treeDigest(dest, ['.brickpost']);
    assertRefused(run(sub, ['ingest', drive1, dest]), { code: 'CHAIN_REPLAY', exit: 6, names: 'seq 1' });
    unchanged(dest, digest);
  });

  test('a shipment of another dataset, or of another publisher under the same dataset name, is refused (exit 6); DEST unchanged', () => {
    const dest = fresh();
    const digest = treeDigest(dest, ['.brickpost']);
    assertRefused(run(sub, ['ingest', bigDrive, dest]), {
      code: 'DATASET_MISMATCH',
      exit: 6,
      names: /destination holds dataset "cond" \([0-9a-f]{16}\), the drive carries .*"big"/,
    });
    unchanged(dest, digest);
    const other = join(root, 'other-publisher');
    assert.equal(brickpost(other, ['keygen', '--name', 'other']).code, 0);
    const pk = JSON.parse(brickpost(other, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(sub, ['trust', 'add', pk, '--name', 'other']).code, 0);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient;
    const otherDrive = join(root, 'drive-other-publisher');
    mkdirSync(otherDrive);
    assert.equal(brickpost(other, ['pack', v1, '--to', otherDrive, '--recipient', recipient, '--dataset', 'cond'], { env }).code, 0);
    const differs = assertRefused(run(sub, ['ingest', otherDrive, dest]), {
      code: 'DATASET_MISMATCH',
      exit: 6,
      names:
        /^the publisher differs: destination holds dataset "cond" \([0-9a-f]{16}\) from publisher key (\S+); the drive carries "cond" \([0-9a-f]{16}\) signed by publisher key (\S+)$/,
    });
    const keys = /from publisher key (\S+);.* signed by publisher key (\S+)$/.exec(differs.message)!;
    assert.notEqual(keys[1], keys[2]);
    const trusted = JSON.parse(brickpost(sub, ['trust', 'list', '--json']).stdout) as Array<{ keyId: string }>;
    for (const k of [keys[1], keys[2]])
      assert.ok(
        trusted.some((t) => t.keyId === k),
        `${k} is listed by trust list`,
      );
    assert.match(differs.hint, /^'brickpost trust list' names both keys/);
    unchanged(dest, digest);
  });

  test('an old genuine drive cannot start a new destination behind what this home applied (exit 6) unless --allow-older', () => {
    const newer = fresh();
    assert.equal(brickpost(sub, ['ingest', drive2, newer]).code, 0);
    const dest = join(root, 'dest-rolled-back');
    assertRefused(run(sub, ['ingest', drive1, dest]), {
      code: 'CHAIN_REPLAY',
      exit: 6,
      names: /is seq 1 of dataset "cond", older than seq 2 this home applied/,
    });
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
    assert.equal(brickpost(sub, ['ingest', drive1, dest, '--allow-older']).code, 0);
    assert.deepEqual(diffSnapshots(snapshot(v1), snapshot(dest)), []);
  });

  test('the destination fills up during the ingest: exit 5, DEST at its previous tree; the next run applies', () => {
    const dest = fresh();
    const digest = treeDigest(dest, ['.brickpost']);
    const o = run(sub, ['ingest', drive2, dest], { env: { ...process.env, BRICKPOST_FAILPOINT: 'stage-write@3' } });
    assertRefused(o, { code: 'NO_SPACE', exit: 5, names: 'no space left on device' });
    unchanged(dest, digest);
    assert.equal(
      existsSync(join(dest, '.brickpost', 'staging')) && readdirSync(join(dest, '.brickpost', 'staging')).length > 0,
      false,
      'no staged files are left',
    );
    assert.equal(brickpost(sub, ['ingest', drive2, dest]).code, 0);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('a read error on the drive (EIO): exit 5 naming the pack, DEST at its previous tree', () => {
    const dest = fresh();
    const digest = treeDigest(dest, ['.brickpost']);
    const o = run(sub, ['ingest', drive2, dest], { env: { ...process.env, BRICKPOST_FAILPOINT: 'drive-read@1' } });
    assertRefused(o, { code: 'IO', exit: 5, names: /cannot read pack data\/packs\/000\/0000[0-9]{2}\.age/ });
    unchanged(dest, digest);
  });

  const mounted: string[] = [];
  afterAll(() => {
    for (const m of mounted) spawnSync('umount', [m]);
  });
  const tiny = ((): string | null => {
    if (process.getuid?.() !== 0) return 'needs root to mount a small file system';
    const m = join(root, 'tiny');
    mkdirSync(m);
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', m]);
    if (r.status !== 0) return `cannot mount a tmpfs here: ${String(r.stderr).trim()}`;
    mounted.push(m);
    return null;
  })();

  test.skipIf(tiny)(`a destination disk too small: refused before anything is written (exit 5)${tiny ? ` [skipped: ${tiny}]` : ''}`, () => {
    const dest = join(root, 'tiny', 'dest');
    const o = run(sub, ['ingest', bigDrive, dest]);
    assertRefused(o, { code: 'NO_SPACE', exit: 5, names: /needs? .*bytes|no space|free/ });
    assert.deepEqual(existsSync(dest) ? readdirSync(dest).filter((f) => f !== '.brickpost') : [], []);
  });

  test('a read-only destination: exit 5, nothing changed', () => {
    const dest = fresh();
    const digest = treeDigest(dest, ['.brickpost']);
    const whole = treeDigest(dest);
    // Every folder read-only; their modes are put back as they were afterwards.
    const modes = new Map<string, number>();
    const walk = (d: string): void => {
      modes.set(d, statSync(d).mode & 0o7777);
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
    };
    walk(dest);
    const lockDown = (mode: number | null): void => {
      for (const [d, m] of modes) chmodSync(d, mode ?? m);
    };
    lockDown(0o555);
    try {
      // As root, permissions do not bind: run brickpost as nobody, with a home nobody owns.
      let o;
      if (process.getuid?.() === 0) {
        const home = join(root, 'nobody-home');
        cpSync(sub, home, { recursive: true });
        sh('chown', ['-R', '65534:65534', home]);
        chmodSync(root, 0o755);
        o = run(home, ['ingest', drive2, dest], { uid: 65534, gid: 65534 });
      } else {
        o = run(sub, ['ingest', drive2, dest]);
      }
      assertRefused(o, { code: 'PERMISSION', exit: 5, names: 'permission denied' });
    } finally {
      lockDown(null);
    }
    unchanged(dest, digest);
    assert.equal(treeDigest(dest), whole, 'not even .brickpost changed');
  });

  /** A file of DEST that shipment 2 changes, and a folder holding one. */
  const changedFile = (): string => {
    const a = snapshot(v1);
    const b = snapshot(src);
    const p = [...b].find(([path, node]) => node.type === 'file' && a.get(path)?.type === 'file' && a.get(path)?.sha256 !== node.sha256 && path.includes('/'));
    assert.ok(p, 'shipment 2 changes a file in a folder');
    return p[0];
  };

  test('a folder of DEST replaced by a symlink to outside: the ingest does not write through it', () => {
    const dest = fresh();
    const rel = changedFile();
    const folder = rel.slice(0, rel.lastIndexOf('/'));
    const outside = join(root, 'outside-folder');
    cpSync(join(dest, folder), outside, { recursive: true });
    const before = treeDigest(outside);
    rmSync(join(dest, folder), { recursive: true });
    symlinkSync(outside, join(dest, folder));
    const o = run(sub, ['ingest', drive2, dest]);
    assertBounded(o);
    assert.equal(treeDigest(outside), before, 'nothing was written outside DEST through the link');
    if (o.code === 0) assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), [], 'DEST is the new tree, the link replaced');
    else assert.ok([1, 4, 5, 6].includes(o.code), `refused with ${lastEvent({ code: o.code, stdout: o.stdout, stderr: o.stderr }).code}`);
  });

  test('a file of DEST hard-linked to a file outside: the ingest replaces it, the outside file keeps its bytes', () => {
    const dest = fresh();
    const rel = changedFile();
    const outside = join(root, 'outside-file');
    cpSync(join(dest, rel), outside);
    const before = spawnSync('sha256sum', [outside], { encoding: 'utf8' }).stdout;
    renameSync(join(dest, rel), `${join(dest, rel)}.gone`);
    rmSync(`${join(dest, rel)}.gone`);
    linkSync(outside, join(dest, rel));
    const o = run(sub, ['ingest', drive2, dest]);
    assertBounded(o);
    assert.equal(spawnSync('sha256sum', [outside], { encoding: 'utf8' }).stdout, before, 'the linked file outside DEST is unchanged');
    if (o.code === 0) assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });
});
