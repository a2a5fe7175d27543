/**
 * What "never a mix" means, through the real CLI: an ingest or rollback
 * killed half way (SIGKILL at a failpoint) leaves DEST/.brickpost/IN-PROGRESS;
 * `status` and `history` say what DEST may hold and how to finish it;
 * `resume`, and every other command on DEST (receipt, signature, report,
 * ingest, rollback), finishes the job before doing anything else, down to
 * the shipment a rollback was asked for, or refuses (UNFINISHED) when its key
 * cannot. And the destination lock is the kernel's: a pid in a lock file
 * holds nothing, and a holder that dies lets go.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, test } from 'vitest';
import { brickpost, CLI, diffSnapshots, lastEvent, makeDataset, MAKE_DATASET, sh, snapshot, tempDir, type Node } from '../support.js';

/** Runs brickpost with a failpoint armed; returns the signal it died of. */
function killedAt(home: string, point: string, args: string[]): NodeJS.Signals | null {
  const r = spawnSync(process.execPath, [CLI, '--home', home, '--quiet', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, BRICKPOST_FAILPOINT: point },
  });
  return r.signal;
}

describe('interrupted ingest and rollback: status, history, resume and every command on DEST', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const drives = [1, 2, 3].map((n) => join(root, `d${n}`));
  const at2 = join(root, 'dest-at-2');
  const at3 = join(root, 'dest-at-3');
  const versions: Array<Map<string, Node>> = [];

  beforeAll(() => {
    makeDataset(src, '3M', 31);
    assert.equal(brickpost(pub, ['keygen', '--name', 'pub']).code, 0);
    assert.equal(brickpost(sub, ['keygen', '--name', 'sub']).code, 0);
    assert.equal(brickpost(sub, ['trust', 'add', join(pub, 'minisign.pub'), '--name', 'pub']).code, 0);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    for (const [i, d] of drives.entries()) {
      if (i > 0) {
        sh('python3', [MAKE_DATASET, src, '--mutate', '8', '--seed', String(40 + i), '-q']);
        mkdirSync(join(src, `v${i + 1}`), { recursive: true });
        writeFileSync(join(src, `v${i + 1}`, 'new.txt'), `only in v${i + 1}\n`);
        appendFileSync(join(src, 'v2', 'new.txt'), `touched by v${i + 1}\n`);
      }
      versions.push(snapshot(src));
      mkdirSync(d);
      const p = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--dataset', 'mix']);
      assert.equal(p.code, 0, p.stderr);
    }
    for (const [i, d] of drives.entries()) {
      if (i < 2) assert.equal(brickpost(sub, ['ingest', d, at2]).code, 0);
      assert.equal(brickpost(sub, ['ingest', d, at3]).code, 0);
    }
    assert.deepEqual(diffSnapshots(versions[2]!, snapshot(at3)), []);
  });

  const copy = (from: string, name: string): string => {
    const dest = join(root, name);
    rmSync(dest, { recursive: true, force: true });
    sh('cp', ['-a', from, dest]);
    return dest;
  };
  const seqs = (dest: string): number[] => JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout).shipments.map((s: { seq: number }) => s.seq);
  const marker = (dest: string): string => join(dest, '.brickpost', 'IN-PROGRESS');

  /** DEST with the commit of #3 killed in its install phase: some entries of #2, some of #3. */
  const interruptedIngest = (name: string): string => {
    const dest = copy(at2, name);
    assert.equal(killedAt(sub, 'apply-install@3', ['ingest', drives[2]!, dest]), 'SIGKILL');
    assert.notDeepEqual(diffSnapshots(versions[1]!, snapshot(dest)), [], 'DEST is no longer #2');
    assert.notDeepEqual(diffSnapshots(versions[2]!, snapshot(dest)), [], 'nor #3 yet');
    return dest;
  };

  test('an interrupted ingest: the marker, status (exit 7) and history say so and name the command that finishes it', () => {
    const dest = interruptedIngest('dest-status');
    const m = JSON.parse(readFileSync(marker(dest), 'utf8'));
    assert.equal(m.kind, 'ingest');
    assert.equal(m.seq, 3);
    assert.deepEqual(m.from.seq, 2);
    assert.match(m.message, /some files of the old tree and some of the new one/);
    assert.match(m.message, new RegExp(`'brickpost resume ${dest}'`));

    const st = brickpost(sub, ['status', dest, '--json']);
    assert.equal(st.code, 7, st.stderr);
    const s = JSON.parse(st.stdout);
    assert.deepEqual(
      {
        kind: s.inProgress.kind,
        seq: s.inProgress.seq,
        from: s.inProgress.from.seq,
        running: s.inProgress.running,
        current: s.current.seq,
        lock: s.lock,
        next: s.next,
      },
      { kind: 'ingest', seq: 3, from: 2, running: false, current: 2, lock: null, next: `brickpost resume ${dest}` },
    );
    assert.equal(s.inProgress.phase, 'install');
    const text = brickpost(sub, ['status', dest]);
    assert.match(text.stdout, /the ingest of shipment #3 \S+ was interrupted \(at its install phase\)/);
    assert.match(text.stdout, /may hold some entries of #2 and some of #3, each entry whole/);
    assert.match(text.stdout, new RegExp(`to finish it: brickpost resume ${dest}`));

    const h = brickpost(sub, ['history', dest]);
    assert.equal(h.code, 0);
    assert.match(h.stderr, /brickpost: warning: the ingest of shipment #3 \S+ was interrupted/);
    assert.match(h.stderr, new RegExp(`to finish it: brickpost resume ${dest}`));
    assert.equal(JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout).inProgress.kind, 'ingest');
    assert.ok(existsSync(marker(dest)), 'status and history change nothing');

    // The hint works as printed.
    const r = brickpost(sub, ['resume', dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /finished the commit of shipment \S+; .* holds shipment #3/);
    assert.deepEqual(diffSnapshots(versions[2]!, snapshot(dest)), []);
    assert.ok(!existsSync(marker(dest)));
    assert.deepEqual(seqs(dest), [1, 2, 3]);
    const settled = brickpost(sub, ['status', dest]);
    assert.equal(settled.code, 0);
    assert.match(settled.stdout, /holds shipment #3 .*\n.*settled/);
    assert.match(brickpost(sub, ['resume', dest]).stdout, /nothing was interrupted; .* holds shipment #3/);
  });

  for (const [command, args] of [
    ['receipt', (dest: string) => ['receipt', dest, '--out', join(root, `receipt-${Math.random()}`), '--json']],
    ['signature', (dest: string) => ['signature', dest, '--out', join(root, `sig-${Math.random()}`), '--json']],
    ['report', (dest: string) => ['report', dest, '--html', join(root, `report-${Math.random()}.html`), '--json']],
    ['rollback', (dest: string) => ['rollback', dest, '--to', '3', '--json']],
    ['ingest', (dest: string) => ['ingest', drives[2]!, dest, '--json']],
  ] as const) {
    test(`${command} on a DEST with an interrupted ingest finishes it first, then works on the new tree`, () => {
      const dest = interruptedIngest(`dest-then-${command}`);
      const r = brickpost(sub, args(dest));
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout + r.stderr, /finishing the interrupted commit of shipment/);
      assert.deepEqual(diffSnapshots(versions[2]!, snapshot(dest)), []);
      assert.ok(!existsSync(marker(dest)));
      if (command === 'receipt') assert.equal(lastEvent(r).result.receipt.current.seq, 3);
    });
  }

  test('a key that cannot read DEST refuses (UNFINISHED, exit 7) and changes nothing; the hint names resume', () => {
    const dest = interruptedIngest('dest-other-key');
    const before = snapshot(dest);
    const other = join(root, 'other');
    assert.equal(brickpost(other, ['keygen', '--name', 'other']).code, 0);
    const r = brickpost(other, ['receipt', dest, '--out', join(root, 'other-receipt'), '--json']);
    assert.equal(r.code, 7, r.stdout + r.stderr);
    const e = lastEvent(r);
    assert.equal(e.code, 'UNFINISHED');
    assert.match(e.message, /holds an interrupted ingest that this key cannot finish/);
    assert.equal(e.hint, `run 'brickpost resume ${dest}' with the home that ingested it (--home)`);
    assert.deepEqual(diffSnapshots(before, snapshot(dest)), []);
    assert.equal(brickpost(sub, ['resume', dest]).code, 0);
    assert.deepEqual(diffSnapshots(versions[2]!, snapshot(dest)), []);
  });

  test('a rollback over two shipments killed in its first: status says so; resume goes down to the shipment asked for', () => {
    const dest = copy(at3, 'dest-rb-first');
    assert.equal(killedAt(sub, 'rollback-restore@2', ['rollback', dest, '--to', '1']), 'SIGKILL');
    const s = JSON.parse(brickpost(sub, ['status', dest, '--json']).stdout);
    assert.deepEqual(
      { kind: s.inProgress.kind, seq: s.inProgress.seq, from: s.inProgress.from.seq, current: s.current.seq },
      { kind: 'rollback', seq: 1, from: 3, current: 3 },
    );
    assert.match(brickpost(sub, ['history', dest]).stderr, /the rollback to shipment #1 \S+ was interrupted/);
    const r = brickpost(sub, ['resume', dest, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(lastEvent(r).result.finished, /the rollback to #1/);
    assert.deepEqual(diffSnapshots(versions[0]!, snapshot(dest)), []);
    assert.deepEqual(seqs(dest), [1]);
  });

  test('a rollback killed between its shipments (DEST whole at #2): the next receipt finishes it down to #1 and says #1', () => {
    const dest = copy(at3, 'dest-rb-between');
    assert.equal(killedAt(sub, 'rollback-step@1', ['rollback', dest, '--to', '1']), 'SIGKILL');
    assert.deepEqual(diffSnapshots(versions[1]!, snapshot(dest)), [], 'each step leaves a whole tree');
    assert.equal(brickpost(sub, ['status', dest]).code, 7, 'but the rollback asked for is not done');
    const r = brickpost(sub, ['receipt', dest, '--out', join(root, 'rb-receipt'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /finishing the interrupted rollback of .* to shipment \S+ \(#1\)/);
    assert.equal(lastEvent(r).result.receipt.current.seq, 1);
    assert.deepEqual(diffSnapshots(versions[0]!, snapshot(dest)), []);
  });
});

describe("the destination lock is the kernel's", () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const drive = join(root, 'drive');

  beforeAll(() => {
    makeDataset(src, '1M', 32);
    assert.equal(brickpost(pub, ['keygen', '--name', 'pub']).code, 0);
    assert.equal(brickpost(sub, ['keygen', '--name', 'sub']).code, 0);
    assert.equal(brickpost(sub, ['trust', 'add', join(pub, 'minisign.pub'), '--name', 'pub']).code, 0);
    const recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient as string;
    mkdirSync(drive);
    assert.equal(brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'lock']).code, 0);
  });

  test('a lock file naming a live process (or a pid from an older brickpost) holds nothing', () => {
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      for (const [name, content] of [
        ['json', JSON.stringify({ pid: sleeper.pid, since: '2026-01-01T00:00:00.000Z', command: 'ingest', host: 'x' })],
        ['pid', `${sleeper.pid}\n`],
        ['init', '1\n'],
      ]) {
        const dest = join(root, `stale-${name}`);
        mkdirSync(join(dest, '.brickpost'), { recursive: true });
        writeFileSync(join(dest, '.brickpost', 'lock'), content!);
        assert.equal(JSON.parse(brickpost(sub, ['status', dest, '--json']).stdout).lock, null, `${name}: status sees no holder`);
        const r = brickpost(sub, ['ingest', drive, dest]);
        assert.equal(r.code, 0, `${name}: ${r.stderr}`);
        assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
      }
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  test('a holder is named (pid, command, since when) while it runs, and lets go when it is killed', async () => {
    const dest = join(root, 'held');
    const gate = mkdtempSync(join(root, 'gate-'));
    const p = spawn(process.execPath, [CLI, '--home', sub, 'ingest', drive, dest], {
      stdio: 'ignore',
      env: { ...process.env, BRICKPOST_PAUSE: `lock-held:${gate}` },
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => p.on('close', (_code, signal) => resolve(signal)));
    while (!existsSync(join(gate, 'lock-held.reached'))) await new Promise((r) => setTimeout(r, 10));

    const s = JSON.parse(brickpost(sub, ['status', dest, '--json']).stdout);
    assert.equal(s.lock.pid, p.pid);
    assert.equal(s.lock.command, 'ingest');
    assert.ok(Date.parse(s.lock.since) > 0);
    const second = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(second.code, 7);
    const e = lastEvent(second);
    assert.equal(e.code, 'LOCKED');
    assert.match(e.message, new RegExp(`is in use by brickpost process ${p.pid} \\(brickpost ingest, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\)`));
    assert.equal(e.hint, `'brickpost status ${dest}' shows what it is doing; run the command again once it has finished`);

    p.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    assert.equal(JSON.parse(brickpost(sub, ['status', dest, '--json']).stdout).lock, null, 'the kernel dropped the lock with its holder');
    const third = brickpost(sub, ['ingest', drive, dest]);
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });
});
