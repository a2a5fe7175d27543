/**
 * I/O faults on brickpost's SQLite files, through the real CLI with the
 * fault shim (shim.c): EIO, ENOSPC, EROFS and EACCES on the open, write
 * and fsync calls of the home's catalog (pack, ingest) and of the
 * destination's journal (ingest). For each kind of call, a run counts the
 * calls, then the first, a middle and the last fail in turn, the errno
 * rotating. Every run must end with a documented exit code (never 70);
 * a failure must name the database; a failed write or sync is never
 * reported as plain success (an ingest whose DEST committed may succeed,
 * with a warning that the catalog could not record it); and nothing is
 * half-recorded: a drive holds no sealed shipment the catalog does not
 * know, DEST is at the old or the new tree as its history says (or in a
 * commit the next ingest finishes), and running again without the fault
 * succeeds and leaves the catalog in agreement.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, MAKE_DATASET, brickpost, makeDataset, publisherAndSubscriber, sh, tempDir, type Run } from '../support.js';
import { treeDigest } from '../adversarial/harness.js';
import { brickpostWithFault, readFaultLog, type FaultOp } from './shim.js';

const ERRNOS = ['EIO', 'ENOSPC', 'EROFS', 'EACCES'] as const;
const OPS: FaultOp[] = ['open', 'write', 'fsync'];
/** Exit codes a run may end with here: ok, environment, busy. */
const DOCUMENTED = new Set([0, 5, 7]);

interface Events {
  error: Record<string, any> | undefined;
  warnings: Array<Record<string, any>>;
}

function events(r: Run): Events {
  const all = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
  return { error: all.find((e) => e.type === 'error'), warnings: all.filter((e) => e.type === 'warning') };
}

/** The first, a middle and the last of n calls. */
function picks(n: number): number[] {
  return [...new Set([1, Math.ceil(n / 2), n])].filter((k) => k >= 1);
}

/** Rows of a catalog table, read without brickpost. */
function rows<T>(home: string, sql: string): T[] {
  const db = new Database(join(home, 'catalog.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('faults on the catalog and the journal', () => {
  const root = tempDir('bp-fault-db-');
  const src = join(root, 'src');
  const pub0 = join(root, 'pub0');
  const sub0 = join(root, 'sub0');
  const d1 = join(root, 'd1');
  const d2 = join(root, 'd2');
  const dest0 = join(root, 'dest0');
  let recipient = '';
  let s2 = '';
  let oldTree = '';
  let newTree = '';
  let n = 0;
  const copy = (from: string): string => {
    const to = join(root, `c${++n}`);
    sh('cp', ['-a', from, to]);
    return to;
  };
  const bags = (drive: string): string[] =>
    existsSync(join(drive, 'brickpost')) ? readdirSync(join(drive, 'brickpost')).filter((x) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(x)) : [];

  beforeAll(() => {
    makeDataset(src, '1M', 41);
    for (const d of [d1, d2, join(root, 'd1-empty-probe')]) mkdirSync(d);
    recipient = publisherAndSubscriber(pub0, sub0);
    assert.equal(brickpost(pub0, ['pack', src, '--to', d1, '--recipient', recipient]).code, 0);
    assert.equal(brickpost(sub0, ['ingest', d1, dest0]).code, 0);
    oldTree = treeDigest(dest0, ['.brickpost']);
    sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', '42', '-q']);
    // The publisher's home before its second pack: each pack case starts from a copy.
    sh('cp', ['-a', pub0, join(root, 'pub1')]);
    assert.equal(brickpost(pub0, ['pack', src, '--to', d2, '--recipient', recipient]).code, 0);
    s2 = bags(d2)[0]!;
    const probe = copy(dest0);
    assert.equal(brickpost(copy(sub0), ['ingest', d2, probe]).code, 0);
    newTree = treeDigest(probe, ['.brickpost']);
  });

  /** The calls of `op` on files whose path holds `part` in a fault-free run. */
  const count = (args: (home: string, out: string) => string[], home: string, out: string, op: FaultOp, part: string): number => {
    const log = join(root, `log-${++n}`);
    const r = brickpostWithFault(copy(home), args(home, copy(out)), null, log);
    assert.equal(r.code, 0, r.stderr);
    return readFaultLog(log).filter((c) => c.op === op && c.path.includes(part)).length;
  };

  const checkFailure = (r: Run, what: string, file: RegExp, fired: boolean, op: FaultOp): Events => {
    const ev = events(r);
    assert.ok(DOCUMENTED.has(r.code), `${what}: exit ${r.code} is not documented here\n${r.stdout.slice(-800)}${r.stderr.slice(-800)}`);
    if (r.code !== 0) {
      assert.ok(ev.error, `${what}: an error event`);
      assert.match(`${ev.error.message} ${ev.error.path ?? ''}`, file, `${what}: the message names the database`);
      assert.ok(ev.error.hint, `${what}: a hint`);
    } else if (fired && op !== 'open') {
      // A failed write or sync never passes as plain success: only an ingest whose DEST committed may succeed, saying
      // so: the catalog not updated, or the undo data left as whole files (the chunk store's pass after the commit).
      assert.ok(
        ev.warnings.some((w) => w.code === 'CATALOG_NOT_UPDATED' || w.code === 'LEFT_OVER'),
        `${what}: exit 0 after a failed ${op}, without a warning\n${r.stdout.slice(-800)}`,
      );
    }
    return ev;
  };

  test('pack: faults on the catalog leave no sealed shipment it does not know, and pack runs again', () => {
    const home0 = join(root, 'pub1');
    const args = (_home: string, drive: string): string[] => ['--json', 'pack', src, '--to', drive, '--recipient', recipient];
    let k = 0;
    for (const op of OPS) {
      const calls = count(args, home0, join(root, 'd1-empty-probe'), op, 'catalog.sqlite');
      assert.ok(calls > 0, `pack makes ${op} calls on the catalog`);
      for (const nth of picks(calls)) {
        const errno = ERRNOS[k++ % ERRNOS.length]!;
        const what = `pack, ${errno} on ${op} #${nth} of ${calls}`;
        const home = copy(home0);
        const drive = join(root, `drive-${++n}`);
        mkdirSync(drive);
        const log = join(root, `log-${++n}`);
        const r = brickpostWithFault(home, args(home, drive), { op, errno, nth, path: 'catalog.sqlite' }, log);
        const fired = readFaultLog(log).some((c) => c.fired);
        checkFailure(r, what, /catalog\.sqlite/, fired, op);
        const sealed = (): string[] =>
          rows<{ id: string }>(home, "SELECT id FROM shipments WHERE role = 'published' AND state IN ('sealing', 'sealed')").map((x) => x.id);
        for (const bag of bags(drive)) assert.ok(sealed().includes(bag), `${what}: bag ${bag} on the drive is sealed in the catalog`);
        const again = brickpost(home, args(home, drive));
        assert.equal(again.code, 0, `${what}: pack again\n${again.stdout.slice(-800)}${again.stderr}`);
        for (const bag of bags(drive)) assert.ok(sealed().includes(bag), `${what}: after the second pack`);
      }
    }
  });

  for (const [file, part] of [
    ['catalog', 'catalog.sqlite'],
    ['journal', 'journal.sqlite'],
  ] as const) {
    test(`ingest: faults on the ${file} leave DEST at the old or the new tree as its history says; ingest runs again`, () => {
      const args = (_home: string, dest: string): string[] => ['--json', 'ingest', d2, dest];
      let k = file === 'journal' ? 1 : 2;
      for (const op of OPS) {
        const calls = count(args, sub0, dest0, op, part);
        assert.ok(calls > 0, `ingest makes ${op} calls on the ${file}`);
        for (const nth of picks(calls)) {
          const errno = ERRNOS[k++ % ERRNOS.length]!;
          const what = `ingest, ${errno} on ${file} ${op} #${nth} of ${calls}`;
          const home = copy(sub0);
          const dest = copy(dest0);
          const log = join(root, `log-${++n}`);
          const r = brickpostWithFault(home, args(home, dest), { op, errno, nth, path: part }, log);
          const fired = readFaultLog(log).some((c) => c.fired);
          checkFailure(r, what, file === 'catalog' ? /catalog\.sqlite/ : /journal\.sqlite/, fired, op);
          const tree = treeDigest(dest, ['.brickpost']);
          const h = brickpost(home, ['history', dest, '--json']);
          assert.equal(h.code, 0, `${what}: history\n${h.stderr}`);
          const last = (JSON.parse(h.stdout) as { shipments: Array<{ shipmentId: string }> }).shipments.at(-1)!.shipmentId;
          const midCommit = tree !== oldTree && tree !== newTree;
          if (!midCommit) assert.equal(last === s2, tree === newTree, `${what}: DEST's tree and its history agree`);
          const again = brickpost(home, args(home, dest));
          assert.equal(again.code, 0, `${what}: ingest again\n${again.stdout.slice(-800)}${again.stderr}`);
          if (midCommit)
            assert.ok(
              events(again).warnings.some((w) => w.code === 'RESUMED'),
              `${what}: DEST was mid-commit, the next ingest finished it`,
            );
          assert.equal(treeDigest(dest, ['.brickpost']), newTree, `${what}: DEST at the new tree`);
          assert.deepEqual(
            rows<{ state: string }>(home, `SELECT state FROM ingests WHERE shipment_id = '${s2}'`).map((x) => x.state),
            ['applied'],
            `${what}: the catalog records the ingest`,
          );
          rmSync(dest, { recursive: true, force: true });
        }
      }
    });
  }

  test('a pack stopped after recording its shipment sealed, before the rename, is finished by the next pack', () => {
    // Two drives: killed before the first rename, then (another run) between the two.
    for (const at of ['pack-publish@1', 'pack-publish@2']) {
      const home = copy(join(root, 'pub1'));
      const set = [join(root, `set-${++n}-a`), join(root, `set-${n}-b`)];
      for (const d of set) mkdirSync(d);
      const args = ['pack', src, ...set.flatMap((d) => ['--to', d]), '--recipient', recipient, '--parity', '0', '--json'];
      const killed = spawnSync(process.execPath, [CLI, '--home', home, ...args], { env: { ...process.env, BRICKPOST_FAILPOINT: at }, encoding: 'utf8' });
      assert.equal(killed.signal, 'SIGKILL', `${at}: ${killed.stderr}`);
      const x = rows<{ id: string; state: string }>(home, "SELECT id, state FROM shipments WHERE role = 'published' ORDER BY seq DESC LIMIT 1")[0]!;
      assert.equal(x.state, 'sealing', at);
      const again = brickpost(home, args);
      assert.equal(again.code, 0, `${at}: ${again.stdout.slice(-800)}${again.stderr}`);
      assert.ok(
        events(again).warnings.some((w) => w.code === 'SHIPMENT_FINISHED' && w.message.includes(x.id)),
        `${at}: the next pack says it finished ${x.id}`,
      );
      const y = JSON.parse(again.stdout.trim().split('\n').at(-1)!).result as { shipmentId: string; parent: string; seq: number };
      assert.equal(y.parent, x.id, `${at}: the new shipment follows the finished one`);
      for (const d of set) assert.deepEqual(bags(d).sort(), [x.id, y.shipmentId].sort(), `${at}: ${d} holds both, in place`);
      assert.deepEqual(rows<{ state: string }>(home, `SELECT state FROM shipments WHERE id = '${x.id}'`), [{ state: 'sealed' }]);
    }
  });

  test('EIO on the last sync of the write-ahead logs is never reported as success', () => {
    for (const [cmd, part] of [
      ['pack', 'catalog.sqlite-wal'],
      ['ingest', 'journal.sqlite-wal'],
    ] as const) {
      const home0 = cmd === 'pack' ? join(root, 'pub1') : sub0;
      const args = (_home: string, out: string): string[] =>
        cmd === 'pack' ? ['--json', 'pack', src, '--to', out, '--recipient', recipient] : ['--json', 'ingest', d2, out];
      const out0 = cmd === 'pack' ? join(root, 'd1-empty-probe') : dest0;
      const calls = count(args, home0, out0, 'fsync', part);
      const home = copy(home0);
      const out = cmd === 'pack' ? join(root, `drive-${++n}`) : copy(dest0);
      if (cmd === 'pack') mkdirSync(out);
      const log = join(root, `log-${++n}`);
      const r = brickpostWithFault(home, args(home, out), { op: 'fsync', errno: 'EIO', nth: calls, path: part }, log);
      assert.ok(
        readFaultLog(log).some((c) => c.fired),
        `${cmd}: the last fsync of ${part} failed`,
      );
      assert.equal(r.code, 5, `${cmd}: exit 5\n${r.stdout.slice(-800)}${r.stderr}`);
      assert.match(events(r).error!.message, /i\/o error on the (catalog|destination journal) .*sync failed/);
    }
  });
});
