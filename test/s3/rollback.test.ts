/**
 * Rollback of a bucket prefix through the real CLI, against a real S3
 * server (versitygw): the objects a shipment replaces or deletes are kept
 * under .brickpost/undo/SEQ/ and copied back, byte for byte with their
 * metadata, and the objects it added go; a rollback killed half way is
 * reported by status and finished by resume or the next command; an ingest
 * killed after its undo copies keeps them right; a prefix that keeps no
 * undo (or not that far back) refuses with exit 2, changing nothing.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { brickpost, CLI, errorEvent, lastEvent, publisherAndSubscriber, tempDir, type Run } from '../support.js';
import { bytes, diffObjects, keys, objects, put, type ObjectNode } from './helpers.js';
import { s3Skip, startS3, type S3Server } from './server.js';

const skip = s3Skip();

describe.skipIf(skip)(`object storage: rollback of a bucket prefix${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  let pub: string;
  let sub: string;
  const drives: string[] = [];
  const run = (home: string, args: string[]): Run => brickpost(home, [...args, '--json'], { env: s3.env });
  const ok = (r: Run): Record<string, any> => {
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`);
    return lastEvent(r).result;
  };
  /** A command that dies at failpoint `NAME@K` (SIGKILL, as a power cut would stop it). */
  const killedAt = (point: string, args: string[]): void => {
    const r = spawnSync(process.execPath, [CLI, '--home', sub, ...args, '--json'], { env: { ...s3.env, BRICKPOST_FAILPOINT: point }, encoding: 'utf8' });
    assert.equal(r.signal, 'SIGKILL', `expected a kill at ${point}: exit ${r.status} ${r.stdout.slice(-800)} ${r.stderr.slice(-800)}`);
  };
  const state = async (prefix: string): Promise<string[]> => keys(s3.client, 'dest', `${prefix}/.brickpost/`);
  const dest = async (prefix: string): Promise<Map<string, ObjectNode>> => objects(s3.client, 'dest', `${prefix}/`);
  const history = (prefix: string): Record<string, any> => {
    const h = brickpost(sub, ['history', `s3://dest/${prefix}`, '--json'], { env: s3.env });
    assert.equal(h.code, 0, h.stderr);
    return JSON.parse(h.stdout) as Record<string, any>;
  };

  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('source');
    await s3.bucket('dest');
    const base = tempDir('bp-s3rb-');
    pub = `${base}/pub`;
    sub = `${base}/sub`;
    const recipient = publisherAndSubscriber(pub, sub);
    const pack = (): void => {
      const drive = tempDir('bp-s3rb-drive-');
      const r = run(pub, ['pack', 's3://source/data', '--to', drive, '-r', recipient, '--dataset', 'rb']);
      ok(r);
      drives.push(drive);
    };
    // Shipment 1: metadata, a content type, a folder marker, a multipart-sized object.
    await put(s3.client, 'source', 'data/readme.txt', 'first readme\n', { contentType: 'text/plain', metadata: { owner: 'lab-7', 'run-id': '42' } });
    await put(s3.client, 'source', 'data/markers/', Buffer.alloc(0));
    for (let i = 0; i < 6; i++)
      await put(s3.client, 'source', `data/images/img-${i}.bin`, bytes(`img${i}`, 1000 + i * 4099), { contentType: 'application/octet-stream' });
    await put(s3.client, 'source', 'data/deep/file.json', '{"a": 1}\n', { contentType: 'application/json', metadata: { note: 'ünïcödé value' } });
    await put(s3.client, 'source', 'data/big.bin', bytes('big', 12 << 20), { metadata: { kind: 'large' } });
    pack();
    // Shipment 2: a changed object with new metadata, a replaced and a deleted one, a marker gone, objects added.
    await put(s3.client, 'source', 'data/readme.txt', 'second readme, longer\n', { contentType: 'text/markdown', metadata: { owner: 'lab-8' } });
    await put(s3.client, 'source', 'data/images/img-1.bin', 'replaced');
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'source', Key: 'data/images/img-2.bin' }));
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'source', Key: 'data/markers/' }));
    await put(s3.client, 'source', 'data/new/added.txt', 'added by shipment 2', { contentType: 'text/plain' });
    pack();
    // Shipment 3: more replaced objects, the large one changed in place, one more added.
    await put(s3.client, 'source', 'data/images/img-3.bin', 'three');
    await put(s3.client, 'source', 'data/images/img-4.bin', 'four');
    const big = bytes('big', 12 << 20);
    bytes('patch', 4096).copy(big, 5 << 20);
    await put(s3.client, 'source', 'data/big.bin', big, { metadata: { kind: 'large', rev: '3' } });
    await put(s3.client, 'source', 'data/new/third.txt', 'added by shipment 3');
    pack();
  });
  afterAll(() => s3?.stop());

  test('rollback to the first shipment: every object and its metadata as after shipment 1, added objects gone; the shipment applies again', async () => {
    ok(run(sub, ['ingest', drives[0]!, 's3://dest/rb']));
    const after1 = await dest('rb');
    assert.equal(after1.get('readme.txt')!.contentType, 'text/plain');
    assert.ok(after1.has('markers/'));
    ok(run(sub, ['ingest', drives[1]!, 's3://dest/rb']));
    const after2 = await dest('rb');
    assert.ok(diffObjects(after1, after2).length >= 5, 'shipment 2 changed the prefix');
    // The replaced and deleted objects of shipment 1 are kept under undo/2/; unchanged ones are not copied.
    const undo = (await state('rb')).filter((k) => k.startsWith('undo/'));
    assert.deepEqual(undo, ['undo/2/images/img-1.bin', 'undo/2/images/img-2.bin', 'undo/2/markers/', 'undo/2/readme.txt']);
    const h = history('rb');
    assert.deepEqual(
      h.shipments.map((s: Record<string, unknown>) => [s.seq, s.undoable, s.kept]),
      [
        [1, false, true],
        [2, true, true],
      ],
    );
    assert.equal(h.keepUndo, 3);
    assert.ok(h.shipments[1].undoBytes > 0 && h.undoBytes === h.shipments[1].undoBytes);

    const r = ok(run(sub, ['rollback', 's3://dest/rb', '--to', '1']));
    assert.deepEqual(
      r.undone.map((u: { seq: number }) => u.seq),
      [2],
    );
    assert.deepEqual(diffObjects(after1, await dest('rb')), []);
    // Only the state and the tree of shipment 1 stay: no undo, no journal.
    const left = await state('rb');
    assert.equal(left.length, 2, left.join(', '));
    assert.ok(left.includes('state.json') && left[1]!.startsWith('trees/'));
    assert.deepEqual(
      history('rb').shipments.map((s: { seq: number }) => s.seq),
      [1],
    );
    // Rolled back, shipment 2 applies again, to the same objects.
    ok(run(sub, ['ingest', drives[1]!, 's3://dest/rb']));
    assert.deepEqual(diffObjects(after2, await dest('rb')), []);
  });

  test('a rollback killed while restoring, then while writing the state: status says so (exit 7), resume finishes it', async () => {
    ok(run(sub, ['rollback', 's3://dest/rb', '--to', '1']));
    const want = await dest('rb');
    ok(run(sub, ['ingest', drives[1]!, 's3://dest/rb']));
    ok(run(sub, ['ingest', drives[2]!, 's3://dest/rb']));
    assert.deepEqual(
      history('rb').shipments.map((s: { kept: boolean }) => s.kept),
      [true, true, true],
    );
    // Undoing 3 stops after two objects are copied back.
    killedAt('s3-rollback-restore@2', ['rollback', 's3://dest/rb', '--to', '1']);
    assert.ok((await state('rb')).includes('rollback.json'));
    const st = brickpost(sub, ['status', 's3://dest/rb', '--json'], { env: s3.env });
    assert.equal(st.code, 7, st.stdout + st.stderr);
    const doc = JSON.parse(st.stdout) as Record<string, any>;
    assert.equal(doc.inProgress.kind, 'rollback');
    assert.equal(doc.inProgress.seq, 1);
    assert.equal(doc.next, 'brickpost resume s3://dest/rb');
    // The same rollback again dies once shipment 3 is undone and the state says 2.
    killedAt('s3-rollback-state@1', ['rollback', 's3://dest/rb', '--to', '1']);
    assert.equal(history('rb').shipments.length, 2);
    assert.equal(history('rb').inProgress.kind, 'rollback');
    const res = run(sub, ['resume', 's3://dest/rb']);
    const s = ok(res);
    assert.match(s.finished, /the rollback to shipment .* \(seq 1\)/);
    assert.equal(s.current.seq, 1);
    assert.deepEqual(diffObjects(want, await dest('rb')), []);
    assert.equal(brickpost(sub, ['status', 's3://dest/rb'], { env: s3.env }).code, 0);
    assert.deepEqual(
      (await state('rb')).filter((k) => !k.startsWith('trees/')),
      ['state.json'],
    );
    // Nothing left to finish: not an error.
    assert.equal(ok(run(sub, ['resume', 's3://dest/rb'])).finished, null);
  });

  test('an ingest killed while copying its undo objects, then while installing, is finished by the next command; rollback then restores shipment 1', async () => {
    ok(run(sub, ['ingest', drives[0]!, 's3://dest/crash']));
    const after1 = await dest('crash');
    // Killed while copying the old objects to undo/2/, then (the next run copying the rest) while installing.
    killedAt('s3-undo@2', ['ingest', drives[1]!, 's3://dest/crash']);
    killedAt('s3-apply@2', ['ingest', drives[1]!, 's3://dest/crash']);
    const st = brickpost(sub, ['status', 's3://dest/crash', '--json'], { env: s3.env });
    assert.equal(st.code, 7);
    assert.equal((JSON.parse(st.stdout) as Record<string, any>).inProgress.kind, 'ingest');
    // rollback finishes the commit first (the undo copies made before the kill are kept as they were), then undoes it.
    const r = run(sub, ['rollback', 's3://dest/crash', '--to', '1']);
    ok(r);
    assert.match(r.stdout, /finishing the interrupted ingest/);
    assert.deepEqual(diffObjects(after1, await dest('crash')), []);
  });

  test('rollback refused where no undo is kept: exit 2, a message naming the shipment, nothing changed', async () => {
    ok(run(sub, ['ingest', drives[0]!, 's3://dest/none', '--keep-undo', '0']));
    ok(run(sub, ['ingest', drives[1]!, 's3://dest/none']));
    assert.deepEqual(
      (await state('none')).filter((k) => !k.startsWith('trees/')),
      ['state.json'],
    );
    assert.equal((await state('none')).length, 2, 'only the current tree is kept');
    const before = await dest('none');
    const r = run(sub, ['rollback', 's3://dest/none', '--to', '1']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const e = errorEvent(r);
    assert.equal(e.code, 'USAGE');
    assert.match(e.message, /cannot roll s3:\/\/dest\/none back to seq 1: the undo objects of shipment .* \(seq 2\) were not kept \(ingest kept none\)/);
    assert.match(e.hint, /--keep-undo/);
    assert.deepEqual(diffObjects(before, await dest('none')), []);
    assert.deepEqual(
      history('none').shipments.map((s: Record<string, unknown>) => [s.undoable, s.kept]),
      [
        [false, false],
        [false, true],
      ],
    );
    // Keeping the last one: shipment 2's undo goes when 3 is committed; rollback reaches 2, not 1.
    ok(run(sub, ['ingest', drives[0]!, 's3://dest/one', '--keep-undo', '1']));
    ok(run(sub, ['ingest', drives[1]!, 's3://dest/one']));
    const after2 = await dest('one');
    ok(run(sub, ['ingest', drives[2]!, 's3://dest/one']));
    const undoDirs = new Set((await state('one')).filter((k) => k.startsWith('undo/')).map((k) => k.split('/')[1]));
    assert.deepEqual([...undoDirs], ['3']);
    assert.equal(run(sub, ['rollback', 's3://dest/one', '--to', '1']).code, 2);
    ok(run(sub, ['rollback', 's3://dest/one', '--to', '2']));
    assert.deepEqual(diffObjects(after2, await dest('one')), []);
    // A bucket keeps undo by count only: --keep-days is refused before anything is written.
    const days = run(sub, ['ingest', drives[0]!, 's3://dest/days', '--keep-days', '7']);
    assert.equal(days.code, 2, days.stdout + days.stderr);
    assert.match(errorEvent(days).message, /keeps the undo of its last shipments by count/);
    assert.deepEqual(await keys(s3.client, 'dest', 'days/'), []);
    // Unknown shipment: not found (exit 2).
    const missing = run(sub, ['rollback', 's3://dest/one', '--to', '9']);
    assert.equal(missing.code, 2);
    assert.equal(errorEvent(missing).code, 'NOT_FOUND');
  });
});
