/**
 * Long rollback reach through the chunk undo store, end to end through the
 * real CLI: six shipments of one dataset ingested with `--keep-undo all`
 * (a 64 MiB file changed in a few bytes by each, small files edited, a
 * folder deleted, files added). Then: history --json says every point is
 * kept and what the undo data costs; the undo data of the large file after
 * its first change costs the changed chunks (under 5 % of the file);
 * extract --at takes files as they were; rollback goes back to shipment 1
 * and the rolled-back shipments apply again; a pin keeps its point through
 * a prune and refuses a prune past it; unpin lets it go.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, errorEvent, lastEvent, publisherAndSubscriber, sh, snapshot, tempDir, type Run, bytes, overwriteAt } from '../support.js';

const BIG = 64 << 20;

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('the chunk undo store: rollback and extract to any kept shipment', () => {
  const root = tempDir('bp-undo-');
  const src = join(root, 'src');
  const dest = join(root, 'dest');
  const pub = join(root, 'pub');
  const sub = join(root, 'sub');
  const states = join(root, 'states');
  const drives: Record<number, string> = {};
  let recipient = '';

  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return r;
  };
  const history = (): Record<string, any> => JSON.parse(ok(brickpost(sub, ['history', dest, '--json'])).stdout);
  const ingest = (seq: number, extra: string[] = []): void => {
    ok(brickpost(sub, ['ingest', drives[seq]!, dest, '--json', ...extra]));
    assert.deepEqual(diffSnapshots(snapshot(join(states, String(seq))), snapshot(dest)), [], `DEST is the tree of shipment ${seq}`);
  };

  /** The edits that make shipment SEQ (2…6) from the one before. */
  const edit = (seq: number): void => {
    overwriteAt(join(src, 'big.bin'), seq * 9_000_000 + 12_345, bytes(`edit${seq}`, 16));
    writeFileSync(join(src, 'notes', `n${seq}.txt`), `note ${seq}\n`.repeat(100 * seq));
    writeFileSync(join(src, 'notes', 'log.txt'), `entry ${seq}\n`.repeat(2000 * seq));
    if (seq === 3) rmSync(join(src, 'old'), { recursive: true });
    if (seq === 4) rmSync(join(src, 'notes', 'n2.txt'));
  };

  beforeAll(() => {
    recipient = publisherAndSubscriber(pub, sub);
    mkdirSync(join(src, 'notes'), { recursive: true });
    mkdirSync(states);
    mkdirSync(join(src, 'old', 'deep'), { recursive: true });
    writeFileSync(join(src, 'big.bin'), bytes('big', BIG));
    writeFileSync(join(src, 'notes', 'log.txt'), 'entry 1\n'.repeat(2000));
    writeFileSync(join(src, 'old', 'deep', 'a.bin'), bytes('old-a', 300_000));
    writeFileSync(join(src, 'old', 'b.txt'), 'b\n'.repeat(5000));
    for (let seq = 1; seq <= 6; seq++) {
      if (seq > 1) edit(seq);
      drives[seq] = join(root, `drive${seq}`);
      mkdirSync(drives[seq]!);
      ok(brickpost(pub, ['pack', src, '--to', drives[seq]!, '--recipient', recipient, '--dataset', 'year', '--label', `s${seq}`, '--json']));
      sh('cp', ['-a', src, join(states, String(seq))]);
    }
    for (let seq = 1; seq <= 6; seq++) ingest(seq, seq === 1 ? ['--keep-undo', 'all'] : []);
  });

  test('history --json: every shipment kept, what undo data costs, the retention', () => {
    const h = history();
    for (const k of ['keepUndo', 'keepAll', 'keepDays', 'pins', 'undoBytes']) assert.ok(k in h, `history lacks ${k}`);
    assert.equal(h.keepAll, true);
    assert.equal(h.keepDays, null);
    assert.deepEqual(h.pins, []);
    assert.deepEqual(
      h.shipments.map((s: any) => s.kept),
      [true, true, true, true, true, true],
    );
    assert.deepEqual(
      h.shipments.map((s: any) => s.undoable),
      [false, true, true, true, true, true],
    );
    for (const s of h.shipments) {
      assert.deepEqual(s.pins, []);
      assert.equal(typeof s.undoBytes, 'number');
    }
    assert.equal(
      h.undoBytes,
      h.shipments.reduce((n: number, s: any) => n + s.undoBytes, 0),
      'the total is the sum of the shipments',
    );
    const text = ok(brickpost(sub, ['history', dest])).stdout;
    assert.match(text, /#6 .* kept .* undo/);
    assert.match(text, /undo data: .* on disk; keeps every shipment/);
  });

  test('replaced files are kept by chunks: a few changed bytes of a large file cost under 5 % of it', () => {
    const undo = join(dest, '.brickpost', 'undo');
    const whole = readdirSync(undo, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    assert.deepEqual(
      whole.map((e) => e.name),
      [],
      'no whole file is left in the undo areas',
    );
    const h = history();
    // Shipment 2 keeps the first old version of big.bin whole (as chunks); each later one only what changed.
    assert.ok(h.shipments[1].undoBytes >= BIG * 0.9, `shipment 2 keeps big.bin's first version: ${h.shipments[1].undoBytes}`);
    for (const s of h.shipments.slice(2)) assert.ok(s.undoBytes < BIG * 0.05, `shipment ${s.seq} keeps ${s.undoBytes} bytes of undo data, over 5 % of ${BIG}`);
    const wholeFile = 5 * BIG;
    assert.ok(h.undoBytes < wholeFile * 0.3, `${h.undoBytes} bytes against ${wholeFile} for whole files`);
  });

  test('extract --at takes a file as it was after any kept shipment', () => {
    const out = join(root, 'out');
    const r = ok(brickpost(sub, ['extract', '--at', '1', dest, 'big.bin', 'notes/log.txt', 'old/deep/a.bin', '--to', join(out, '1'), '--json']));
    assert.equal(lastEvent(r).result.files.length, 3);
    for (const p of ['big.bin', 'notes/log.txt', 'old/deep/a.bin']) assert.equal(sha(join(out, '1', p)), sha(join(states, '1', p)), `${p} as after #1`);
    assert.equal(statSync(join(out, '1', 'big.bin')).mtimeMs, statSync(join(states, '1', 'big.bin')).mtimeMs);
    ok(brickpost(sub, ['extract', '--at', '3', dest, 'notes/n2.txt', 'notes/n3.txt', '--to', join(out, '3')]));
    for (const p of ['notes/n2.txt', 'notes/n3.txt']) assert.equal(sha(join(out, '3', p)), sha(join(states, '3', p)));
    ok(brickpost(sub, ['extract', '--at', '6', dest, 'notes/n6.txt', '--to', join(out, '6')]));
    assert.equal(sha(join(out, '6', 'notes/n6.txt')), sha(join(states, '6', 'notes/n6.txt')));
    const missing = brickpost(sub, ['extract', '--at', '2', dest, 'notes/n5.txt', '--to', join(out, '2'), '--json']);
    assert.equal(missing.code, 2, missing.stdout + missing.stderr);
    assert.equal(errorEvent(missing).code, 'NOT_FOUND');
    assert.ok(!existsSync(join(out, '2', 'notes', 'n5.txt')));
  });

  test('rollback to shipment 1 after 6, and the shipments undone apply again', () => {
    ok(brickpost(sub, ['rollback', dest, '--to', '1', '--json']));
    assert.deepEqual(diffSnapshots(snapshot(join(states, '1')), snapshot(dest)), [], 'DEST is the tree of shipment 1');
    assert.deepEqual(
      history().shipments.map((s: any) => s.seq),
      [1],
    );
    for (let seq = 2; seq <= 6; seq++) ingest(seq);
    assert.deepEqual(
      history().shipments.map((s: any) => s.kept),
      [true, true, true, true, true, true],
    );
  });

  test('a pin keeps its point through a prune; a prune past it is refused, naming it; unpin lets it go', () => {
    const pinned = JSON.parse(ok(brickpost(sub, ['pin', dest, '2', '--name', 'before reprocessing', '--json'])).stdout);
    assert.deepEqual(
      pinned.pins.map((p: any) => [p.name, p.seq]),
      [['before reprocessing', 2]],
    );
    const refused = brickpost(sub, ['prune', dest, '--before', '4', '--json']);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr + refused.stdout, /#2 is pinned as "before reprocessing"/);
    assert.deepEqual(
      history().shipments.map((s: any) => s.kept),
      [true, true, true, true, true, true],
      'a refused prune removes nothing',
    );
    const p = JSON.parse(ok(brickpost(sub, ['prune', dest, '--keep-undo', '1', '--json'])).stdout);
    assert.deepEqual(
      p.removed.map((x: any) => x.seq),
      [1, 2],
      'only the undo data the pin does not need goes',
    );
    assert.ok(p.freedBytes > 0);
    let h = history();
    assert.deepEqual(
      h.shipments.map((s: any) => s.kept),
      [false, true, true, true, true, true],
    );
    assert.deepEqual(h.shipments[1].pins, ['before reprocessing']);
    assert.equal(h.keepAll, false);
    assert.equal(h.keepUndo, 1);
    const dup = brickpost(sub, ['pin', dest, '3', '--name', 'before reprocessing']);
    assert.equal(dup.code, 2);
    const u = JSON.parse(ok(brickpost(sub, ['unpin', dest, 'before reprocessing', '--json'])).stdout);
    assert.deepEqual(u.pins, []);
    assert.ok(u.freedBytes > 0, 'unpinning frees the undo data only the pin kept');
    h = history();
    assert.deepEqual(
      h.shipments.map((s: any) => s.kept),
      [false, false, false, false, true, true],
    );
    const far = brickpost(sub, ['rollback', dest, '--to', '2', '--json']);
    assert.equal(far.code, 2, far.stdout + far.stderr);
    ok(brickpost(sub, ['rollback', dest, '--to', '5']));
    assert.deepEqual(diffSnapshots(snapshot(join(states, '5')), snapshot(dest)), [], 'DEST is the tree of shipment 5');
    ok(brickpost(sub, ['prune', dest, '--keep-undo', '0']));
    const store = join(dest, '.brickpost', 'undo-chunks');
    const chunks = readdirSync(store, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    assert.deepEqual(
      chunks.map((e) => e.name),
      [],
      'no chunk is left once nothing keeps one',
    );
  });
});
