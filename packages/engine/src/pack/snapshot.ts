import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { BrickpostError, quote } from '@brickpost/manifest';
import type { EventSink, PackOptions, PackSummary } from '../api/index.js';
import { shellArg } from '../io/command.js';

/**
 * `pack --snapshot`: pack from a read-only snapshot of the source, taken
 * for this pack and removed after it, so the shipment is one moment of the
 * tree however busy it is. Only btrfs is done here
 * (`btrfs subvolume snapshot -r` of the subvolume holding the source, into a folder of that
 * subvolume, then `btrfs subvolume delete`); any other file system is
 * refused naming it, with what to do instead for ZFS and LVM.
 *
 * Terms:
 * - mount: the entry of /proc/self/mountinfo whose mount point is the
 *   longest prefix of the source (Linux only; elsewhere it is refused).
 * - subvolume: the nearest folder at or above the source, on its device,
 *   whose inode number is 256 (the root of every btrfs subvolume).
 */

/** The file system holding a path. */
export interface MountOf {
  fsType: string;
  mountPoint: string;
  /** What is mounted (a device, a pool's dataset). */
  device: string;
}

/** Runs one tool; throws its failure. */
export type ToolRunner = (cmd: string, args: readonly string[]) => Promise<void>;

/** What withSnapshot needs from the machine; tests give their own where btrfs cannot be mounted. */
export interface SnapshotDeps {
  mountOf: (path: string) => MountOf | null;
  subvolumeOf: (path: string) => string;
  run: ToolRunner;
}

/** The inode number of every btrfs subvolume's root. */
const SUBVOLUME_INO = 256;

/** Reads the octal escapes (such as `\040`) mountinfo writes in paths. */
function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** The mount holding `path`, from mountinfo text (proc(5)), or null when none does. */
export function mountOf(path: string, mountinfo?: string): MountOf | null {
  let text = mountinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return null;
    }
  }
  let best: MountOf | null = null;
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-', 6);
    if (f.length < 10 || dash < 0) continue;
    const mountPoint = unescapeMount(f[4]!);
    const inside = mountPoint === '/' || path === mountPoint || path.startsWith(mountPoint + '/');
    // Later lines mount over earlier ones at the same point.
    if (inside && (!best || mountPoint.length >= best.mountPoint.length)) best = { fsType: f[dash + 1]!, mountPoint, device: unescapeMount(f[dash + 2] ?? '') };
  }
  return best;
}

/** The btrfs subvolume holding `path` (see the terms above). */
export function subvolumeOf(path: string): string {
  const dev = statSync(path).dev;
  let dir = path;
  for (;;) {
    if (statSync(dir).ino === SUBVOLUME_INO) return dir;
    const up = dirname(dir);
    if (up === dir || statSync(up).dev !== dev) return dir;
    dir = up;
  }
}

/** The commands that take and remove the snapshot of `subvolume` at `dir`. */
export function snapshotCommands(subvolume: string, dir: string): { create: [string, string[]]; remove: [string, string[]] } {
  return { create: ['btrfs', ['subvolume', 'snapshot', '-r', subvolume, dir]], remove: ['btrfs', ['subvolume', 'delete', dir]] };
}

/** What to do instead on a file system brickpost does not snapshot. */
function otherwise(m: MountOf): string {
  if (m.fsType === 'zfs') return `take a snapshot yourself (zfs snapshot ${m.device}@brickpost) and pack from ${m.mountPoint}/.zfs/snapshot/brickpost/…`;
  if (m.device.startsWith('/dev/mapper/'))
    return `if ${m.device} is an LVM volume, take a snapshot yourself (lvcreate --snapshot), mount it read-only and pack from there`;
  return 'pack without --snapshot: a file that changes while read is read again, and pack fails if it does not settle (see --allow-changing)';
}

/**
 * Runs `fn` on the source as a read-only btrfs snapshot shows it, and
 * removes the snapshot whatever `fn` does. A snapshot that cannot be
 * removed is said as a warning (`warn`), never hides `fn`'s result or error.
 * @throws BrickpostError USAGE (not btrfs, naming the file system), DEPENDENCY (no btrfs tool), PERMISSION, IO; what fn throws
 */
export async function withSnapshot<T>(
  source: string,
  fn: (inSnapshot: string) => Promise<T>,
  warn: (message: string) => void,
  deps: SnapshotDeps = MACHINE,
): Promise<{ result: T; snapshot: string }> {
  const m = deps.mountOf(source);
  if (m === null) {
    throw new BrickpostError(
      'USAGE',
      `pack --snapshot: cannot tell which file system holds ${quote(source)} (no /proc/self/mountinfo); snapshots are taken on Linux btrfs only`,
      { hint: otherwise({ fsType: '', mountPoint: '', device: '' }) },
    );
  }
  if (m.fsType !== 'btrfs') {
    throw new BrickpostError(
      'USAGE',
      `pack --snapshot: ${quote(source)} is on a ${m.fsType} file system (${quote(m.device)} mounted at ${quote(m.mountPoint)}); brickpost takes snapshots on btrfs only`,
      { hint: otherwise(m), path: source },
    );
  }
  const subvolume = deps.subvolumeOf(source);
  const dir = join(subvolume, `.brickpost-snapshot-${randomBytes(4).toString('hex')}`);
  const cmd = snapshotCommands(subvolume, dir);
  await deps.run(...cmd.create);
  try {
    return { result: await fn(join(dir, relative(subvolume, source))), snapshot: dir };
  } finally {
    await deps.run(...cmd.remove).catch((e: unknown) => {
      warn(
        `the snapshot ${quote(dir)} could not be removed: ${(e as Error).message}; remove it with: ${[cmd.remove[0], ...cmd.remove[1]].map(shellArg).join(' ')}`,
      );
    });
  }
}

/**
 * pack with `snapshot`: the same pack, of the snapshot, under the name the
 * source has (a dataset is named after its folder by default), with a note
 * in the summary saying so.
 */
export async function packFromSnapshot(
  opts: PackOptions,
  onEvent: EventSink,
  packIt: (o: PackOptions) => Promise<PackSummary>,
  deps: SnapshotDeps = MACHINE,
): Promise<PackSummary> {
  let source: string;
  try {
    source = realpathSync(resolve(opts.source));
  } catch {
    throw new BrickpostError('NOT_FOUND', `source ${quote(opts.source)} is not a folder`);
  }
  const warn = (message: string): void => onEvent({ type: 'warning', code: 'SNAPSHOT', message });
  const { result, snapshot } = await withSnapshot(
    source,
    (inSnapshot) => packIt({ ...opts, source: inSnapshot, snapshot: false, dataset: opts.dataset ?? basename(source) }),
    warn,
    deps,
  );
  result.notes.push(`packed from a read-only snapshot of ${source} (${snapshot}), removed after`);
  return result;
}

/** Runs a tool, mapping its failures to the environment's codes with its own words. */
export const runTool: ToolRunner = (cmd, args) =>
  new Promise((done, fail) => {
    execFile(cmd, [...args], (err, _stdout, stderr) => {
      if (!err) return done();
      const line = [cmd, ...args].map(shellArg).join(' ');
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return fail(
          new BrickpostError('DEPENDENCY', `${quote(cmd)} is not installed: it takes and removes the snapshot`, {
            hint: 'install btrfs-progs (apt-get install btrfs-progs), or pack without --snapshot',
          }),
        );
      }
      const words = stderr.trim().split('\n').pop() ?? err.message;
      const denied = /permission denied|operation not permitted/i.test(words);
      fail(
        new BrickpostError(denied ? 'PERMISSION' : 'IO', `${line} failed: ${words}`, {
          hint: denied
            ? 'run pack as root (snapshots of a subvolume need it), or pack without --snapshot'
            : 'check the file system with: btrfs filesystem show',
        }),
      );
    });
  });

const MACHINE: SnapshotDeps = { mountOf: (p) => mountOf(p), subvolumeOf, run: runTool };
