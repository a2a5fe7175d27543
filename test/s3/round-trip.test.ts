/**
 * Object storage end to end through the real CLI, against a real S3 server
 * (versitygw, server.ts): a bucket prefix packed onto a drive and ingested
 * into another prefix, byte for byte with its metadata; an incremental
 * shipment (unchanged objects not read again, a changed large object sent
 * as a delta, deleted ones retired); a folder shipped into a prefix and
 * back out of it; and a prefix holding objects brickpost did not write.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import * as posix from '@brickpost/posix';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { brickpost, errorEvent, lastEvent, makeDataset, publisherAndSubscriber, snapshot, tempDir, type Run } from '../support.js';
import { bytes, diffObjects, head, keys, objects, put } from './helpers.js';
import { s3Skip, startS3, type S3Server } from './server.js';

const skip = s3Skip();

describe.skipIf(skip)(`object storage: pack from and ingest into S3${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  let pub: string;
  let sub: string;
  let recipient: string;
  const run = (home: string, args: string[]): Run => brickpost(home, [...args, '--json'], { env: s3.env });
  const ok = (r: Run): Record<string, any> => {
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`);
    return lastEvent(r).result;
  };

  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('source');
    await s3.bucket('dest');
    const base = tempDir('bp-s3-homes-');
    pub = join(base, 'pub');
    sub = join(base, 'sub');
    recipient = publisherAndSubscriber(pub, sub);
    // The source: nested keys, metadata, a content type, an empty object, a folder marker, a multipart-sized object.
    await put(s3.client, 'source', 'data/readme.txt', 'hello from a bucket\n', { contentType: 'text/plain', metadata: { owner: 'lab-7', 'run-id': '42' } });
    await put(s3.client, 'source', 'data/empty', Buffer.alloc(0));
    await put(s3.client, 'source', 'data/images/', Buffer.alloc(0));
    for (let i = 0; i < 20; i++)
      await put(s3.client, 'source', `data/images/img-${String(i).padStart(2, '0')}.bin`, bytes(`img${i}`, 1000 + i * 4099), {
        contentType: 'application/octet-stream',
      });
    await put(s3.client, 'source', 'data/deep/er/still/file.json', '{"a": 1}\n', { contentType: 'application/json', metadata: { note: 'ünïcödé value' } });
    await put(s3.client, 'source', 'data/big.bin', bytes('big', 20 << 20), { metadata: { kind: 'large' } });
    await put(s3.client, 'source', 'elsewhere/not-this.txt', 'outside the prefix');
  });
  afterAll(() => s3?.stop());

  test('a prefix packed from S3 and ingested into another prefix is byte-identical, metadata included', async () => {
    const drive = tempDir('bp-s3-drive-');
    const p = ok(run(pub, ['pack', 's3://source/data', '--to', drive, '-r', recipient, '--dataset', 'bucket-data']));
    assert.equal(p.files, 24);
    const i = ok(run(sub, ['ingest', drive, 's3://dest/copy']));
    assert.equal(i.files, 24);
    assert.equal(i.alreadyApplied, false);
    const want = await objects(s3.client, 'source', 'data/');
    const got = await objects(s3.client, 'dest', 'copy/');
    assert.deepEqual(diffObjects(want, got), []);
    assert.equal(got.get('readme.txt')!.contentType, 'text/plain');
    assert.deepEqual(got.get('readme.txt')!.metadata, { owner: 'lab-7', 'run-id': '42' });
    assert.deepEqual(got.get('deep/er/still/file.json')!.metadata, { note: 'ünïcödé value' });
    assert.ok(got.has('images/'), 'the folder marker object is written again');
    // Nothing is left in staging; the state names the shipment.
    const state = (await keys(s3.client, 'dest', 'copy/.brickpost/')).filter((k) => !k.startsWith('trees/'));
    assert.deepEqual(state, ['state.json']);
    // The same shipment again: nothing to do.
    assert.equal(ok(run(sub, ['ingest', drive, 's3://dest/copy'])).alreadyApplied, true);
  });

  test('an incremental pack reads only changed objects; its ingest retires deleted ones and rebuilds a changed large one from a delta', async () => {
    const big = bytes('big', 20 << 20);
    bytes('patch', 4096).copy(big, 5 << 20);
    await put(s3.client, 'source', 'data/big.bin', big, { metadata: { kind: 'large' } });
    await put(s3.client, 'source', 'data/images/img-03.bin', 'replaced');
    await put(s3.client, 'source', 'data/new/added.txt', 'a new object', { contentType: 'text/plain' });
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'source', Key: 'data/images/img-07.bin' }));
    const drive = tempDir('bp-s3-drive-');
    const p = ok(run(pub, ['pack', 's3://source/data', '--to', drive, '-r', recipient, '--dataset', 'bucket-data']));
    assert.equal(p.full, false);
    assert.equal(p.filesRead, 3, 'only the changed and the new objects are read');
    assert.equal(p.filesUnchanged, 21);
    assert.ok(p.chunksDelta >= 1, 'the changed large object travels as a delta');
    const i = ok(run(sub, ['ingest', drive, 's3://dest/copy']));
    assert.equal(i.incremental, true);
    assert.equal(i.retired, 1);
    assert.equal(i.filesUnchanged, 21);
    assert.ok(i.chunksFromDelta >= 1);
    assert.deepEqual(diffObjects(await objects(s3.client, 'source', 'data/'), await objects(s3.client, 'dest', 'copy/')), []);
    // history reads the state beside the objects.
    const h = brickpost(sub, ['history', 's3://dest/copy', '--json'], { env: s3.env });
    assert.equal(h.code, 0, h.stderr);
    const doc = JSON.parse(h.stdout);
    assert.equal(doc.dataset, 'bucket-data');
    assert.deepEqual(
      doc.shipments.map((x: { seq: number }) => x.seq),
      [1, 2],
    );
    assert.equal(doc.inProgress, null);
  });

  test('a folder shipped into S3 comes back out byte-identical, its user.s3 attributes as object metadata', async () => {
    const src = join(tempDir('bp-s3-src-'), 'folder-data');
    makeDataset(src, '6M', 5);
    mkdirSync(join(src, 'meta'));
    writeFileSync(join(src, 'meta', 'tagged.txt'), 'tagged\n');
    posix.setXattr(join(src, 'meta', 'tagged.txt'), 'user.s3.content-type', Buffer.from('text/plain'));
    posix.setXattr(join(src, 'meta', 'tagged.txt'), 'user.s3.meta.colour', Buffer.from('blue'));
    const drive = tempDir('bp-s3-drive-');
    ok(run(pub, ['pack', src, '--to', drive, '-r', recipient]));
    const i = ok(run(sub, ['ingest', drive, 's3://dest/folder']));
    assert.ok(i.files > 10);
    const got = await objects(s3.client, 'dest', 'folder/');
    assert.equal(got.get('meta/tagged.txt')!.sha256, createHash('sha256').update('tagged\n').digest('hex'));
    assert.equal(got.get('meta/tagged.txt')!.contentType, 'text/plain');
    assert.deepEqual(got.get('meta/tagged.txt')!.metadata, { colour: 'blue' });
    // Back out: pack the prefix, extract the shipment into a folder: the same files, byte for byte.
    const drive2 = tempDir('bp-s3-drive-');
    ok(run(pub, ['pack', 's3://dest/folder', '--to', drive2, '-r', recipient, '--dataset', 'folder-back']));
    const out = join(tempDir('bp-s3-out-'), 'out');
    ok(run(sub, ['ingest', drive2, out]));
    const a = snapshot(src);
    const b = snapshot(out);
    const content = (m: Map<string, { type: string; sha256?: string }>): Map<string, string> =>
      new Map([...m].filter(([, n]) => n.type === 'file').map(([k, n]) => [k, n.sha256!]));
    assert.deepEqual([...content(b)].sort(), [...content(a)].sort());
    assert.equal(readFileSync(join(out, 'meta', 'tagged.txt'), 'utf8'), 'tagged\n');
    // The metadata came back as the same user.s3 attributes (and the ETag the object had in S3).
    assert.equal(posix.getXattr(join(out, 'meta', 'tagged.txt'), 'user.s3.meta.colour')?.toString(), 'blue');
    assert.equal(posix.getXattr(join(out, 'meta', 'tagged.txt'), 'user.s3.content-type')?.toString(), 'text/plain');
    assert.match(posix.getXattr(join(out, 'meta', 'tagged.txt'), 'user.s3.etag')?.toString() ?? '', /^"[0-9a-f-]+"$/);
  });

  test('objects brickpost did not write are kept; one at a key the shipment writes stops the ingest before anything changes', async () => {
    await put(s3.client, 'dest', 'mixed/theirs.txt', 'not ours');
    const drive = tempDir('bp-s3-drive-');
    const src = join(tempDir('bp-s3-src-'), 'small');
    mkdirSync(src);
    writeFileSync(join(src, 'a.txt'), 'a\n');
    writeFileSync(join(src, 'theirs.txt'), 'ours\n');
    ok(run(pub, ['pack', src, '--to', drive, '-r', recipient]));
    const r = run(sub, ['ingest', drive, 's3://dest/mixed']);
    assert.equal(r.code, 2);
    assert.match(errorEvent(r).message, /did not write.*theirs\.txt.*nothing was changed/);
    assert.deepEqual(await keys(s3.client, 'dest', 'mixed/'), ['theirs.txt']);
    // Elsewhere in the prefix, a foreign object stays as it is.
    await s3.client.send(new DeleteObjectCommand({ Bucket: 'dest', Key: 'mixed/theirs.txt' }));
    await put(s3.client, 'dest', 'mixed/other/keep-me.txt', 'kept');
    const i = run(sub, ['ingest', drive, 's3://dest/mixed']);
    ok(i);
    assert.match(i.stdout, /brickpost did not write/);
    assert.deepEqual(
      (await keys(s3.client, 'dest', 'mixed/')).filter((k) => !k.startsWith('.brickpost/')),
      ['a.txt', 'other/keep-me.txt', 'theirs.txt'],
    );
    assert.deepEqual((await head(s3.client, 'dest', 'mixed/other/keep-me.txt')).metadata, {});
  });
});
