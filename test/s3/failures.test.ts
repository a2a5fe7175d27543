/**
 * Object storage when things go wrong, against a real S3 server
 * (versitygw): an ingest killed while uploading (before the commit point:
 * the prefix is untouched, the next run keeps what was staged) and while
 * installing (after it: the next run finishes); refused credentials; a
 * user without rights on the bucket; a bucket that does not exist. The
 * secret never appears in what brickpost prints.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brickpost, CLI, errorEvent, lastEvent, makeDataset, publisherAndSubscriber, tempDir, type Run } from '../support.js';
import { diffObjects, keys, objects, put } from './helpers.js';
import { findVersitygw, s3Skip, startS3, type S3Server } from './server.js';

const skip = s3Skip();

describe.skipIf(skip)(`object storage: crashes and refusals${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  let pub: string;
  let sub: string;
  let recipient: string;
  let src: string;
  let drive1: string;
  let drive2: string;
  const run = (home: string, args: string[], env: NodeJS.ProcessEnv = s3.env): Run => brickpost(home, [...args, '--json'], { env });
  const ok = (r: Run): Record<string, any> => {
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`);
    return lastEvent(r).result;
  };
  /** An ingest that dies at failpoint `NAME@K` (SIGKILL, as a power cut would stop it). */
  const killedAt = (point: string, drive: string, dest: string): void => {
    const r = spawnSync(process.execPath, [CLI, '--home', sub, 'ingest', drive, dest, '--json'], {
      env: { ...s3.env, BRICKPOST_FAILPOINT: point },
      encoding: 'utf8',
    });
    assert.equal(r.signal, 'SIGKILL', `expected a kill at ${point}: exit ${r.status} ${r.stdout.slice(-800)} ${r.stderr.slice(-800)}`);
  };

  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('dest');
    const base = tempDir('bp-s3f-');
    pub = join(base, 'pub');
    sub = join(base, 'sub');
    recipient = publisherAndSubscriber(pub, sub);
    src = join(base, 'data');
    makeDataset(src, '4M', 11);
    drive1 = join(base, 'drive1');
    drive2 = join(base, 'drive2');
    mkdirSync(drive1);
    mkdirSync(drive2);
    ok(run(pub, ['pack', src, '--to', drive1, '-r', recipient]));
    writeFileSync(join(src, 'added-later.txt'), 'second shipment\n');
    ok(run(pub, ['pack', src, '--to', drive2, '-r', recipient]));
  });
  afterAll(() => s3?.stop());

  test('killed while uploading: the prefix is untouched; the next ingest keeps the staged files and finishes', async () => {
    killedAt('s3-staged@5', drive1, 's3://dest/crash');
    // Before the commit point nothing but the state folder exists under the prefix.
    const left = await keys(s3.client, 'dest', 'crash/');
    assert.ok(left.length > 0 && left.every((k) => k.startsWith('.brickpost/staging/')), `left: ${left.slice(0, 5).join(', ')}`);
    const r = run(sub, ['ingest', drive1, 's3://dest/crash']);
    ok(r);
    assert.match(r.stdout, /files of an interrupted ingest of this shipment are kept/);
    const folder = await objects(s3.client, 'dest', 'crash/');
    assert.ok(folder.size > 10);
    assert.deepEqual(
      (await keys(s3.client, 'dest', 'crash/.brickpost/')).filter((k) => !k.startsWith('trees/')),
      ['state.json'],
    );
  });

  test('killed while installing (after the commit point): the next ingest finishes the commit first, then applies the next shipment', async () => {
    const before2 = await objects(s3.client, 'dest', 'crash/');
    killedAt('s3-apply@1', drive2, 's3://dest/crash');
    assert.ok((await keys(s3.client, 'dest', 'crash/.brickpost/')).includes('commit.json'), 'the commit journal marks the prefix as changing');
    const r = run(sub, ['ingest', drive2, 's3://dest/crash']);
    const s = ok(r);
    assert.equal(s.alreadyApplied, true, 'finishing the commit applied it');
    assert.match(r.stdout, /finishing the interrupted ingest/);
    const after2 = await objects(s3.client, 'dest', 'crash/');
    assert.deepEqual(diffObjects(before2, after2), ['extra: added-later.txt']);
    // Besides the state, what shipment 2 rewrote (its folder markers) is kept for rollback under undo/2/.
    const left = (await keys(s3.client, 'dest', 'crash/.brickpost/')).filter((k) => !k.startsWith('trees/'));
    assert.deepEqual(
      left.filter((k) => !k.startsWith('undo/2/')),
      ['state.json'],
    );
  });

  test('a wrong secret is refused with exit 5 and a message that names the credentials, never printing them', () => {
    const env = { ...s3.env, AWS_SECRET_ACCESS_KEY: 'wrong-secret-value-123' };
    for (const args of [
      ['ingest', drive1, 's3://dest/refused'],
      ['pack', 's3://dest/crash', '--to', tempDir(), '-r', recipient],
    ]) {
      const r = run(args[0] === 'pack' ? pub : sub, args, env);
      assert.equal(r.code, 5, r.stdout + r.stderr);
      const e = errorEvent(r);
      assert.equal(e.code, 'PERMISSION');
      assert.match(e.message, /refused the credentials/);
      assert.doesNotMatch(r.stdout + r.stderr, /wrong-secret-value-123|brickpost-test-secret/);
    }
    // Without credentials at all: the same exit, and what to set.
    const none = { ...s3.env };
    delete none.AWS_ACCESS_KEY_ID;
    delete none.AWS_SECRET_ACCESS_KEY;
    const r = run(sub, ['ingest', drive1, 's3://dest/refused'], none);
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.match(errorEvent(r).hint, /AWS_ACCESS_KEY_ID/);
  });

  test('a user without rights on the bucket is denied (exit 5); a bucket that does not exist is exit 2', async () => {
    const admin = spawnSync(
      findVersitygw()!,
      [
        'admin',
        '--access',
        s3.access,
        '--secret',
        s3.secret,
        '--endpoint-url',
        s3.endpoint,
        'create-user',
        '--access',
        'norights',
        '--secret',
        'norights-secret-123',
        '--role',
        'user',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(admin.status, 0, admin.stderr + admin.stdout);
    const env = { ...s3.env, AWS_ACCESS_KEY_ID: 'norights', AWS_SECRET_ACCESS_KEY: 'norights-secret-123' };
    const r = run(sub, ['ingest', drive1, 's3://dest/denied'], env);
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.match(errorEvent(r).message, /access denied/);
    assert.deepEqual(await keys(s3.client, 'dest', 'denied/'), []);
    const missing = run(sub, ['ingest', drive1, 's3://no-such-bucket/x']);
    assert.equal(missing.code, 2, missing.stdout + missing.stderr);
    assert.match(errorEvent(missing).message, /bucket "no-such-bucket" does not exist/);
    put;
  });
});
