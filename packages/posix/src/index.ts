/**
 * `@brickpost/posix`: the POSIX calls Node.js lacks, for brickpost's engine,
 * which records what a file tree holds and recreates it on restore:
 *
 * - holes of sparse files: {@link dataExtents}, {@link seekData}, {@link seekHole};
 * - extended attributes, and so ACLs and file capabilities: {@link listXattrs},
 *   {@link getXattr}, {@link setXattr}, {@link removeXattr} and the f* variants;
 * - special files: {@link mknod}, {@link mkfifo}, {@link major}, {@link minor}, {@link makedev};
 * - owners by name: {@link userName}, {@link groupName}, {@link userId}, {@link groupId};
 * - timestamps to the nanosecond: {@link lutimesNs}, {@link futimesNs};
 * - locks the kernel drops when their holder dies: {@link tryLock};
 * - copies between open files inside the kernel: {@link copyRange}; early writeback of a file: {@link startWriteback};
 * - the C allocator's arenas: {@link limitArenas};
 * - a folder's entries with their lstat fields in one call: {@link scanDir} (or {@link scanDirAsync}), {@link lstatInto}; many known paths' lstat fields off the JavaScript thread: {@link lstatManyAsync}.
 *
 * A small N-API addon in C (src/*.c) built by node-gyp at install. Paths are
 * strings or Buffers; Buffers go to the system byte for byte, since names need
 * not be UTF-8. Failed calls throw errors shaped like Node's fs errors
 * (`code`, `errno`, `syscall`, `path`). Linux is the target; macOS builds; on
 * Windows nothing is built, {@link available} is false and every call throws.
 */
export { available, type Path } from './binding.js';
export type { SystemError } from './errors.js';
export { dataExtents, seekData, seekHole, type Extent } from './extents.js';
export { listXattrs, getXattr, setXattr, removeXattr, fListXattrs, fGetXattr, fSetXattr, fRemoveXattr } from './xattr.js';
export { mknod, mkfifo, major, minor, makedev } from './nodes.js';
export { userName, groupName, userId, groupId } from './owners.js';
export { lutimesNs, futimesNs } from './times.js';
export { tryLock } from './lock.js';
export { copyRange, startWriteback } from './copy.js';
export { limitArenas } from './memory.js';
export { scanDir, scanDirAsync, lstatInto, lstatManyAsync, ScanField, SCAN_FIELDS, type ScannedDir } from './scan.js';
