import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  available,
  copyRange,
  startWriteback,
  dataExtents,
  fGetXattr,
  fListXattrs,
  fSetXattr,
  futimesNs,
  getXattr,
  groupId,
  groupName,
  listXattrs,
  lutimesNs,
  limitArenas,
  major,
  makedev,
  minor,
  mkfifo,
  mknod,
  removeXattr,
  seekData,
  seekHole,
  setXattr,
  userId,
  userName,
  type Extent,
  type SystemError,
} from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'brickpost-posix-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KiB = 1024;
const MiB = 1024 * KiB;

/** The type of the file system holding `dir`, from the longest mount point above it. */
function fileSystemOf(dir: string): string {
  if (!existsSync('/proc/self/mountinfo')) return 'unknown';
  const real = realpathSync(dir);
  let best = '';
  let type = 'unknown';
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    const mount = left?.split(' ')[4]?.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (mount === undefined || right === undefined) continue;
    const under = real === mount || real.startsWith(mount === '/' ? '/' : `${mount}/`);
    if (under && mount.length >= best.length) {
      best = mount;
      type = right.split(' ')[0] ?? 'unknown';
    }
  }
  return type;
}

/** Whether this process holds capability `bit` (CAP_MKNOD 27, CAP_SYS_ADMIN 21). */
function hasCapability(bit: number): boolean {
  if (!existsSync('/proc/self/status')) return process.getuid?.() === 0;
  const line = readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line?.[1] !== undefined && ((BigInt(`0x${line[1]}`) >> BigInt(bit)) & 1n) === 1n;
}

function sysError(code: string, syscall: string, path?: string): (e: unknown) => boolean {
  return (e) => {
    const err = e as SystemError;
    assert.equal(err.code, code, err.message);
    assert.equal(err.syscall, syscall);
    assert.equal(typeof err.errno, 'number');
    assert.ok(err.errno < 0);
    assert.equal(err.path, path);
    return true;
  };
}

function withFile<T>(name: string, body: (fd: number, path: string) => T): T {
  const path = join(root, name);
  const fd = openSync(path, 'w+');
  try {
    return body(fd, path);
  } finally {
    closeSync(fd);
  }
}

const fsType = fileSystemOf(root);
// A file that is one hole: SEEK_DATA answers ENXIO (-1) where holes are
// tracked, 0 where the file system reports everything as data, EINVAL where
// it lacks SEEK_DATA.
const holesTracked = withFile('probe', (fd) => {
  ftruncateSync(fd, MiB);
  try {
    return seekData(fd, 0) === -1;
  } catch (e) {
    if ((e as SystemError).code === 'EINVAL') return false;
    throw e;
  }
});
const noHoles = holesTracked ? false : `${fsType} does not report holes`;

test('the addon loaded on this platform', () => {
  assert.equal(available, process.platform !== 'win32');
});

test(
  holesTracked
    ? `dataExtents finds the two data regions of a sparse file (on ${fsType})`
    : `dataExtents gives one extent [0, size] where ${fsType} reports no holes (SEEK_DATA fallback)`,
  (t) => {
    const size = 8 * MiB;
    const block = Buffer.alloc(4 * KiB, 0xab);
    withFile('sparse', (fd) => {
      ftruncateSync(fd, size);
      writeSync(fd, block, 0, block.length, 1 * MiB);
      writeSync(fd, block, 0, block.length, 5 * MiB);
      const extents = dataExtents(fd, size);
      void t.annotate(`file system: ${fsType}; holes tracked: ${holesTracked}; extents: ${JSON.stringify(extents)}`);
      if (!holesTracked) {
        assert.deepEqual(extents, [[0, size]]);
        return;
      }
      assert.equal(extents.length, 2);
      const [first, second] = extents as [Extent, Extent];
      assert.ok(first[0] <= 1 * MiB && first[0] + first[1] >= 1 * MiB + block.length, 'first write inside first extent');
      assert.ok(second[0] <= 5 * MiB && second[0] + second[1] >= 5 * MiB + block.length, 'second write inside second extent');
      assert.ok(first[0] + first[1] < second[0], 'a hole between them');
      if (fsType === 'ext4' || fsType === 'tmpfs') {
        assert.deepEqual(extents, [
          [1 * MiB, 4 * KiB],
          [5 * MiB, 4 * KiB],
        ]);
      }
      assert.equal(seekData(fd, 0), first[0]);
      assert.equal(seekHole(fd, first[0]), first[0] + first[1]);
      assert.equal(seekData(fd, second[0] + second[1]), -1, 'only a hole after the last data');
      assert.equal(seekHole(fd, second[0] + second[1]), second[0] + second[1]);
    });
  },
);

test.skipIf(noHoles)(`dataExtents clips to size, keeps data at the end and merges past maxExtents${noHoles ? ` [skipped: ${noHoles}]` : ''}`, () => {
  const block = Buffer.alloc(4 * KiB, 1);
  withFile('three', (fd) => {
    ftruncateSync(fd, 3 * MiB);
    for (const at of [0, 1 * MiB, 3 * MiB - block.length]) writeSync(fd, block, 0, block.length, at);
    assert.deepEqual(dataExtents(fd, 3 * MiB), [
      [0, 4 * KiB],
      [1 * MiB, 4 * KiB],
      [3 * MiB - 4 * KiB, 4 * KiB],
    ]);
    assert.deepEqual(dataExtents(fd, 3 * MiB, 2), [
      [0, 4 * KiB],
      [1 * MiB, 2 * MiB],
    ]);
    assert.deepEqual(dataExtents(fd, 1 * MiB + 100), [
      [0, 4 * KiB],
      [1 * MiB, 100],
    ]);
  });
});

test('dataExtents of an empty file is empty; a bad fd fails with EBADF and no path', () => {
  withFile('empty', (fd) => assert.deepEqual(dataExtents(fd, 0), []));
  assert.throws(() => dataExtents(0x3fffffff, 10), sysError('EBADF', 'lseek'));
  assert.throws(() => dataExtents(-1, 10), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => dataExtents('3' as unknown as number, 10), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
});

test('xattrs round-trip binary names and values on a non-UTF-8 file name', () => {
  const path = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x6e, 0xff, 0x2e, 0x62, 0x69, 0x6e])]);
  writeFileSync(path, 'x');
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const oddName = Buffer.concat([Buffer.from('user.brickpost.'), Buffer.from([0xfe, 0x80])]);
  setXattr(path, 'user.brickpost.bytes', bytes);
  setXattr(path, oddName, Buffer.alloc(0));
  const names = listXattrs(path)
    .filter((n) => n.subarray(0, 5).toString() === 'user.')
    .map((n) => n.toString('hex'))
    .sort();
  assert.deepEqual(names, [Buffer.from('user.brickpost.bytes').toString('hex'), oddName.toString('hex')].sort());
  assert.deepEqual(getXattr(path, 'user.brickpost.bytes'), bytes);
  assert.deepEqual(getXattr(path, oddName), Buffer.alloc(0));
  assert.equal(getXattr(path, 'user.brickpost.absent'), null);
  removeXattr(path, 'user.brickpost.bytes');
  assert.equal(getXattr(path, 'user.brickpost.bytes'), null);
  assert.throws(() => removeXattr(path, 'user.brickpost.bytes'), sysError('ENODATA', 'lremovexattr', path.toString()));
});

test('xattr values up to 64 KiB come back whole', (t) => {
  // ext4 keeps a value in one block (4 KiB) unless ea_inode is on; tmpfs holds
  // up to the 64 KiB the VFS allows, so the large value moves there if needed.
  const places = [root];
  if (existsSync('/dev/shm')) places.push(mkdtempSync('/dev/shm/brickpost-posix-'));
  try {
    for (const size of [3000, 64 * KiB]) {
      const value = Buffer.alloc(size, 0x5a);
      value.writeUInt32BE(size, 0);
      const stored = places.find((dir) => {
        const path = join(dir, 'big');
        writeFileSync(path, '');
        try {
          setXattr(path, `user.brickpost.${size}`, value);
        } catch (e) {
          const code = (e as SystemError).code;
          if (code === 'ENOSPC' || code === 'E2BIG') return false;
          throw e;
        }
        assert.deepEqual(getXattr(path, `user.brickpost.${size}`), value);
        void t.annotate(`${size}-byte value read back on ${fileSystemOf(dir)} (${dir})`);
        return true;
      });
      assert.ok(stored !== undefined || size > 4 * KiB, `no ${size}-byte value stored`);
      if (stored === undefined) void t.annotate(`no file system here holds a ${size}-byte value`);
    }
  } finally {
    for (const dir of places.slice(1)) rmSync(dir, { recursive: true, force: true });
  }
});

test('the fd variants read and write the same attributes', () => {
  withFile('by-fd', (fd, path) => {
    fSetXattr(fd, 'user.brickpost.fd', Buffer.from([0, 1, 2, 0xff]));
    assert.ok(fListXattrs(fd).some((n) => n.toString() === 'user.brickpost.fd'));
    assert.deepEqual(fGetXattr(fd, 'user.brickpost.fd'), Buffer.from([0, 1, 2, 0xff]));
    assert.deepEqual(getXattr(path, 'user.brickpost.fd'), Buffer.from([0, 1, 2, 0xff]));
    assert.equal(fGetXattr(fd, 'user.brickpost.none'), null);
  });
  assert.throws(() => fListXattrs(0x3fffffff), sysError('EBADF', 'flistxattr'));
});

test('xattr calls on a symbolic link see the link, not its target', () => {
  const target = join(root, 'xattr-target');
  const link = join(root, 'xattr-link');
  writeFileSync(target, 't');
  symlinkSync(target, link);
  setXattr(target, 'user.brickpost.target', Buffer.from('on target'));
  assert.ok(!listXattrs(link).some((n) => n.toString() === 'user.brickpost.target'));
  assert.equal(getXattr(link, 'user.brickpost.target'), null);
  // Linux allows user.* attributes only on regular files and directories.
  assert.throws(() => setXattr(link, 'user.brickpost.link', Buffer.from('x')), sysError('EPERM', 'lsetxattr', link));
});

test.skipIf(!hasCapability(21))(
  `a trusted.* attribute set on a symbolic link stays on the link${!hasCapability(21) ? ` [skipped: trusted.* attributes need CAP_SYS_ADMIN]` : ''}`,
  () => {
    const target = join(root, 'trusted-target');
    const link = join(root, 'trusted-link');
    writeFileSync(target, 't');
    symlinkSync(target, link);
    setXattr(link, 'trusted.brickpost', Buffer.from('on link'));
    assert.deepEqual(getXattr(link, 'trusted.brickpost'), Buffer.from('on link'));
    assert.ok(listXattrs(link).some((n) => n.toString() === 'trusted.brickpost'));
    assert.equal(getXattr(target, 'trusted.brickpost'), null);
  },
);

test('mkfifo creates a FIFO and reports EEXIST with its path', () => {
  const path = join(root, 'fifo');
  mkfifo(path, 0o600);
  const st = lstatSync(path);
  assert.ok(st.isFIFO());
  assert.equal(st.mode & 0o777, 0o600);
  assert.throws(() => mkfifo(path, 0o600), sysError('EEXIST', 'mkfifo', path));
});

test('mknod creates character and block devices with CAP_MKNOD, EPERM without', (t) => {
  const chr = join(root, 'null-device');
  const blk = join(root, 'loop-device');
  if (!hasCapability(27)) {
    void t.annotate('no CAP_MKNOD (not root): mknod must fail with EPERM');
    assert.throws(() => mknod(chr, constants.S_IFCHR | 0o600, 1, 3), sysError('EPERM', 'mknod', chr));
    return;
  }
  mknod(chr, constants.S_IFCHR | 0o600, 1, 3);
  mknod(blk, constants.S_IFBLK | 0o600, 7, 0);
  const c = lstatSync(chr, { bigint: true });
  assert.ok(c.isCharacterDevice());
  assert.deepEqual([major(c.rdev), minor(c.rdev)], [1, 3]);
  const b = lstatSync(blk);
  assert.ok(b.isBlockDevice());
  assert.deepEqual([major(b.rdev), minor(b.rdev)], [7, 0]);
});

test('major, minor and makedev follow the C library layout', () => {
  assert.equal(makedev(8, 1), 2049);
  assert.equal(major(2049), 8);
  assert.equal(minor(2049n), 1);
  const big = makedev(4095, 1048575);
  assert.deepEqual([major(big), minor(big)], [4095, 1048575]);
  assert.deepEqual([major(BigInt(makedev(259, 70000))), minor(makedev(259, 70000))], [259, 70000]);
  assert.throws(() => major(-1), { name: 'RangeError' });
  assert.throws(() => minor(-1n), { name: 'RangeError' });
  assert.throws(() => major('8' as unknown as number), { name: 'TypeError' });
});

test('owners by name: root is 0 both ways, unknown names and ids are null', () => {
  assert.equal(userName(0), 'root');
  assert.equal(groupName(0), 'root');
  assert.equal(userId('root'), 0);
  assert.equal(groupId('root'), 0);
  assert.equal(userId('brickpost-no-such-user'), null);
  assert.equal(groupId('brickpost-no-such-group'), null);
  assert.equal(userName(3999999999), null);
  assert.equal(groupName(3999999999), null);
  assert.throws(() => userName(-1), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => userId(0 as unknown as string), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => userId('ro\0ot'), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
});

test('lutimesNs sets a symbolic link’s own times to the nanosecond', () => {
  const target = join(root, 'time-target');
  const link = join(root, 'time-link');
  writeFileSync(target, 't');
  symlinkSync(target, link);
  const before = lstatSync(target, { bigint: true });
  lutimesNs(link, 1_700_000_000_123_456_789n, 1_600_000_000_987_654_321n);
  const st = lstatSync(link, { bigint: true });
  assert.equal(st.atimeNs, 1_700_000_000_123_456_789n);
  assert.equal(st.mtimeNs, 1_600_000_000_987_654_321n);
  const after = lstatSync(target, { bigint: true });
  assert.equal(after.mtimeNs, before.mtimeNs);
  assert.throws(() => lutimesNs(link, 1n << 64n, 0n), { name: 'RangeError' });
  assert.throws(() => lutimesNs(link, 1 as unknown as bigint, 0n), { name: 'TypeError' });
});

test('futimesNs sets times through an fd, before 1970 too', () => {
  withFile('time-fd', (fd, path) => {
    futimesNs(fd, 1_500_000_000_000_000_001n, -1_500_000_001n);
    const st = lstatSync(path, { bigint: true });
    assert.equal(st.atimeNs, 1_500_000_000_000_000_001n);
    assert.equal(st.mtimeNs, -1_500_000_001n);
  });
});

test('copyRange copies a range between open files inside the kernel, short only where the source ends', (t) => {
  const from = join(root, 'copy-from');
  const to = join(root, 'copy-to');
  const data = Buffer.from(Array.from({ length: 3 * MiB + 17 }, (_, i) => (i * 31 + (i >> 12)) & 0xff));
  writeFileSync(from, data);
  writeFileSync(to, Buffer.alloc(10, 0x2e));
  const a = openSync(from, 'r');
  const b = openSync(to, 'r+');
  try {
    let n: number;
    try {
      n = copyRange(a, 1 * MiB + 5, b, 4, 2 * MiB);
    } catch (e) {
      if ((e as SystemError).code === 'ENOSYS') return t.skip('this system has no copy_file_range');
      throw e;
    }
    assert.equal(n, 2 * MiB);
    const out = readFileSync(to);
    assert.equal(out.length, 4 + 2 * MiB);
    assert.deepEqual(out.subarray(0, 4), Buffer.alloc(4, 0x2e), 'the bytes before the range are left');
    assert.ok(out.subarray(4).equals(data.subarray(1 * MiB + 5, 3 * MiB + 5)), 'the range is copied');
    assert.equal(copyRange(a, data.length - 7, b, 0, 100), 7, 'short where the source ends');
    assert.equal(copyRange(a, data.length, b, 0, 100), 0);
    assert.equal(copyRange(a, 0, b, 0, 0), 0);
    assert.throws(() => copyRange(9999, 0, b, 0, 10), sysError('EBADF', 'copy_file_range'));
    assert.throws(() => copyRange(a, -1, b, 0, 10), { name: 'RangeError' });
  } finally {
    closeSync(a);
    closeSync(b);
  }
});

test('startWriteback asks for a regular file on Linux, says no elsewhere and for a pipe or a closed descriptor, and changes no byte', () => {
  const file = join(root, 'writeback');
  const data = Buffer.from(Array.from({ length: 2 * MiB + 3 }, (_, i) => (i * 7) & 0xff));
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, data);
    assert.equal(startWriteback(fd), process.platform === 'linux');
    assert.equal(startWriteback(fd, MiB, MiB), process.platform === 'linux');
    assert.throws(() => startWriteback(fd, -1, 0), { name: 'RangeError' });
  } finally {
    closeSync(fd);
  }
  assert.ok(readFileSync(file).equals(data));
  assert.equal(startWriteback(fd), false, 'a closed descriptor');
  const fifo = join(root, 'writeback-fifo');
  mkfifo(fifo, 0o600);
  // Opened for reading and writing, a FIFO does not wait for a peer (Linux).
  const p = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  try {
    assert.equal(startWriteback(p), false, 'a FIFO');
  } finally {
    closeSync(p);
  }
});

test('errors are shaped like Node’s fs errors', () => {
  const missing = join(root, 'missing');
  assert.throws(
    () => getXattr(missing, 'user.x'),
    (e: unknown) => {
      const err = e as SystemError;
      assert.ok(err instanceof Error);
      assert.equal(err.code, 'ENOENT');
      assert.equal(err.errno, -2);
      assert.equal(err.syscall, 'lgetxattr');
      assert.equal(err.path, missing);
      assert.equal(err.message, `ENOENT: no such file or directory, lgetxattr '${missing}'`);
      return true;
    },
  );
  assert.throws(() => listXattrs(Buffer.from(`${missing}\xff`, 'latin1')), sysError('ENOENT', 'llistxattr', `${missing}\ufffd`));
  assert.throws(() => getXattr(42 as unknown as string, 'user.x'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => getXattr(`${root}/a\0b`, 'user.x'), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => setXattr(missing, 'user.x', 'text' as unknown as Buffer), { name: 'TypeError' });
});

test('limitArenas caps the allocator where glibc is the C library, and refuses a bad count', () => {
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== undefined;
  assert.equal(limitArenas(2), glibc, 'mallopt(M_ARENA_MAX) is set exactly where glibc runs');
  assert.throws(() => limitArenas(0), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => limitArenas(1.5), { code: 'ERR_OUT_OF_RANGE' });
});
