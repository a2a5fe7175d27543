// Loads the compiled addon (build/Release/posix.node, built by node-gyp at
// install). On Windows nothing is built, and a Unix install whose build failed
// has no file to load: then `available` is false and every call throws.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A file name as the system sees it: a string (written as UTF-8) or a Buffer passed byte for byte. */
export type Path = string | Buffer;

/** The addon's functions as src/*.c define them; the exported wrappers add path-aware errors. */
export interface Addon {
  dataExtents(fd: number, size: number, maxExtents?: number): Array<[number, number]>;
  seekData(fd: number, offset: number): number;
  seekHole(fd: number, offset: number): number;
  listXattrs(path: Path): Buffer[];
  getXattr(path: Path, name: Path): Buffer | null;
  setXattr(path: Path, name: Path, value: Buffer): void;
  removeXattr(path: Path, name: Path): void;
  fListXattrs(fd: number): Buffer[];
  fGetXattr(fd: number, name: Path): Buffer | null;
  fSetXattr(fd: number, name: Path, value: Buffer): void;
  fRemoveXattr(fd: number, name: Path): void;
  tryLock(fd: number): boolean;
  copyRange(fdIn: number, offIn: number, fdOut: number, offOut: number, length: number): number;
  startWriteback(fd: number, offset: number, length: number): boolean;
  mknod(path: Path, mode: number, major: number, minor: number): void;
  mkfifo(path: Path, mode: number): void;
  major(rdev: number | bigint): number;
  minor(rdev: number | bigint): number;
  makedev(major: number, minor: number): number;
  userName(uid: number): string | null;
  groupName(gid: number): string | null;
  userId(name: string): number | null;
  groupId(name: string): number | null;
  lutimesNs(path: Path, atimeNs: bigint, mtimeNs: bigint): void;
  futimesNs(fd: number, atimeNs: bigint, mtimeNs: bigint): void;
  limitArenas(arenas: number): boolean;
  scanDir(path: Path, xattrs?: boolean): { names: Buffer; stats: Float64Array; ascii: boolean };
  scanDirAsync(path: Path, xattrs?: boolean): Promise<{ names: Buffer; stats: Float64Array; ascii: boolean }>;
  lstatInto(path: Path, out: Float64Array): number;
  lstatManyAsync(paths: Buffer, count: number): Promise<Float64Array>;
}

const addonFile = fileURLToPath(new URL('../../build/Release/posix.node', import.meta.url));

function load(): { addon: Addon | null; reason: string } {
  if (process.platform === 'win32') return { addon: null, reason: 'posix calls are not available on windows' };
  try {
    return { addon: createRequire(import.meta.url)(addonFile) as Addon, reason: '' };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { addon: null, reason: `posix addon not loaded from ${addonFile}: ${why}` };
  }
}

const loaded = load();

/** Whether the addon loaded on this platform; when false every function of this package throws. */
export const available: boolean = loaded.addon !== null;

/**
 * Returns the loaded addon.
 * @throws Error with code `ERR_POSIX_UNAVAILABLE` on Windows or when the addon failed to build or load.
 */
export function addon(): Addon {
  if (loaded.addon !== null) return loaded.addon;
  throw Object.assign(new Error(loaded.reason), { code: 'ERR_POSIX_UNAVAILABLE' });
}
