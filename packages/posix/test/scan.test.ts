import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { listXattrs, lstatInto, lstatManyAsync, scanDir, scanDirAsync, ScanField, SCAN_FIELDS, setXattr, type SystemError } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'brickpost-scan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The names of a scan, as the bytes of each. */
function namesOf(names: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < names.length;) {
    const end = names.indexOf(0, at);
    out.push(names.subarray(at, end));
    at = end + 1;
  }
  return out;
}

test('scanDir lists every entry once with the fields lstat gives', () => {
  const dir = join(root, 'fields');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.txt'), 'hello');
  mkdirSync(join(dir, 'sub'));
  symlinkSync('a.txt', join(dir, 'link'));
  const odd = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x6e, 0xff])]);
  writeFileSync(odd, 'x'.repeat(3000));
  const s = scanDir(dir);
  const names = namesOf(s.names);
  assert.equal(s.ascii, false);
  assert.deepEqual(
    names.map((n) => n.toString('hex')).sort(),
    ['a.txt', 'sub', 'link', '\x6e\xff'].map((n) => Buffer.from(n, 'latin1').toString('hex')).sort(),
  );
  assert.equal(s.stats.length, names.length * SCAN_FIELDS);
  names.forEach((name, i) => {
    const f = s.stats.subarray(i * SCAN_FIELDS, (i + 1) * SCAN_FIELDS);
    const st = lstatSync(Buffer.concat([Buffer.from(`${dir}/`), name]), { bigint: true });
    assert.equal(f[ScanField.errno], 0);
    assert.equal(f[ScanField.mode], Number(st.mode));
    assert.equal(f[ScanField.nlink], Number(st.nlink));
    assert.equal(f[ScanField.uid], Number(st.uid));
    assert.equal(f[ScanField.gid], Number(st.gid));
    assert.equal(f[ScanField.size], Number(st.size));
    assert.equal(f[ScanField.blocks], Number(st.blocks));
    assert.equal((BigInt(f[ScanField.inoHi]!) << 32n) | BigInt(f[ScanField.inoLo]!), st.ino);
    assert.equal((BigInt(f[ScanField.devHi]!) << 32n) | BigInt(f[ScanField.devLo]!), st.dev);
    assert.equal(BigInt(f[ScanField.mtimeSec]!) * 1_000_000_000n + BigInt(f[ScanField.mtimeNsec]!), st.mtimeNs);
    assert.equal(BigInt(f[ScanField.ctimeSec]!) * 1_000_000_000n + BigInt(f[ScanField.ctimeNsec]!), st.ctimeNs);
    assert.equal(f[ScanField.xattrs], -1, 'not asked for');
  });
});

test('scanDir sizes attribute lists when asked, never for a symbolic link', (t) => {
  const dir = join(root, 'xattrs');
  mkdirSync(dir);
  writeFileSync(join(dir, 'plain'), '');
  writeFileSync(join(dir, 'tagged'), '');
  symlinkSync('tagged', join(dir, 'link'));
  try {
    setXattr(join(dir, 'tagged'), 'user.brickpost.tag', Buffer.from('v'));
  } catch (e) {
    if ((e as SystemError).code === 'ENOTSUP') return t.skip('the file system holding the temporary folder has no user xattrs');
    throw e;
  }
  const s = scanDir(dir, true);
  assert.equal(s.ascii, true);
  const size = (name: string): number => s.stats[namesOf(s.names).findIndex((n) => n.toString() === name) * SCAN_FIELDS + ScanField.xattrs]!;
  const listed = (name: string): number => listXattrs(join(dir, name)).reduce((n, b) => n + b.length + 1, 0);
  assert.equal(size('plain'), listed('plain'));
  assert.equal(size('tagged'), listed('tagged'));
  assert.ok(size('tagged') > size('plain'));
  assert.equal(size('link'), -1);
});

test('scanDir of an empty folder is empty; a missing one fails with ENOENT and its path', () => {
  const dir = join(root, 'empty');
  mkdirSync(dir);
  const s = scanDir(dir);
  assert.equal(s.names.length, 0);
  assert.equal(s.stats.length, 0);
  const gone = join(root, 'gone');
  assert.throws(
    () => scanDir(gone),
    (e: SystemError) => e.code === 'ENOENT' && e.syscall === 'scandir' && e.path === gone,
  );
  assert.throws(() => scanDir(join(root, 'empty'), 'yes' as unknown as boolean), { name: 'TypeError' });
});

test('scanDirAsync gives what scanDir gives, several folders at once; a missing one rejects with ENOENT and its path', async () => {
  const dirs = Array.from({ length: 6 }, (_, k) => join(root, `async-${k}`));
  dirs.forEach((dir, k) => {
    mkdirSync(dir);
    for (let i = 0; i <= k * 40; i++) writeFileSync(join(dir, `f${i}`), 'x'.repeat(i));
    mkdirSync(join(dir, 'sub'));
  });
  const odd = Buffer.concat([Buffer.from(`${dirs[0]!}/`), Buffer.from([0x6e, 0xff])]);
  writeFileSync(odd, 'y');
  const got = await Promise.all(dirs.map((dir) => scanDirAsync(dir, true)));
  got.forEach((a, k) => {
    const b = scanDir(dirs[k]!, true);
    assert.ok(a.names.equals(b.names), `names of ${dirs[k]!}`);
    assert.deepEqual(Array.from(a.stats), Array.from(b.stats));
    assert.equal(a.ascii, b.ascii);
    assert.equal(namesOf(a.names).length, k * 40 + 2 + (k === 0 ? 1 : 0));
  });
  assert.equal(got[0]!.ascii, false);
  const gone = join(root, 'gone-async');
  await assert.rejects(scanDirAsync(gone), (e: SystemError) => e.code === 'ENOENT' && e.syscall === 'scandir' && e.path === gone && e.stack!.length > 0);
  await assert.rejects(scanDirAsync(join(dirs[1]!, 'f3')), (e: SystemError) => e.code === 'ENOTDIR');
  assert.throws(() => scanDirAsync(dirs[0]!, 'yes' as unknown as boolean), { name: 'TypeError' });
});

test('lstatInto fills the fields scanDir gives, and returns the errno of a missing path', () => {
  const dir = join(root, 'one');
  mkdirSync(dir);
  writeFileSync(join(dir, 'f'), 'abc');
  const out = new Float64Array(SCAN_FIELDS);
  assert.equal(lstatInto(join(dir, 'f'), out), 0);
  assert.deepEqual(Array.from(out), Array.from(scanDir(dir).stats));
  const before = Array.from(out);
  assert.equal(lstatInto(join(dir, 'gone'), out), constants.errno.ENOENT);
  assert.deepEqual(Array.from(out), before, 'left as it was');
  assert.throws(() => lstatInto(join(dir, 'f'), new Float64Array(3)), { name: 'TypeError' });
});

test('lstatManyAsync gives each path the fields lstatInto gives, in order, and each failure its errno', async () => {
  const dir = join(root, 'many');
  mkdirSync(dir);
  writeFileSync(join(dir, 'f'), 'abc');
  mkdirSync(join(dir, 'd'));
  symlinkSync('f', join(dir, 'link'));
  const odd = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x6e, 0xff])]);
  writeFileSync(odd, 'odd');
  const paths = [join(dir, 'd'), join(dir, 'gone'), join(dir, 'f'), join(dir, 'f', 'below'), join(dir, 'link'), odd];
  const out = await lstatManyAsync(Buffer.concat(paths.flatMap((p) => [typeof p === 'string' ? Buffer.from(p) : p, Buffer.alloc(1)])), paths.length);
  assert.equal(out.length, paths.length * SCAN_FIELDS);
  const one = new Float64Array(SCAN_FIELDS);
  paths.forEach((p, i) => {
    const got = Array.from(out.subarray(i * SCAN_FIELDS, (i + 1) * SCAN_FIELDS));
    const errno = lstatInto(p, one);
    if (errno === 0) assert.deepEqual(got, Array.from(one), `fields of ${String(p)}`);
    else assert.deepEqual(got, [errno, ...new Array<number>(SCAN_FIELDS - 1).fill(0)], `errno of ${String(p)}`);
  });
  assert.equal(out[1 * SCAN_FIELDS + ScanField.errno], constants.errno.ENOENT);
  assert.equal(out[3 * SCAN_FIELDS + ScanField.errno], constants.errno.ENOTDIR);
  assert.equal(out[4 * SCAN_FIELDS + ScanField.mode]! & 0o170000, 0o120000, 'the link itself, not followed');
  // Fewer paths than asked for: the rest read as not there.
  const short = await lstatManyAsync(Buffer.from(`${join(dir, 'f')}\0`), 2);
  assert.equal(short[ScanField.errno], 0);
  assert.equal(short[SCAN_FIELDS + ScanField.errno], constants.errno.ENOENT);
  assert.equal((await lstatManyAsync(Buffer.alloc(0), 0)).length, 0);
  assert.throws(() => lstatManyAsync('x' as unknown as Buffer, 1), { name: 'TypeError' });
  assert.throws(() => lstatManyAsync(Buffer.from('x\0'), -1), { name: 'TypeError' });
});
