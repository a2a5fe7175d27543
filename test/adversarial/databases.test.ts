/**
 * The home's catalog and a destination's journal, through the real CLI:
 * a file at their path that is not theirs (another program's SQLite
 * database, the other kind, a text file) is refused and left byte for
 * byte as it was; ones an older brickpost wrote are adopted; a damaged
 * one is refused with a command that, run as printed, sets it aside and
 * keeps, rebuilds and names what is lost; a catalog another process locks
 * stops an ingest before DEST changes (exit 7, the holder named), and a
 * lock taken after DEST committed leaves a warning and a catalog the next
 * command brings up to date. Locks are held by a child process and the
 * ingest is held at a pausepoint: nothing depends on timing.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CLI, MAKE_DATASET, brickpost, diffSnapshots, makeDataset, publisherAndSubscriber, sh, snapshot, tempDir } from '../support.js';
import { assertRefused, run, treeDigest, type Outcome } from './harness.js';

const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Overwrites the root page of `table` (for a small table: all its rows) with garbage. */
function damageTable(file: string, table: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const page = db.pragma('page_size', { simple: true }) as number;
  const root = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(table) as number;
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(page, 0xa5), 0, page, (root - 1) * page);
  closeSync(fd);
}

/** The rows of a catalog's ingests table, read without brickpost. */
function ingestRows(home: string): Array<{ shipment_id: string; state: string }> {
  const db = new Database(join(home, 'catalog.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT shipment_id, state FROM ingests ORDER BY seq').all() as Array<{ shipment_id: string; state: string }>;
  } finally {
    db.close();
  }
}

/** Runs the command a hint prints (`… run 'brickpost …': …`) as printed, with --json. */
function runHint(hint: string): Outcome & { doc: Record<string, any> } {
  const cmd = /'(brickpost [^']+)'/.exec(hint)?.[1];
  assert.ok(cmd, `the hint names a command: ${hint}`);
  const r = spawnSync('sh', ['-c', `${cmd} --json`], { encoding: 'utf8', env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` } });
  return {
    code: r.status ?? -1,
    stdout: r.stdout,
    stderr: r.stderr,
    events: [],
    rssMb: 0,
    doc: r.status === 0 ? (JSON.parse(r.stdout) as Record<string, any>) : {},
  };
}
let binDir = '';
const holderDir = tempDir('bp-lock-');

/**
 * A child process that holds `file` with BEGIN EXCLUSIVE until release()
 * (it waits on its standard input); resolves once the lock is taken.
 */
async function holdLock(file: string): Promise<{ child: ChildProcess; release: () => Promise<void> }> {
  const script = join(holderDir, 'bp-lock-holder.cjs');
  if (!existsSync(script)) {
    writeFileSync(
      script,
      `const D = require(${JSON.stringify(SQLITE)}); const d = new D(process.argv[2]); d.exec('BEGIN EXCLUSIVE');
process.stdout.write('held\\n'); process.stdin.resume(); process.stdin.on('end', () => { d.exec('COMMIT'); d.close(); });\n`,
    );
  }
  const child = spawn(process.execPath, [script, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`the lock holder exited (${c})`)));
  });
  return { child, release: () => new Promise((resolve) => (child.once('exit', () => resolve()), child.stdin.end())) };
}

describe('the catalog and the journals tell the truth', () => {
  const root = tempDir('bp-adv-db-');
  const src = join(root, 'src');
  const trees = [join(root, 'v1'), join(root, 'v2'), join(root, 'v3')];
  const drives = [join(root, 'drive1'), join(root, 'drive2'), join(root, 'drive3')];
  const ids: string[] = [];
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  /** DEST after shipment 1, and the subscriber's home then: each case starts from copies. */
  const base = join(root, 'dest-base');
  let n = 0;
  const copy = (from: string): string => {
    const to = join(root, `copy-${++n}`);
    sh('cp', ['-a', from, to]);
    return to;
  };

  beforeAll(() => {
    binDir = join(root, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'brickpost'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`, { mode: 0o755 });
    makeDataset(src, '1M', 21);
    const recipient = publisherAndSubscriber(pub, sub);
    for (const [i, d] of drives.entries()) {
      if (i > 0) sh('python3', [MAKE_DATASET, src, '--mutate', '5', '--seed', String(30 + i), '-q']);
      sh('cp', ['-a', src, trees[i]!]);
      mkdirSync(d);
      const r = brickpost(pub, ['pack', src, '--to', d, '--recipient', recipient, '--dataset', 'db', '--json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      ids.push(readdirSync(join(d, 'brickpost')).find((x) => /^\d{8}T/.test(x) && !x.includes('.'))!);
    }
    const r = brickpost(sub, ['ingest', drives[0]!, base]);
    assert.equal(r.code, 0, r.stderr);
  });

  test("a file at the catalog's path that is not a catalog is refused, named, and left as it was", () => {
    const kinds: Array<[string, (file: string) => void, RegExp]> = [
      [
        "another program's database",
        (f) => new Database(f).exec('CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)'),
        /is another program's database \(tables "photos"\)/,
      ],
      ["a destination's journal", (f) => sh('cp', [join(base, '.brickpost', 'journal.sqlite'), f]), /is a brickpost destination's journal, not a catalog/],
      ['a text file', (f) => writeFileSync(f, 'id,name\n1,a\n'), /is not a SQLite database/],
    ];
    for (const [what, make, says] of kinds) {
      const home = mkdtempSync(join(root, 'home-'));
      const file = join(home, 'catalog.sqlite');
      make(file);
      const before = sha(file);
      const o = run(home, ['trust', 'list']);
      const ev = assertRefused(o, { code: 'FOREIGN_DATABASE', exit: 5, names: file });
      assert.match(ev.message, says, what);
      assert.ok(ev.hint, what);
      assert.equal(sha(file), before, `${what}: not changed`);
      assert.deepEqual(readdirSync(home), ['catalog.sqlite'], `${what}: nothing added beside it`);
    }
  });

  test('a journal of another program in DEST is refused before DEST changes', () => {
    const dest = copy(base);
    const home = copy(sub);
    const file = join(dest, '.brickpost', 'journal.sqlite');
    writeFileSync(file, '');
    new Database(file).exec('CREATE TABLE t (x)');
    const before = sha(file);
    const digest = treeDigest(dest, ['.brickpost']);
    assertRefused(run(home, ['ingest', drives[1]!, dest]), { code: 'FOREIGN_DATABASE', exit: 5, names: file });
    assert.equal(sha(file), before);
    assert.equal(treeDigest(dest, ['.brickpost']), digest);
  });

  test('a catalog and a journal an older brickpost wrote (no application_id) are adopted with their rows', () => {
    const dest = copy(base);
    const home = copy(sub);
    for (const f of [join(home, 'catalog.sqlite'), join(dest, '.brickpost', 'journal.sqlite')]) {
      const db = new Database(f);
      db.pragma('application_id = 0');
      if (f.endsWith('journal.sqlite')) {
        db.pragma('user_version = 0');
        // Unversioned journals predate the chunk undo store's tables.
        db.exec('DROP INDEX undo_refs_hash; DROP TABLE undo_refs; DROP TABLE undo_files; DROP TABLE undo_chunks');
      }
      db.close();
    }
    const o = run(home, ['ingest', drives[1]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.deepEqual(diffSnapshots(snapshot(trees[1]!), snapshot(dest)), []);
    assert.deepEqual(
      ingestRows(home).map((r) => r.state),
      ['applied', 'applied'],
      'the first ingest, recorded before, is still there',
    );
    const back = run(home, ['rollback', dest, '--to', '1']);
    assert.equal(back.code, 0, back.stdout + back.stderr);
    assert.deepEqual(diffSnapshots(snapshot(trees[0]!), snapshot(dest)), []);
  });

  test('a damaged catalog names the command that recovers it; run as printed, it keeps, rebuilds and names what is lost', () => {
    const dest = copy(base);
    const home = copy(sub);
    const file = join(home, 'catalog.sqlite');
    damageTable(file, 'trust');
    const damaged = sha(file);
    const ev = assertRefused(run(home, ['trust', 'list']), { code: 'DATABASE_DAMAGED', exit: 5, names: file });
    assert.match(ev.hint, new RegExp(`'brickpost catalog recover --home ${home}'`));
    const r = runHint(ev.hint);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = r.doc;
    assert.equal(s.intact, false);
    assert.equal(sha(s.setAside[0]), damaged, 'the damaged file is kept, unchanged, beside the new one');
    const kept = new Map((s.kept as Array<{ table: string; kept: number; lost: number | null }>).map((t) => [t.table, t]));
    assert.equal(kept.get('trust')!.kept, 0);
    assert.ok(kept.get('ingests')!.kept >= 1 && kept.get('datasets')!.kept >= 1, JSON.stringify(s.kept));
    assert.ok(
      s.lost.some((l: { what: string; meaning: string }) => /table trust/.test(l.what) && /brickpost trust add/.test(l.meaning)),
      JSON.stringify(s.lost),
    );
    assert.ok(
      s.rebuilt.some((l: { what: string }) => /your own key/.test(l.what)),
      JSON.stringify(s.rebuilt),
    );
    // The publisher's key was lost with the table: trusted again, the next shipment ingests.
    const keys = JSON.parse(brickpost(home, ['trust', 'list', '--json']).stdout) as Array<{ self: boolean }>;
    assert.deepEqual(
      keys.map((k) => k.self),
      [true],
    );
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(home, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
    const o = run(home, ['ingest', drives[1]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.deepEqual(
      ingestRows(home).map((x) => x.shipment_id),
      [ids[0], ids[1]],
    );
  });

  test('a catalog cut short is recovered from the destinations and drives given', () => {
    const home = copy(sub);
    const file = join(home, 'catalog.sqlite');
    writeFileSync(file, readFileSync(file).subarray(0, 4096 * 3));
    const ev = assertRefused(run(home, ['trust', 'list']), { code: 'DATABASE_DAMAGED', exit: 5, names: /is damaged \(database disk image is malformed\)/ });
    assert.match(ev.hint, /brickpost catalog recover --home/);
    const r = brickpost(home, ['catalog', 'recover', '--dest', base, '--drive', drives[0]!, '--name', 'subscriber', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = JSON.parse(r.stdout) as Record<string, any>;
    assert.ok(
      s.rebuilt.some((x: { what: string }) => /1 ingest into/.test(x.what)),
      JSON.stringify(s.rebuilt),
    );
    assert.ok(
      s.rebuilt.some((x: { what: string }) => /custody events/.test(x.what)),
      JSON.stringify(s.rebuilt),
    );
    assert.deepEqual(ingestRows(home), [{ shipment_id: ids[0], state: 'applied' }]);
    assert.equal(JSON.parse(brickpost(home, ['whoami', '--json']).stdout).name, 'subscriber');
  });

  test('a damaged journal names its recovery command; rollback cannot pass the lost steps, ingest goes on', () => {
    const dest = copy(base);
    const home = copy(sub);
    assert.equal(brickpost(home, ['ingest', drives[1]!, dest]).code, 0);
    const file = join(dest, '.brickpost', 'journal.sqlite');
    damageTable(file, 'ops');
    const ev = assertRefused(run(home, ['rollback', dest, '--to', '1']), { code: 'DATABASE_DAMAGED', exit: 5, names: file });
    assert.match(ev.hint, new RegExp(`'brickpost journal recover ${dest}'`));
    const digest = treeDigest(dest, ['.brickpost']);
    const r = runHint(ev.hint);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.doc.pending, null);
    assert.ok(
      r.doc.lost.some((l: { what: string; meaning: string }) => l.what.includes(ids[1]!) && /rollback' can no longer go back before it/.test(l.meaning)),
      JSON.stringify(r.doc.lost),
    );
    assert.equal(treeDigest(dest, ['.brickpost']), digest, "recovering the journal leaves DEST's files alone");
    assertRefused(run(home, ['rollback', dest, '--to', '1']), { code: 'USAGE', exit: 2, names: ids[1]! });
    const o = run(home, ['ingest', drives[2]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.deepEqual(diffSnapshots(snapshot(trees[2]!), snapshot(dest)), []);
  });

  test('a rollback refused for a damaged journal leaves no in-progress marker; one killed between steps, then damaged, is told lost', () => {
    const dest = copy(base);
    const home = copy(sub);
    assert.equal(brickpost(home, ['ingest', drives[1]!, dest]).code, 0);
    assert.equal(brickpost(home, ['ingest', drives[2]!, dest]).code, 0);
    const marker = join(dest, '.brickpost', 'IN-PROGRESS');
    const journal = join(dest, '.brickpost', 'journal.sqlite');
    // Refused before any change: nothing may claim a rollback is under way.
    const before = readFileSync(journal);
    damageTable(journal, 'ops');
    assertRefused(run(home, ['rollback', dest, '--to', '1']), { code: 'DATABASE_DAMAGED', exit: 5, names: journal });
    assert.equal(existsSync(marker), false, 'a rollback refused before its first change leaves no marker');
    writeFileSync(journal, before);
    // Killed after undoing #3, before #2: the marker stands; then the steps are lost.
    const killed = spawnSync(process.execPath, [CLI, '--home', home, 'rollback', dest, '--to', '1'], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'rollback-step@1' },
      encoding: 'utf8',
    });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    assert.equal(existsSync(marker), true);
    damageTable(journal, 'ops');
    const r = brickpost(home, ['journal', 'recover', dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lost = JSON.parse(r.stdout).lost as Array<{ what: string; meaning: string }>;
    assert.ok(
      lost.some((l) => l.what.includes(`rollback to shipment ${ids[0]}`) && /IN-PROGRESS/.test(l.what) && /may hold part of it/.test(l.meaning)),
      JSON.stringify(lost),
    );
    assert.equal(existsSync(marker), false, 'a job that can no longer be finished is not left marked');
    const st = brickpost(home, ['status', dest]);
    assert.equal(st.code, 0, st.stdout + st.stderr);
    const o = run(home, ['ingest', drives[2]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.deepEqual(diffSnapshots(snapshot(trees[2]!), snapshot(dest)), []);
  });

  test('a commit interrupted, then its journal damaged elsewhere: recovered, the next ingest finishes it', () => {
    const dest = copy(base);
    const home = copy(sub);
    const killed = spawnSync(process.execPath, [CLI, '--home', home, 'ingest', drives[1]!, dest], {
      env: { ...process.env, BRICKPOST_FAILPOINT: 'apply-install@3' },
      encoding: 'utf8',
    });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    damageTable(join(dest, '.brickpost', 'journal.sqlite'), 'held');
    const r = brickpost(home, ['journal', 'recover', dest, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).pending, { kind: 'apply', shipmentId: ids[1] });
    const o = run(home, ['ingest', drives[1]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.ok(
      o.events.some((e) => e.code === 'RESUMED'),
      'the interrupted commit was finished',
    );
    assert.deepEqual(diffSnapshots(snapshot(trees[1]!), snapshot(dest)), []);
  });

  test('a catalog another process locks stops the ingest before DEST changes: exit 7, the holder named', async () => {
    const dest = copy(base);
    const home = copy(sub);
    const digest = treeDigest(dest, ['.brickpost']);
    const lock = await holdLock(join(home, 'catalog.sqlite'));
    try {
      const o = run(home, ['ingest', drives[1]!, dest], { env: { ...process.env, BRICKPOST_BUSY_TIMEOUT: '200' } });
      const ev = assertRefused(o, { code: 'LOCKED', exit: 7, names: `process ${lock.child.pid} (` });
      assert.match(ev.message, /bp-lock-holder/);
      assert.match(ev.message, /was not changed/);
      assert.equal(treeDigest(dest, ['.brickpost']), digest);
    } finally {
      await lock.release();
    }
    assert.equal(JSON.parse(brickpost(home, ['history', dest, '--json']).stdout).shipments.length, 1);
    const o = run(home, ['ingest', drives[1]!, dest]);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.deepEqual(ingestRows(home), [
      { shipment_id: ids[0], state: 'applied' },
      { shipment_id: ids[1], state: 'applied' },
    ]);
  });

  test('a lock taken after DEST committed: success with a warning, and the next command records the ingest', async () => {
    const dest = copy(base);
    const home = copy(sub);
    const gate = mkdtempSync(join(root, 'gate-'));
    const child = spawn(process.execPath, [CLI, '--home', home, '--json', 'ingest', drives[1]!, dest], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BRICKPOST_PAUSE: `ingest-committed:${gate}`, BRICKPOST_BUSY_TIMEOUT: '200' },
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    while (!existsSync(join(gate, 'ingest-committed.reached'))) await new Promise((r) => setTimeout(r, 10));
    const lock = await holdLock(join(home, 'catalog.sqlite'));
    try {
      writeFileSync(join(gate, 'ingest-committed.go'), '');
      assert.equal(await done, 0, out);
      const warning = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>)
        .find((e) => e.code === 'CATALOG_NOT_UPDATED');
      assert.ok(warning, out);
      assert.match(
        warning.message,
        /is applied to .* but this home's catalog could not record it: the catalog .* is locked by another process \(it is open in process \d+ \(/,
      );
      assert.deepEqual(diffSnapshots(snapshot(trees[1]!), snapshot(dest)), []);
      assert.equal(ingestRows(home)[1]!.state, 'committing');
    } finally {
      await lock.release();
    }
    const h = brickpost(home, ['history', dest, '--json']);
    assert.equal(h.code, 0, h.stderr);
    assert.deepEqual(
      JSON.parse(h.stdout).shipments.map((s: { shipmentId: string }) => s.shipmentId),
      [ids[0], ids[1]],
    );
    assert.deepEqual(
      ingestRows(home),
      [
        { shipment_id: ids[0], state: 'applied' },
        { shipment_id: ids[1], state: 'applied' },
      ],
      'history recorded the ingest from DEST',
    );
  });

  afterAll(() => undefined);
});
