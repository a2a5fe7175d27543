/**
 * Damage inside one drive and interrupted writing, end to end through the
 * real CLI: byte ranges corrupted within the drive's recovery budget are
 * found by verify and repaired in place by repair, after which verify
 * --deep passes; damage beyond the budget is reported by file. A pack
 * that stops on a full drive, or is killed, continues with --resume
 * without rewriting the packs it finished, and the result verifies and
 * ingests byte-identical.
 */
import { beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, diffSnapshots, lastEvent, makeDataset, publisherAndSubscriber, shipmentDir, snapshot, tempDir, type Run } from '../support.js';

/** Overwrites LENGTH bytes at OFFSET of a file with a pattern that differs from any content. */
function corrupt(path: string, offset: number, length: number): void {
  const old = readFileSync(path).subarray(offset, offset + length);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from(old.map((b) => b ^ 0xa5)), 0, old.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** The summary event of a --json run (a failed run ends with an error event after it). */
function summaryOf(r: Run): Record<string, any> {
  const ev = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>)
    .find((e) => e.type === 'summary');
  assert.ok(ev, r.stdout.slice(-500) + r.stderr);
  return ev.result;
}

/** Pack files of a bag, largest first. */
function packs(bag: string): string[] {
  return readdirSync(join(bag, 'data', 'packs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.age'))
    .map((f) => join(bag, 'data', 'packs', f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
}

describe('repairing a drive and resuming a pack', () => {
  const root = tempDir();
  const src = join(root, 'src');
  const pub = join(root, 'publisher');
  const sub = join(root, 'subscriber');
  let recipient = '';
  const env = { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) };

  const pack = (dataset: string, drives: string[], extra: string[] = [], opts: { env?: NodeJS.ProcessEnv } = {}): Run => {
    for (const d of drives) mkdirSync(d, { recursive: true });
    return brickpost(pub, ['pack', src, ...drives.flatMap((d) => ['--to', d]), '--recipient', recipient, '--dataset', dataset, '--json', ...extra], {
      env: opts.env ?? env,
    });
  };

  beforeAll(() => {
    makeDataset(src, '8M', 7);
    recipient = publisherAndSubscriber(pub, sub);
  });

  test('damage within the recovery budget: verify reports it, repair fixes it, verify --deep passes', () => {
    const drive = join(root, 'repairable');
    const r = pack('repairable', [drive], ['--recovery', '5']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const bag = shipmentDir(drive);
    const [big] = packs(bag);
    // A run of bad sectors across three 64 KiB blocks of one pack: fewer than the
    // 32 interleaved groups, so each group loses one block and has a recovery block.
    corrupt(big!, 70_000, 150_000);
    const v = brickpost(sub, ['verify', drive, '--json']);
    assert.equal(v.code, 1, v.stdout + v.stderr);
    const rep = summaryOf(v);
    assert.equal(rep.fixity, 'failed');
    assert.equal(rep.repair.repairable, true, JSON.stringify(rep.repair));
    assert.deepEqual(
      rep.repair.files.map((f: { path: string }) => f.path),
      [big!.slice(bag.length + 1)],
    );
    const human = brickpost(sub, ['verify', drive]);
    assert.match(human.stdout + human.stderr, /all repairable in place: run 'brickpost repair'/);
    // Deep verify checks the packs' SHA-256 while it decrypts them; stopped by the damage,
    // it still reports the pack as keyless verify does, ahead of what the decryption found.
    const damaged = brickpost(sub, ['verify', '--deep', drive, '--json']);
    assert.equal(damaged.code, 1, damaged.stdout + damaged.stderr);
    const dr = summaryOf(damaged);
    assert.equal(dr.fixity, 'failed');
    assert.equal(dr.deep, 'failed');
    assert.deepEqual(dr.repair, rep.repair);
    assert.deepEqual(dr.problems.slice(0, rep.problems.length), rep.problems);
    assert.ok(dr.problems.length > rep.problems.length, 'the deep problem follows the fixity ones');
    assert.deepEqual([dr.filesChecked, dr.bytesChecked], [rep.filesChecked, rep.bytesChecked]);

    const fix = brickpost(sub, ['repair', drive, '--json']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    const s = summaryOf(fix);
    assert.equal(s.ok, true);
    assert.deepEqual(
      s.files.map((f: { status: string }) => f.status),
      ['repaired'],
    );
    assert.equal(s.repairedBlocks, 3);
    const deep = brickpost(sub, ['verify', '--deep', drive, '--json']);
    assert.equal(deep.code, 0, deep.stdout + deep.stderr);
    const keyless = summaryOf(brickpost(sub, ['verify', drive, '--json']));
    const whole = summaryOf(deep);
    assert.deepEqual(
      [whole.fixity, whole.filesChecked, whole.bytesChecked],
      ['ok', keyless.filesChecked, keyless.bytesChecked],
      'deep verify counts every payload file',
    );
    const again = lastEvent(brickpost(sub, ['repair', drive, '--dry-run', '--json'])).result;
    assert.equal(again.damagedBlocks, 0);
  });

  test('damage beyond the budget is reported by file, and repair exits 1 naming it', () => {
    const drive = join(root, 'beyond');
    assert.equal(pack('beyond', [drive], ['--recovery', '2']).code, 0);
    const bag = shipmentDir(drive);
    // Every pack overwritten whole: each group loses more blocks than it has recovery blocks.
    const all = packs(bag);
    for (const p of all) corrupt(p, 0, statSync(p).size);
    const rep = summaryOf(brickpost(sub, ['verify', drive, '--json']));
    assert.equal(rep.repair.repairable, false);
    const bad = rep.repair.files
      .filter((f: { repairable: boolean }) => !f.repairable)
      .map((f: { path: string }) => f.path)
      .sort();
    assert.deepEqual(bad, all.map((p) => p.slice(bag.length + 1)).sort(), 'every pack is reported, the intact manifest is not');
    const fix = brickpost(sub, ['repair', drive, '--json']);
    assert.equal(fix.code, 1, fix.stdout + fix.stderr);
    const ev = lastEvent(fix);
    assert.equal(ev.type, 'error');
    assert.match(ev.message, new RegExp(`${all.length} files could not be repaired: .*data/packs/000/0000[0-9]{2}\\.age`));
  });

  test('damaged data without recovery: ingest refuses by default; --skip-damaged takes the intact files and lists the others', () => {
    const drive = join(root, 'skip');
    assert.equal(pack('skip', [drive], ['--recovery', '0']).code, 0);
    const bag = shipmentDir(drive);
    const [big] = packs(bag);
    corrupt(big!, 300_000, 5_000);
    const dest = join(root, 'dest-skip');
    const refused = brickpost(sub, ['ingest', drive, dest, '--json']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(lastEvent(refused).hint, /--skip-damaged ingests the other files/);
    assert.equal(readdirSync(dest).filter((f) => f !== '.brickpost').length, 0, 'nothing is ingested by default');

    const r = brickpost(sub, ['ingest', drive, dest, '--skip-damaged', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const s = lastEvent(r).result;
    assert.ok(s.skipped >= 1 && s.skipped < 10, `skipped ${s.skipped}`);
    const listed = readFileSync(s.skippedList, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string);
    assert.equal(listed.length, s.skipped);
    const want = snapshot(src);
    for (const p of listed) {
      assert.ok(want.delete(p), `${p} is a file of the source`);
      assert.equal(existsSync(join(dest, p)), false, `${p} is left out`);
    }
    assert.deepEqual(diffSnapshots(want, snapshot(dest)), [], 'every other file is ingested intact');
  });

  test('a drive that fills mid-pack stops naming the drive; --resume keeps the finished packs', () => {
    const drives = [join(root, 'full', 'd1'), join(root, 'full', 'd2'), join(root, 'full', 'd3')];
    // The 100th write to a drive fails as if the drive were full.
    const stop = pack('resumed', drives, [], { env: { ...env, BRICKPOST_FAILPOINT: 'drive-write@100' } });
    assert.equal(stop.code, 5, stop.stdout + stop.stderr);
    const ev = lastEvent(stop);
    assert.equal(ev.code, 'NO_SPACE');
    assert.match(ev.message, /is full \(simulated\); the shipment is kept unfinished \([0-9]+ finished packs\)/);
    assert.match(ev.hint, /--resume/);
    const done = pack('resumed', drives, ['--resume']);
    assert.equal(done.code, 0, done.stdout + done.stderr);
    const s = lastEvent(done).result;
    assert.ok(s.packsKept > 0, `packs kept: ${s.packsKept}`);
    assert.equal(brickpost(sub, ['verify', '--deep', drives[0]!]).code, 0);
    const dest = join(root, 'dest-resumed');
    const ing = brickpost(sub, ['ingest', drives[1]!, drives[2]!, dest, '--json']);
    assert.equal(ing.code, 0, ing.stdout + ing.stderr);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);
  });

  test('a pack killed after some packs are closed resumes; without --resume a new shipment replaces it', () => {
    const drive = join(root, 'killed');
    assert.throws(() => pack('killed', [drive], [], { env: { ...env, BRICKPOST_FAILPOINT: 'pack-close@3' } }), /killed by SIGKILL/);
    assert.equal(readdirSync(join(drive, 'brickpost')).filter((n) => n.endsWith('.part')).length, 1);
    const done = pack('killed', [drive], ['--resume']);
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.equal(lastEvent(done).result.packsKept, 3);
    const dest = join(root, 'dest-killed');
    assert.equal(brickpost(sub, ['ingest', drive, dest]).code, 0);
    assert.deepEqual(diffSnapshots(snapshot(src), snapshot(dest)), []);

    const other = join(root, 'killed-again');
    assert.throws(() => pack('killed2', [other], [], { env: { ...env, BRICKPOST_FAILPOINT: 'pack-close@1' } }), /killed by SIGKILL/);
    const fresh = pack('killed2', [other]);
    assert.equal(fresh.code, 0, fresh.stdout + fresh.stderr);
    assert.match(fresh.stdout + fresh.stderr, /was interrupted; a new shipment replaces it/);
    assert.deepEqual(
      readdirSync(join(other, 'brickpost')).filter((n) => n.endsWith('.part')),
      [],
      'the unfinished shipment is removed',
    );
    assert.equal(brickpost(pub, ['pack', src, '--to', other, '--dataset', 'nothing-here', '--resume']).code, 2);
  });
});
