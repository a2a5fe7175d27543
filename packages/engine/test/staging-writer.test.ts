// StagingWriter (ingest/staging-writer.ts): small files go whole to the
// native core's stage writer, which creates, writes and finishes them on
// its own thread; larger ones are written on the JavaScript thread. Both
// must leave the same staged files (bytes, holes, length, mode, times)
// and fail as the synchronous calls did.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBrickpostError, type FileRecord } from '@brickpost/manifest';
import { StagingWriter } from '../src/ingest/staging-writer.js';
import { AttrApplier } from '../src/ingest/attrs.js';
import { DEFAULT_POLICY } from '../src/ingest/policy.js';
import { loadNative } from '@brickpost/native';

const root = mkdtempSync(join(tmpdir(), 'bp-stage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const core = loadNative();
// The core is optional where Rust is not installed or switched off on purpose; a core that failed to build fails here.
const noCore = core.binding === null && (core.disabled || core.reason?.startsWith('cargo not found') === true);
const skipped = noCore ? ` (skipped: no native core here, ${core.reason})` : '';

function writerIn(name: string): StagingWriter {
  const dir = join(root, name);
  mkdirSync(dir);
  const warnings: string[] = [];
  return new StagingWriter(dir, false, DEFAULT_POLICY, new AttrApplier(DEFAULT_POLICY, (m) => warnings.push(m)));
}

function record(p: string, size: number, mode: number, mtime: string): FileRecord {
  return { t: 'file', p, size, mode, mtime, c: [] };
}

/** Stages `r` from `parts` (a number is a hole of that length). */
function stage(w: StagingWriter, n: number, r: FileRecord, parts: Array<Buffer | number>): void {
  w.start(n, r);
  for (const x of parts) {
    if (typeof x === 'number') w.skip(x);
    else w.write(x);
  }
  w.end(r);
}

test.skipIf(noCore)(`small and large files come out the same: bytes, holes, length, mode and times${skipped}`, async () => {
  const w = writerIn('same');
  const big = Buffer.alloc((1 << 20) + 5, 7);
  const cases: Array<[FileRecord, Array<Buffer | number>]> = [
    [record('a.txt', 11, 0o644, '1700000000123456789'), [Buffer.from('hello '), Buffer.from('world')]],
    [record('empty', 0, 0o600, '0'), []],
    [record('holey', 4096 * 3, 0o755, '-1500000000'), [Buffer.from('x'), 4095, Buffer.from('y'), 4096 * 2 - 1]],
    [record('old', 3, 0o640, '-1'), [Buffer.from('abc')]],
    [record('big', big.length, 0o644, '1600000000000000000'), [big]],
  ];
  cases.forEach(([r, parts], n) => stage(w, n, r, parts));
  await w.flush();
  assert.equal(w.files, cases.length);
  cases.forEach(([r, parts], n) => {
    const file = join(w.root, String(n));
    const st = statSync(file, { bigint: true });
    assert.equal(st.size, BigInt(r.size), r.p);
    assert.equal(Number(st.mode & 0o777n), r.mode & ~DEFAULT_POLICY.umask, r.p);
    assert.equal(st.mtimeNs, BigInt(r.mtime), r.p);
    const want = Buffer.alloc(r.size);
    let at = 0;
    for (const x of parts) at += typeof x === 'number' ? x : x.copy(want, at);
    assert.ok(readFileSync(file).equals(want), r.p);
  });
});

test.skipIf(noCore)(`a file staged twice is refused as the synchronous path refuses it${skipped}`, async () => {
  const w = writerIn('twice');
  stage(w, 0, record('one', 1, 0o644, '0'), [Buffer.from('1')]);
  let err: unknown;
  try {
    stage(w, 0, record('two', 1, 0o644, '0'), [Buffer.from('2')]);
    await w.flush();
  } catch (e) {
    err = e;
  }
  assert.ok(isBrickpostError(err) && err.code === 'UNSAFE_PATH', String(err));
  assert.match(err.message, /"two" is written twice/);
  assert.equal(readFileSync(join(w.root, '0'), 'utf8'), '1');
});

test.skipIf(noCore)(`a file that cannot be created fails with the call, the staged path and what to do${skipped}`, async () => {
  const w = writerIn('gone');
  rmSync(w.root, { recursive: true });
  let err: unknown;
  try {
    stage(w, 3, record('lost/file', 2, 0o644, '0'), [Buffer.from('ab')]);
    await w.flush();
  } catch (e) {
    err = e;
  }
  assert.ok(isBrickpostError(err), String(err));
  assert.match(err.message, /^cannot create the staged file of "lost\/file": open .*\/gone\/3.*\(ENOENT\)/);
  assert.ok(err.hint);
  // Nothing after a failure is written, and the next call reports it too.
  mkdirSync(w.root);
  assert.throws(() => stage(w, 4, record('next', 1, 0o644, '0'), [Buffer.from('n')]), /cannot create the staged file of "lost\/file"/);
  await assert.rejects(w.flush(), /cannot create the staged file of "lost\/file"/);
  assert.deepEqual(readdirSync(w.root), []);
});

test.skipIf(noCore)(`after abort returns, nothing more is written, and each file is whole or absent${skipped}`, async () => {
  const w = writerIn('abort');
  for (let n = 0; n < 200; n++) stage(w, n, record(`f${n}`, 4, 0o644, '0'), [Buffer.from('data')]);
  w.abort();
  const written = readdirSync(w.root);
  for (const f of written) assert.equal(readFileSync(join(w.root, f), 'utf8'), 'data');
  await assert.rejects(w.flush(), /staging was stopped/);
  assert.deepEqual(readdirSync(w.root), written);
});

test.skipIf(noCore)(`files of the staging tree get their folders where they are written, small on the stage thread, large here${skipped}`, async () => {
  const w = writerIn('tree');
  const big = Buffer.alloc((1 << 20) + 1, 3);
  const files: Array<[string, Buffer]> = [
    ['a/b/c/one', Buffer.from('1')],
    ['a/b/c/two', Buffer.from('22')],
    ['a/b/d/three', Buffer.from('333')],
    ['a/e/big', big],
    ['a/e/f/g/four', Buffer.from('4444')],
    ['top/five', Buffer.from('5')],
  ];
  files.forEach(([p, data], n) => {
    const r = record(p, data.length, 0o644, '0');
    const at = w.inTree(p);
    assert.ok(at !== null);
    w.start(n, r, at);
    w.write(data);
    w.end(r);
  });
  await w.flush();
  const tree = join(w.root, 'tree');
  for (const [p, data] of files) assert.ok(readFileSync(join(tree, p)).equals(data), p);
  for (const d of ['a', 'a/b', 'a/b/c', 'a/b/d', 'a/e', 'a/e/f', 'a/e/f/g', 'top']) assert.equal(statSync(join(tree, d)).mode & 0o777, 0o700, d);
  // Only below the tree: a flat file whose staging folder is gone still fails (above).
  assert.deepEqual(readdirSync(w.root).sort(), ['tree']);
});
