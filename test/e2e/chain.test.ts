/**
 * A chain of incremental shipments end to end through the real CLI: four
 * shipments of one dataset, with make_dataset.py --mutate between them and
 * edits by hand of every kind (an insert that shifts a large file, an
 * overwrite, an append, deletes, a moved file, a renamed folder, a mode
 * change, an mtime-only change, a file replaced by a folder and back, empty
 * files). After every ingest the destination equals the source (bytes,
 * paths, mtimes, modes), and the incremental shipments are a fraction of the
 * full one. Then the refusals (replay, gap, fork, a basis file edited in the
 * destination, each leaving the destination untouched), the repair shipment
 * packed against the subscriber's request file, history and rollback.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  brickpost,
  diffSnapshots,
  errorEvent,
  lastEvent,
  MAKE_DATASET,
  makeDataset,
  sh,
  snapshot,
  tempDir,
  type Node,
  type Run,
  bytes,
  overwriteAt,
} from '../support.js';

/** Text lines, compressible like a log. */
function text(seed: string, n: number): Buffer {
  const lines: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const l = `${seed} line ${i}: value=${(i * 7919) % 10007} status=${i % 3 ? 'ok' : 'retry'}\n`;
    lines.push(l);
    len += l.length;
  }
  return Buffer.from(lines.join('')).subarray(0, n);
}

/** Writes DATA at POSITION of an existing file, without changing its size otherwise. */
/** Inserts DATA at POSITION of a file, shifting the rest. */
function insertAt(path: string, position: number, data: Buffer): void {
  const old = readFileSync(path);
  writeFileSync(path, Buffer.concat([old.subarray(0, position), data, old.subarray(position)]));
}

/** make_dataset.py --mutate 5 --seed SEED on DIR; returns its JSON summary. */
function mutate(dir: string, seed: number): Record<string, any> {
  return JSON.parse(sh('python3', [MAKE_DATASET, dir, '--mutate', '5', '--seed', String(seed), '-q']).toString('utf8'));
}

const copyTree = (from: string, to: string): void => void sh('cp', ['-a', from, to]);
const files = (s: Map<string, Node>): Node[] => [...s.values()].filter((n) => n.type === 'file');

describe('a chain of incremental shipments', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const dest = join(root, 'dest');
  /** A second subscriber destination that falls behind, then has a basis file edited. */
  const lagging = join(root, 'dest-lagging');
  const pub = join(root, 'publisher');
  const pubFork = join(root, 'publisher-fork');
  const sub = join(root, 'subscriber');
  const states = join(root, 'states');
  const hand = join(src, 'handmade');
  let recipient = '';
  /** Summaries of shipments 1…4 by seq, and the drive folder of each. */
  const shipped: Record<number, Record<string, any>> = {};
  const drives: Record<number, string> = {};
  const state = (seq: number): string => join(states, String(seq));

  const pack = (home: string, drive: string, label: string, extra: string[] = []): Run => {
    mkdirSync(drive, { recursive: true });
    return brickpost(home, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'survey', '--label', label, '--json', ...extra]);
  };
  const ingest = (drive: string, to: string, extra: string[] = []): Run => brickpost(sub, ['ingest', drive, to, '--json', ...extra]);

  /** Packs shipment SEQ from the source as it is now, and keeps a copy of that source state. */
  const ship = (seq: number): Record<string, any> => {
    drives[seq] = join(root, `drive${seq}`);
    const r = pack(pub, drives[seq], `s${seq}`);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = lastEvent(r).result;
    shipped[seq] = s;
    copyTree(src, state(seq));
    return s;
  };

  const assertApplied = (r: Run, to: string, seq: number): void => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(lastEvent(r).result.alreadyApplied, false);
    assert.deepEqual(diffSnapshots(snapshot(state(seq)), snapshot(to)), [], `the destination equals source state ${seq}`);
  };

  /** Asserts that the run was refused with exit 6 and CODE, and that DEST did not change. */
  const assertRefused = (r: Run, code: string, to: string, before: Map<string, Node>): Record<string, any> => {
    assert.equal(r.code, 6, r.stdout + r.stderr);
    const ev = errorEvent(r);
    assert.equal(ev.code, code, ev.message);
    assert.equal(ev.exitCode, 6);
    assert.deepEqual(diffSnapshots(before, snapshot(to)), [], 'a refused shipment leaves the destination unchanged');
    return ev;
  };

  /**
   * Files that shipment TO reuses from shipment FROM as they are (same path,
   * content, size, mode, mtime), larger than 64 KiB and whose content is
   * nowhere else in the tree (so no other file can stand in for them):
   * the two largest.
   */
  const reusedFiles = (from: number, to: number): [string, string] => {
    const a = snapshot(state(from));
    const b = snapshot(state(to));
    const count = new Map<string, number>();
    for (const n of files(b)) count.set(n.sha256!, (count.get(n.sha256!) ?? 0) + 1);
    const reused = [...b]
      .filter(
        ([p, n]) =>
          n.type === 'file' &&
          n.size >= 64 << 10 &&
          count.get(n.sha256!) === 1 &&
          !p.startsWith('binary/vm/') &&
          JSON.stringify(a.get(p)) === JSON.stringify(n),
      )
      .sort((x, y) => y[1].size - x[1].size)
      .map(([p]) => p);
    const [first, second] = reused;
    assert.ok(first !== undefined && second !== undefined, `shipment ${to} reuses at least two unique files of shipment ${from}`);
    return [first, second];
  };

  /** Asserts that an incremental pack summary is relative to shipment BASE and much smaller than the full one. */
  const assertIncremental = (s: Record<string, any>, seq: number): void => {
    for (const k of ['shipmentId', 'seq', 'parent', 'bases', 'full', 'bytesOnDrive', 'chunksHeld', 'bytesHeld', 'chunksDelta', 'filesUnchanged', 'notes']) {
      assert.ok(k in s, `pack summary lacks ${k}: ${JSON.stringify(s)}`);
    }
    assert.equal(s.full, false);
    assert.equal(s.seq, seq);
    assert.equal(s.parent, shipped[seq - 1]!.shipmentId);
    assert.ok(JSON.stringify(s.bases).includes(shipped[seq - 1]!.shipmentId), `bases name shipment ${seq - 1}: ${JSON.stringify(s.bases)}`);
    assert.ok(s.chunksHeld > 0 && s.bytesHeld > 0, 'unchanged data is held, not shipped again');
    assert.ok(s.filesUnchanged > 0);
    const full = shipped[1]!.bytesOnDrive;
    assert.ok(s.bytesOnDrive < 0.25 * full, `shipment ${seq} has ${s.bytesOnDrive} bytes on the drive, the full one ${full}`);
  };

  beforeAll(() => {
    for (const [h, name] of [
      [pub, 'publisher'],
      [sub, 'subscriber'],
    ] as const) {
      const r = brickpost(h, ['keygen', '--name', name]);
      assert.equal(r.code, 0, r.stderr);
    }
    recipient = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).recipient;
    const pk = JSON.parse(brickpost(pub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(sub, ['trust', 'add', pk, '--name', 'publisher']).code, 0);
    mkdirSync(states);
    makeDataset(src, '24M', 1);
    // Hand-made files for the edits make_dataset.py --mutate does not do. Fixed
    // past mtimes, so any later edit changes the mtime the publisher sees.
    mkdirSync(join(hand, 'gone'), { recursive: true });
    mkdirSync(join(hand, 'dir-old', 'deep'), { recursive: true });
    mkdirSync(join(hand, 'sub'));
    writeFileSync(join(hand, 'big.bin'), bytes('big', 8 << 20));
    writeFileSync(join(hand, 'overwrite.bin'), bytes('overwrite', 2 << 20));
    writeFileSync(join(hand, 'append.log'), text('append', 100 << 10));
    writeFileSync(join(hand, 'delete-me.bin'), bytes('delete', 300 << 10));
    writeFileSync(join(hand, 'gone', 'a.txt'), text('gone-a', 3000));
    writeFileSync(join(hand, 'gone', 'b.bin'), bytes('gone-b', 40 << 10));
    writeFileSync(join(hand, 'move-me.bin'), bytes('move', 200 << 10));
    writeFileSync(join(hand, 'dir-old', 'x.txt'), text('x', 5000));
    writeFileSync(join(hand, 'dir-old', 'deep', 'y.bin'), bytes('y', 50 << 10));
    writeFileSync(join(hand, 'sub', 'keep.txt'), 'kept\n');
    writeFileSync(join(hand, 'run.sh'), '#!/bin/sh\necho run\n');
    chmodSync(join(hand, 'run.sh'), 0o644);
    writeFileSync(join(hand, 'touch.txt'), text('touch', 2000));
    writeFileSync(join(hand, 'flip'), text('flip', 10 << 10));
    let t = 1_700_000_000;
    for (const p of [
      'big.bin',
      'overwrite.bin',
      'append.log',
      'delete-me.bin',
      'gone/a.txt',
      'gone/b.bin',
      'move-me.bin',
      'dir-old/x.txt',
      'dir-old/deep/y.bin',
      'sub/keep.txt',
      'run.sh',
      'touch.txt',
      'flip',
      'dir-old/deep',
      'dir-old',
      'gone',
      'sub',
      '.',
    ]) {
      utimesSync(join(hand, p), t, (t += 1000));
    }
  });

  test('shipment 1 is full and gives the source exactly', () => {
    const s = ship(1);
    assertApplied(ingest(drives[1]!, dest), dest, 1);
    assertApplied(ingest(drives[1]!, lagging), lagging, 1);
    assert.equal(s.seq, 1);
    assert.equal(s.parent, null);
    assert.equal(s.full, true);
    assert.deepEqual(s.bases, []);
  });

  test('shipment 2 carries only the changes: mutate, insert, append, deletes, moves, mode, mtime, file to folder, empty file', () => {
    mutate(src, 2);
    insertAt(join(hand, 'big.bin'), (3 << 20) + 7, bytes('inserted', 64 << 10));
    writeFileSync(join(hand, 'append.log'), text('appended', 10 << 10), { flag: 'a' });
    rmSync(join(hand, 'delete-me.bin'));
    rmSync(join(hand, 'gone'), { recursive: true });
    renameSync(join(hand, 'move-me.bin'), join(hand, 'sub', 'moved.bin'));
    renameSync(join(hand, 'dir-old'), join(hand, 'dir-new'));
    chmodSync(join(hand, 'run.sh'), 0o755);
    utimesSync(join(hand, 'touch.txt'), 1_700_500_000, 1_700_500_000);
    rmSync(join(hand, 'flip'));
    mkdirSync(join(hand, 'flip'));
    writeFileSync(join(hand, 'flip', 'inner.txt'), 'now a folder\n');
    writeFileSync(join(hand, 'new-empty'), '');
    const s = ship(2);
    assertApplied(ingest(drives[2]!, dest), dest, 2);
    assertApplied(ingest(drives[2]!, lagging), lagging, 2);
    for (const p of ['delete-me.bin', 'gone', 'move-me.bin', 'dir-old']) assert.ok(!existsSync(join(dest, 'handmade', p)), `${p} is gone`);
    assert.equal(lstatSync(join(dest, 'handmade', 'run.sh')).mode & 0o777, 0o755);
    assert.ok(lstatSync(join(dest, 'handmade', 'flip')).isDirectory());
    assert.equal(lstatSync(join(dest, 'handmade', 'new-empty')).size, 0);
    assertIncremental(s, 2);
    assert.ok(s.chunksDelta > 0, 'the chunk around the insert in big.bin travels as a delta against the old big.bin');
  });

  test('shipment 3: an overwrite, the folder back to a file, a file emptied; replaying shipment 2 is refused', () => {
    mutate(src, 3);
    overwriteAt(join(hand, 'overwrite.bin'), (1 << 20) + 123, bytes('overwritten', 16 << 10));
    rmSync(join(hand, 'flip'), { recursive: true });
    writeFileSync(join(hand, 'flip'), text('flip', 10 << 10));
    writeFileSync(join(hand, 'touch.txt'), '');
    const s = ship(3);
    assertApplied(ingest(drives[3]!, dest), dest, 3);
    assert.ok(lstatSync(join(dest, 'handmade', 'flip')).isFile());

    const before = snapshot(dest);
    assertRefused(ingest(drives[2]!, dest), 'CHAIN_REPLAY', dest, before);
    const again = ingest(drives[3]!, dest);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(lastEvent(again).result.alreadyApplied, true, 'applying the same shipment twice does nothing');
    assert.deepEqual(diffSnapshots(before, snapshot(dest)), []);
    assertIncremental(s, 3);
  });

  test('shipment 4 from two copies of the publisher: the second one applied is a fork', () => {
    mutate(src, 4);
    insertAt(join(hand, 'big.bin'), 0, bytes('prepended', 4 << 10));
    writeFileSync(join(hand, 'new-empty'), 'not empty any more\n');
    copyTree(pub, pubFork);
    const s = ship(4);
    const forkDrive = join(root, 'drive4-fork');
    const f = pack(pubFork, forkDrive, 's4-fork');
    assert.equal(f.code, 0, f.stdout + f.stderr);
    const forked = lastEvent(f).result;
    assert.equal(forked.seq, 4);
    assert.equal(forked.parent, shipped[3]!.shipmentId);
    assert.notEqual(forked.shipmentId, s.shipmentId);

    assertApplied(ingest(drives[4]!, dest), dest, 4);
    const before = snapshot(dest);
    assertRefused(ingest(forkDrive, dest), 'CHAIN_FORK', dest, before);
    assertIncremental(s, 4);
  });

  test('shipment 4 on a destination at shipment 2 is a gap naming 2 and 3', () => {
    const before = snapshot(lagging);
    const ev = assertRefused(ingest(drives[4]!, lagging), 'CHAIN_GAP', lagging, before);
    // Shipment ids and folder paths hold digits too; look at the rest.
    const words = String(ev.message)
      .replaceAll(lagging, 'DEST')
      .replace(/\d{8}T\d{6}Z-[0-9a-f]+/g, 'ID');
    assert.match(words, /\b2\b/, ev.message);
    assert.match(words, /\b3\b/, ev.message);
  });

  test('a basis file edited in the destination refuses the shipment and writes a request; the repair shipment packed against it applies', () => {
    assertApplied(ingest(drives[3]!, lagging), lagging, 3);
    const [edited, other] = reusedFiles(3, 4);
    const id4 = shipped[4]!.shipmentId;

    // An ordinary local edit (the mtime changes).
    overwriteAt(join(lagging, edited), 4096, bytes('local edit', 4096));
    let before = snapshot(lagging);
    let ev = assertRefused(ingest(drives[4]!, lagging), 'BASIS_MISSING', lagging, before);
    const request = join(lagging, '.brickpost', 'requests', `${id4}.bpsig`);
    assert.ok(existsSync(request), `request file at ${request}`);
    assert.ok(String(ev.message).includes(request), `the message names the request file: ${ev.message}`);

    // Put that file back, then edit another one (appending to it).
    copyTree(join(state(3), edited), join(lagging, edited));
    writeFileSync(join(lagging, other), 'local addition\n', { flag: 'a' });
    const requestOut = join(root, 'request.bpsig');
    before = snapshot(lagging);
    ev = assertRefused(ingest(drives[4]!, lagging, ['--request-out', requestOut]), 'BASIS_MISSING', lagging, before);
    assert.ok(existsSync(requestOut), 'the request file is written where --request-out says');
    assert.ok(JSON.stringify(ev).includes(requestOut), `the error event names the request file: ${JSON.stringify(ev)}`);

    // Before it trusts the subscriber's key, the publisher refuses the request.
    const repairDrive = join(root, 'drive-repair');
    const untrusted = pack(pub, repairDrive, 'repair', ['--against', requestOut]);
    assert.equal(untrusted.code, 3, untrusted.stdout + untrusted.stderr);
    const subKey = JSON.parse(brickpost(sub, ['whoami', '--json']).stdout).minisignPublicKey;
    assert.equal(brickpost(pub, ['trust', 'add', subKey, '--name', 'subscriber']).code, 0);
    const r = pack(pub, repairDrive, 'repair', ['--against', requestOut]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const repair = lastEvent(r).result;
    assert.equal(repair.full, false);
    // Built against a request, a shipment has no deltas (changed chunks travel whole): smaller than the full one, not as small as shipment 4.
    assert.ok(repair.bytesHeld > 0.5 * repair.bytesIn, `most of the tree is held: ${JSON.stringify(repair)}`);
    assert.ok(
      repair.bytesOnDrive < 0.5 * shipped[1]!.bytesOnDrive,
      `the repair shipment has ${repair.bytesOnDrive} bytes on the drive, the full one ${shipped[1]!.bytesOnDrive}; shipment 4 had ${shipped[4]!.bytesOnDrive}: ${JSON.stringify(repair)}`,
    );
    const applied = ingest(repairDrive, lagging);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.deepEqual(diffSnapshots(snapshot(state(4)), snapshot(lagging)), [], 'the repair gives source state 4');
  });

  test('a basis file edited in place keeping its size and mtime is found out when the shipment reuses its data', () => {
    // Shipment 2 onto a fresh destination at shipment 1, after an edit that
    // only the content shows, in handmade/big.bin: shipment 2 rebuilds the new
    // big.bin from the old one's chunks and a delta against it, and checks
    // every chunk it takes from there against its id. (A file a shipment
    // leaves unchanged is trusted on its size and mtime, as rsync does.)
    const fresh = join(root, 'dest-same-stat');
    // This home applied later shipments elsewhere: starting a destination at seq 1 is on purpose.
    assertApplied(ingest(drives[1]!, fresh, ['--allow-older']), fresh, 1);
    const file = join(fresh, 'handmade', 'big.bin');
    const st = lstatSync(file);
    overwriteAt(file, 1 << 20, bytes('same-stat edit', 4096));
    utimesSync(file, st.atime, st.mtime);
    assert.equal(lstatSync(file).mtimeMs, st.mtimeMs);
    const before = snapshot(fresh);
    const r = ingest(drives[2]!, fresh);
    if (r.code === 0)
      assert.fail(`ingest succeeded; the destination differs from source state 2: ${diffSnapshots(snapshot(state(2)), snapshot(fresh)).join('; ')}`);
    assertRefused(r, 'BASIS_MISSING', fresh, before);
    assert.match(lastEvent(r).message, /big\.bin/);
  });

  test('history lists the shipments with seq, label, date and size', () => {
    const r = brickpost(sub, ['history', dest, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const h = JSON.parse(r.stdout);
    assert.equal(h.dataset, 'survey');
    assert.deepEqual(
      h.shipments.map((x: { seq: number }) => x.seq),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      h.shipments.map((x: { label: string }) => x.label),
      ['s1', 's2', 's3', 's4'],
    );
    assert.deepEqual(
      h.shipments.map((x: { shipmentId: string }) => x.shipmentId),
      [1, 2, 3, 4].map((i) => shipped[i]!.shipmentId),
    );
    let last = 0;
    for (const [i, x] of h.shipments.entries()) {
      const t = Date.parse(x.appliedAt);
      assert.ok(t >= last, `appliedAt of #${i + 1} is a date, in order: ${x.appliedAt}`);
      last = t;
      const tree = files(snapshot(state(i + 1)));
      assert.equal(x.files, tree.length, `files of #${i + 1}`);
      assert.equal(
        x.bytes,
        tree.reduce((n, f) => n + f.size, 0),
        `bytes of #${i + 1}`,
      );
    }
    const textOut = brickpost(sub, ['history', dest]).stdout;
    for (const i of [1, 2, 3, 4]) assert.match(textOut, new RegExp(`#${i} .*s${i}`));
  });

  test('rollback to each of the last three points gives that tree; a rolled-back shipment applies again', () => {
    let r = brickpost(sub, ['rollback', dest, '--to', shipped[3]!.shipmentId, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(diffSnapshots(snapshot(state(3)), snapshot(dest)), [], 'rolled back to shipment 3');
    assertApplied(ingest(drives[4]!, dest), dest, 4);
    for (const seq of [2, 1]) {
      r = brickpost(sub, ['rollback', dest, '--to', String(seq), '--json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(diffSnapshots(snapshot(state(seq)), snapshot(dest)), [], `rolled back to shipment ${seq}`);
    }
    const h = JSON.parse(brickpost(sub, ['history', dest, '--json']).stdout);
    assert.deepEqual(
      h.shipments.map((x: { seq: number }) => x.seq),
      [1],
      'history after rolling back to shipment 1',
    );
  });
});
