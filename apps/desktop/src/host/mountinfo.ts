/**
 * Linux mounts: /proc/self/mountinfo parsed (proc(5)), and which of them
 * look like a drive a user plugged in: a block device the kernel marks
 * removable (/sys/block/DISK/removable), or anything mounted under /media,
 * /run/media or /mnt (where desktops and admins mount external disks).
 */
import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** One line of mountinfo. */
export interface Mount {
  mountPoint: string;
  fsType: string;
  /** The mount source, e.g. /dev/sdb1. */
  source: string;
}

/** Undoes mountinfo's octal escapes (`\040` for a space). */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses mountinfo text; malformed lines are skipped. Never throws. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const sep = fields.indexOf('-', 6);
    if (fields.length < 10 || sep < 0 || sep + 2 >= fields.length) continue;
    mounts.push({ mountPoint: unescapeOctal(fields[4]!), fsType: fields[sep + 1]!, source: unescapeOctal(fields[sep + 2]!) });
  }
  return mounts;
}

const USER_MOUNT_ROOTS = ['/media/', '/run/media/', '/mnt/'];
const PSEUDO_FS = new Set([
  'proc',
  'sysfs',
  'tmpfs',
  'devtmpfs',
  'devpts',
  'cgroup',
  'cgroup2',
  'overlay',
  'squashfs',
  'autofs',
  'mqueue',
  'debugfs',
  'tracefs',
  'securityfs',
  'pstore',
  'bpf',
  'configfs',
  'fusectl',
  'hugetlbfs',
  'binfmt_misc',
  'nsfs',
  'ramfs',
  'efivarfs',
]);

/** A mount worth offering as a drive, with whether the kernel says it is removable. */
export interface DriveMount extends Mount {
  removable: boolean;
}

/**
 * The mounts that are drives: removable block devices, and real file
 * systems mounted under the user mount roots. `isRemovable` answers for a
 * device path (tests pass their own).
 */
export async function driveMounts(mounts: Mount[], isRemovable: (source: string) => Promise<boolean> = removableDevice): Promise<DriveMount[]> {
  const out: DriveMount[] = [];
  const seen = new Set<string>();
  for (const m of mounts) {
    if (PSEUDO_FS.has(m.fsType) || seen.has(m.mountPoint)) continue;
    const removable = m.source.startsWith('/dev/') ? await isRemovable(m.source) : false;
    const underUserRoot = USER_MOUNT_ROOTS.some((r) => m.mountPoint.startsWith(r));
    if (!removable && !underUserRoot) continue;
    seen.add(m.mountPoint);
    out.push({ ...m, removable });
  }
  return out;
}

/** True when /sys says the disk holding the device is removable (a partition's disk is its parent in /sys). */
export async function removableDevice(source: string): Promise<boolean> {
  try {
    const dev = await realpath(source);
    const sys = await realpath(join('/sys/class/block', basename(dev)));
    for (const dir of [sys, dirname(sys)]) {
      const flag = await readFile(join(dir, 'removable'), 'utf8').catch(() => null);
      if (flag !== null) return flag.trim() === '1';
    }
  } catch {
    // Not a block device /sys knows (a loop file, a network source): not removable.
  }
  return false;
}

/** The drive mounts of this Linux machine. Never throws (no mountinfo: none). */
export async function linuxDriveMounts(): Promise<DriveMount[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  return driveMounts(parseMountinfo(text));
}
