// A folder's entries with their lstat fields, in one call (src/scan.c).
import { addon, type Path } from './binding.js';
import { withPath } from './errors.js';

/** Offsets of the numbers of one entry in {@link ScannedDir.stats}, and how many there are ({@link SCAN_FIELDS}). */
export const ScanField = {
  /** 0, or the errno of the entry's fstatat (the other fields are then 0). */
  errno: 0,
  /** st_mode: the type bits and the permission bits. */
  mode: 1,
  nlink: 2,
  uid: 3,
  gid: 4,
  size: 5,
  /** 512-byte blocks allocated. */
  blocks: 6,
  /** The inode number's high and low 32 bits. */
  inoHi: 7,
  inoLo: 8,
  /** The device number's high and low 32 bits. */
  devHi: 9,
  devLo: 10,
  /** A device file's major and minor numbers. */
  rdevMajor: 11,
  rdevMinor: 12,
  /** Modification and change times: seconds, and nanoseconds within the second. */
  mtimeSec: 13,
  mtimeNsec: 14,
  ctimeSec: 15,
  ctimeNsec: 16,
  /** The byte size of the entry's extended attribute name list (0: none), -errno when listing failed, -1 when not asked or a symbolic link. */
  xattrs: 17,
} as const;

/** Numbers per entry in {@link ScannedDir.stats}. */
export const SCAN_FIELDS = 18;

/** What {@link scanDir} read. */
export interface ScannedDir {
  /** Each entry's name (`.` and `..` left out), each followed by a NUL byte, in the order the system listed them. */
  names: Buffer;
  /** {@link SCAN_FIELDS} numbers per entry, in the order of `names` (offsets in {@link ScanField}). */
  stats: Float64Array;
  /** Whether every byte of the names is below 0x80. */
  ascii: boolean;
}

/**
 * Lists the folder `path` (opendir, readdir) and lstats each entry
 * (fstatat without following a symbolic link); with `xattrs`, also sizes
 * each entry's extended attribute list (llistxattr), symbolic links left
 * out. An entry whose stat fails (it vanished) carries the errno instead
 * of its fields.
 * @throws SystemError from opendir or readdir (ENOENT, EACCES, ENOTDIR, …); TypeError for a bad path; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function scanDir(path: Path, xattrs = false): ScannedDir {
  return withPath(path, () => addon().scanDir(path, xattrs));
}

/**
 * What {@link scanDir} gives, the folder read on a thread of libuv's pool:
 * a walk waiting on a cold disk leaves the JavaScript thread free, and
 * several folders can be read at once.
 * @throws (rejects) as {@link scanDir} throws; TypeError for a bad path, synchronously.
 */
export function scanDirAsync(path: Path, xattrs = false): Promise<ScannedDir> {
  return addon()
    .scanDirAsync(path, xattrs)
    .catch((e: unknown) =>
      withPath(path, () => {
        throw e;
      }),
    );
}

/**
 * lstat of `path` into `out` ({@link SCAN_FIELDS} numbers, laid out as
 * {@link ScannedDir.stats}, the xattrs field -1), making no object: for a
 * check made once a file. Returns 0, or the errno of the failed lstat
 * (positive; `out` is then left as it was).
 * @throws TypeError for a bad path or `out`; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function lstatInto(path: Path, out: Float64Array): number {
  return addon().lstatInto(path, out);
}

/**
 * lstat of each of `count` paths, on a thread of libuv's pool, in order:
 * `paths` holds them each followed by a NUL byte (bytes as the system takes
 * them). Resolves to {@link SCAN_FIELDS} numbers per path, laid out as
 * {@link ScannedDir.stats}; a failed lstat gives its errno in the errno
 * field (the others 0), a missing path ENOENT. For checking many known
 * paths without holding the JavaScript thread while a cold disk answers.
 * `paths` must not change until the promise settles.
 * @throws TypeError for bad arguments, synchronously; Error `ERR_POSIX_UNAVAILABLE`.
 */
export function lstatManyAsync(paths: Buffer, count: number): Promise<Float64Array> {
  return addon().lstatManyAsync(paths, count);
}
