import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import * as posix from '@brickpost/posix';
import { fromBytes, type SpecialKind } from '@brickpost/manifest';
import { fsPath } from '../io/fs-path.js';

/** The lstat fields of an entry that the walk uses. */
export interface EntryStat {
  kind: 'dir' | 'file' | 'link' | SpecialKind;
  /** st_mode & 0o7777. */
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  /** Fewer 512-byte blocks allocated than the size needs. */
  sparse: boolean;
  ino: bigint;
  /** `dev:ino`, the identity of a file with several hard links. */
  identity: string;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** A device's [major, minor]. */
  rdev: [number, number];
  /** The byte size of its extended attribute name list (0: it has none), or -1 when not known. */
  xattrs: number;
}

/**
 * One folder's entries, listed at once: their names (decoded, in the order
 * the system listed them) and, entry by entry, their lstat fields. With
 * the posix addon one call lists the folder and stats every entry
 * (posix.scanDir); without it, Node's fs lists it and stats each entry
 * when asked.
 */
export interface Listing {
  readonly names: string[];
  /** Entry `i`'s fields, or the error its lstat failed with. */
  stat(i: number): EntryStat | NodeJS.ErrnoException;
}

/**
 * Lists the folder `abs` (an escaped string); `xattrs` also sizes each
 * entry's attribute list where the addon can. `addon` false lists it
 * through Node's fs (as where the addon is missing).
 * @throws the error listing the folder failed with (code ENOENT, EACCES, …)
 */
export function listDir(abs: string, xattrs: boolean, addon = posix.available): Listing {
  return addon ? new ScannedListing(abs, posix.scanDir(fsPath(abs), xattrs)) : new FsListing(abs);
}

/**
 * listDir, the folder read on a thread of libuv's pool where the addon is
 * there (the JavaScript thread is free while a cold disk answers, and
 * several folders are read at once); through Node's fs otherwise.
 * @throws (rejects) as listDir throws
 */
export async function listDirAsync(abs: string, xattrs: boolean, addon = posix.available): Promise<Listing> {
  return addon ? new ScannedListing(abs, await posix.scanDirAsync(fsPath(abs), xattrs)) : new FsListing(abs);
}

const F = posix.ScanField;
const FIELDS = posix.SCAN_FIELDS;
const NS = 1_000_000_000n;
const TYPE = 0o170000;
const KINDS = new Map<number, EntryStat['kind']>([
  [0o040000, 'dir'],
  [0o100000, 'file'],
  [0o120000, 'link'],
  [0o010000, 'fifo'],
  [0o140000, 'socket'],
  [0o020000, 'char'],
  [0o060000, 'block'],
]);

function u64(hi: number, lo: number): bigint {
  return hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo);
}

function ns(sec: number, nsec: number): bigint {
  return BigInt(sec) * NS + BigInt(nsec);
}

class ScannedListing implements Listing {
  readonly names: string[];
  private readonly stats: Float64Array;

  constructor(
    private readonly abs: string,
    s: posix.ScannedDir,
  ) {
    this.stats = s.stats;
    if (s.ascii) {
      const all = s.names.toString('latin1');
      this.names = all.length === 0 ? [] : all.slice(0, -1).split('\0');
    } else {
      this.names = [];
      for (let at = 0; at < s.names.length;) {
        const end = s.names.indexOf(0, at);
        this.names.push(fromBytes(s.names.subarray(at, end)));
        at = end + 1;
      }
    }
  }

  stat(i: number): EntryStat | NodeJS.ErrnoException {
    const f = this.stats;
    const o = i * FIELDS;
    const errno = f[o + F.errno]!;
    if (errno !== 0) {
      // Node words the error (code, message, path) when stat'ed again; it may also have come back.
      if (errno !== constants.errno.ENOENT) return statOrError(join(this.abs, this.names[i]!));
      return Object.assign(new Error(`ENOENT: no such file or directory, lstat '${join(this.abs, this.names[i]!)}'`), { code: 'ENOENT', errno: -errno });
    }
    const mode = f[o + F.mode]!;
    const devHi = f[o + F.devHi]!;
    const devLo = f[o + F.devLo]!;
    const ino = u64(f[o + F.inoHi]!, f[o + F.inoLo]!);
    const size = f[o + F.size]!;
    return {
      kind: KINDS.get(mode & TYPE) ?? 'block',
      mode: mode & 0o7777,
      nlink: f[o + F.nlink]!,
      uid: f[o + F.uid]!,
      gid: f[o + F.gid]!,
      size,
      sparse: f[o + F.blocks]! * 512 < size,
      ino,
      identity: `${devHi === 0 ? devLo : u64(devHi, devLo)}:${ino}`,
      mtimeNs: ns(f[o + F.mtimeSec]!, f[o + F.mtimeNsec]!),
      ctimeNs: ns(f[o + F.ctimeSec]!, f[o + F.ctimeNsec]!),
      rdev: [f[o + F.rdevMajor]!, f[o + F.rdevMinor]!],
      xattrs: f[o + F.xattrs]!,
    };
  }
}

class FsListing implements Listing {
  readonly names: string[];

  constructor(private readonly abs: string) {
    this.names = readdirSync(fsPath(abs), { encoding: 'buffer' }).map((b) => fromBytes(b));
  }

  stat(i: number): EntryStat | NodeJS.ErrnoException {
    return statOrError(join(this.abs, this.names[i]!));
  }
}

function statOrError(path: string): EntryStat | NodeJS.ErrnoException {
  try {
    return fromStats(lstatSync(fsPath(path), { bigint: true }));
  } catch (e) {
    return e as NodeJS.ErrnoException;
  }
}

/** The fields of Node's lstat. */
export function fromStats(st: BigIntStats): EntryStat {
  const kind: EntryStat['kind'] = st.isDirectory()
    ? 'dir'
    : st.isFile()
      ? 'file'
      : st.isSymbolicLink()
        ? 'link'
        : st.isFIFO()
          ? 'fifo'
          : st.isSocket()
            ? 'socket'
            : st.isCharacterDevice()
              ? 'char'
              : 'block';
  return {
    kind,
    mode: Number(st.mode & 0o7777n),
    nlink: Number(st.nlink),
    uid: Number(st.uid),
    gid: Number(st.gid),
    size: Number(st.size),
    sparse: st.blocks * 512n < st.size,
    ino: st.ino,
    identity: `${st.dev}:${st.ino}`,
    mtimeNs: st.mtimeNs,
    ctimeNs: st.ctimeNs,
    rdev: kind === 'char' || kind === 'block' ? [posix.major(st.rdev), posix.minor(st.rdev)] : [0, 0],
    xattrs: -1,
  };
}
