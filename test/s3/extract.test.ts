/**
 * extract into a bucket prefix through the real CLI, against a real S3
 * server (versitygw): the named files and folders become objects byte for
 * byte, with the Content-Type and user metadata they carry, a large file by
 * multipart upload, a hard link whose file was not named holding the file;
 * extract refuses what it cannot do before writing anything (a path the
 * shipment lacks, an object in the way); a damaged pack stops it and
 * leaves no object behind.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, closeSync, writeSync, writeFileSync, linkSync } from 'node:fs';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import { brickpost, errorEvent, lastEvent, makeDataset, publisherAndSubscriber, tempDir, type Run } from '../support.js';
import { bytes, keys, objects } from './helpers.js';
import { s3Skip, startS3, type S3Server } from './server.js';

const skip = s3Skip();

describe.skipIf(skip)(`object storage: extract into a bucket${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  let sub: string;
  let src: string;
  let drive: string;
  const run = (args: string[]): Run => brickpost(sub, [...args, '--json'], { env: s3.env });
  const ok = (r: Run): Record<string, any> => {
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`);
    return lastEvent(r).result;
  };
  const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
  /** Every regular file under `dir` of src, by path relative to src. */
  const filesUnder = (dir: string): Map<string, string> => {
    const out = new Map<string, string>();
    const walk = (rel: string): void => {
      for (const name of readdirSync(join(src, rel)).sort()) {
        const r = rel ? `${rel}/${name}` : name;
        const st = statSync(join(src, r), { throwIfNoEntry: false });
        if (st?.isDirectory()) walk(r);
        else if (st?.isFile()) out.set(r, sha(join(src, r)));
      }
    };
    walk(dir);
    return out;
  };

  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('dest');
    const base = tempDir('bp-s3x-');
    const pub = join(base, 'pub');
    sub = join(base, 'sub');
    const recipient = publisherAndSubscriber(pub, sub);
    src = join(base, 'data');
    makeDataset(src, '2M', 23);
    mkdirSync(join(src, 'take/meta'), { recursive: true });
    writeFileSync(join(src, 'take/meta/tagged.txt'), 'tagged\n');
    posix.setXattr(join(src, 'take/meta/tagged.txt'), 'user.s3.content-type', Buffer.from('text/plain'));
    posix.setXattr(join(src, 'take/meta/tagged.txt'), 'user.s3.meta.colour', Buffer.from('blue'));
    writeFileSync(join(src, 'take/big.bin'), bytes('big', 20 << 20));
    mkdirSync(join(src, 'take/empty'));
    mkdirSync(join(src, 'linked'));
    writeFileSync(join(src, 'linked/file.txt'), 'one file, two names\n');
    linkSync(join(src, 'linked/file.txt'), join(src, 'take/link.txt'));
    drive = join(base, 'drive');
    mkdirSync(drive);
    assert.equal(brickpost(pub, ['pack', src, '--to', drive, '-r', recipient, '--json']).code, 0);
  });
  afterAll(() => s3?.stop());

  test('named files and folders become objects byte for byte, with their metadata; a hard link holds its file', async () => {
    const s = ok(run(['extract', drive, 'take', '--to', 's3://dest/some']));
    assert.equal(s.to, 's3://dest/some');
    const got = await objects(s3.client, 'dest', 'some/');
    const want = filesUnder('take');
    assert.ok(want.size >= 3);
    for (const [path, hash] of want) assert.equal(got.get(path)?.sha256, hash, path);
    assert.equal(got.get('take/big.bin')!.size, 20 << 20);
    assert.equal(got.get('take/meta/tagged.txt')!.contentType, 'text/plain');
    assert.deepEqual(got.get('take/meta/tagged.txt')!.metadata, { colour: 'blue' });
    assert.equal(got.get('take/link.txt')!.sha256, createHash('sha256').update('one file, two names\n').digest('hex'));
    // Only what was named, and a marker for the empty folder.
    assert.deepEqual([...got.keys()].sort(), [...want.keys(), 'take/empty/'].sort());
    // The hard link's file (linked/file.txt, not named) is written at the link's key.
    assert.equal(s.files, want.size);
    assert.equal(s.hardLinks, 0);
  });

  test('everything, when no path is named', async () => {
    ok(run(['extract', drive, '--to', 's3://dest/all']));
    const got = await objects(s3.client, 'dest', 'all/');
    for (const [path, hash] of filesUnder('')) assert.equal(got.get(path)?.sha256, hash, path);
  });

  test('refused before writing anything: an object in the way, a path the shipment lacks (exit 2)', async () => {
    const again = run(['extract', drive, 'take', '--to', 's3://dest/some']);
    assert.equal(again.code, 2, again.stdout + again.stderr);
    assert.equal(errorEvent(again).code, 'USAGE');
    assert.match(errorEvent(again).message, /extract does not replace what is already in s3:\/\/dest\/some: .*nothing was written/);
    const missing = run(['extract', drive, 'no/such/file', '--to', 's3://dest/missing']);
    assert.equal(missing.code, 2);
    assert.equal(errorEvent(missing).code, 'NOT_FOUND');
    assert.deepEqual(await keys(s3.client, 'dest', 'missing/'), []);
    // extract --at reads a destination folder's undo data into a folder: no bucket either way.
    const at = run(['extract', '--at', '1', 's3://dest/some', 'take/big.bin', '--to', tempDir('bp-s3x-at-')]);
    assert.equal(at.code, 2, at.stdout + at.stderr);
    assert.match(errorEvent(at).message, /extract --at takes files from a destination folder into a folder/);
  });

  test('a damaged pack stops the extract; no object is left behind', async () => {
    const bad = join(tempDir('bp-s3x-bad-'), 'drive');
    cpSync(drive, bad, { recursive: true });
    const packs: string[] = [];
    const walk = (d: string): void => {
      for (const n of readdirSync(d, { withFileTypes: true })) {
        if (n.isDirectory()) walk(join(d, n.name));
        else if (n.name.endsWith('.age') && d.includes(join('data', 'packs'))) packs.push(join(d, n.name));
      }
    };
    walk(bad);
    assert.ok(packs.length > 0);
    // One byte in the middle of every pack: whichever the walk reads, it fails its check.
    for (const p of packs) {
      const fd = openSync(p, 'r+');
      const at = Math.floor(statSync(p).size / 2);
      writeSync(fd, Buffer.from([readFileSync(p)[at]! ^ 0xff]), 0, 1, at);
      closeSync(fd);
    }
    const r = run(['extract', bad, '--to', 's3://dest/damaged']);
    assert.notEqual(r.code, 0);
    assert.ok([1, 3].includes(r.code), `exit ${r.code}: ${r.stdout.slice(-800)}`);
    assert.deepEqual(await keys(s3.client, 'dest', 'damaged/'), []);
  });
});
