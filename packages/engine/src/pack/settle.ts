import { lstatSync, type BigIntStats } from 'node:fs';
import * as posix from '@brickpost/posix';
import { BrickpostError, quote } from '@brickpost/manifest';
import { pausepoint } from '../io/failpoint.js';
import { fsPath } from '../io/fs-path.js';
import type { SourceEntry } from '../scan/index.js';

/**
 * The consistency point of a file pack reads from a live tree. A read is
 * stable when the file's size, mtime, ctime and inode after it are those it
 * had before it (the walk's stat, or the stat that started a re-read), and
 * the read itself found the size it expected. An unstable read is done
 * again, up to MAX_READS reads in all; a file that never settles is
 * `unsettled`: pack fails listing every such file (SOURCE_CHANGING), or,
 * with --allow-changing, ships what its last read gave and marks its record
 * (`changing`, FORMAT.md §9.4).
 */

/** Reads of one file before it counts as unsettled. */
export const MAX_READS = 3;

/** What changed between the stat a read started from and `now`, or null when nothing did. */
export function changeOf(e: SourceEntry, now: BigIntStats | null): string | null {
  if (now === null) return 'was removed while being read';
  if (!now.isFile()) return 'was replaced by another kind of entry while being read';
  if (now.ino !== e.ino) return 'was replaced by another file while being read';
  if (Number(now.size) !== e.size) return `changed size while being read (${e.size} → ${now.size} bytes)`;
  if (now.mtimeNs !== e.mtimeNs) return 'was modified while being read (its mtime changed)';
  if (now.ctimeNs !== e.ctimeNs) return 'changed while being read (its ctime changed)';
  return null;
}

/** The file's stat now, or null when it is gone. @throws what lstat throws but ENOENT, ENOTDIR */
export function restat(e: SourceEntry): BigIntStats | null {
  try {
    return lstatSync(fsPath(e.abs), { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * The consistency point of a file just read: how it changed since the stat
 * the read started from (or how the read found it changed), null when it
 * did not, and its stat now (null when it is gone, or when nothing changed
 * and the posix addon's lstat told so without Node's). A pausepoint lets a
 * test change the file between the read and this check.
 */
export async function afterRead(e: SourceEntry, readChange: string | undefined): Promise<{ how: string | null; now: BigIntStats | null }> {
  await pausepoint('pack-file-read');
  if (readChange === undefined && unchanged(e)) return { how: null, now: null };
  const now = restat(e);
  return { how: changeOf(e, now) ?? readChange ?? null, now };
}

const fields = new Float64Array(posix.SCAN_FIELDS);
const F = posix.ScanField;

/** Whether the file is still the one its stat describes (changeOf finds nothing), checked with the posix addon; false where it is missing. */
function unchanged(e: SourceEntry): boolean {
  if (!posix.available || posix.lstatInto(fsPath(e.abs), fields) !== 0) return false;
  return (
    (fields[F.mode]! & 0o170000) === 0o100000 &&
    fields[F.size] === e.size &&
    ((BigInt(fields[F.inoHi]!) << 32n) | BigInt(fields[F.inoLo]!)) === e.ino &&
    BigInt(fields[F.mtimeSec]!) * NS + BigInt(fields[F.mtimeNsec]!) === e.mtimeNs &&
    BigInt(fields[F.ctimeSec]!) * NS + BigInt(fields[F.ctimeNsec]!) === e.ctimeNs
  );
}

const NS = 1_000_000_000n;

/** The entry as `now` describes it: what the next read starts from. */
export function restarted(e: SourceEntry, now: BigIntStats): SourceEntry {
  return { ...e, size: Number(now.size), mode: Number(now.mode & 0o7777n), mtimeNs: now.mtimeNs, ctimeNs: now.ctimeNs, ino: now.ino };
}

/** Unsettled files a pack keeps to name; past it, it only counts them (memory stays bounded). */
export const KEEP_UNSETTLED = 1000;

/** A file that did not settle, and how it last changed. */
export interface Unsettled {
  path: string;
  how: string;
}

/**
 * The failure of a pack whose source kept changing, `total` files: the
 * first 20 named in the message, those kept (KEEP_UNSETTLED) in `choices`.
 */
export function sourceChanging(files: readonly Unsettled[], total: number, source: string): BrickpostError {
  const shown = files.slice(0, 20).map((f) => `${quote(f.path)} ${f.how}`);
  const more = total > shown.length ? `; and ${total - shown.length} more` : '';
  return new BrickpostError(
    'SOURCE_CHANGING',
    `${total === 1 ? '1 file' : `${total} files`} of ${quote(source)} kept changing while being packed (read ${MAX_READS} times each): ${shown.join('; ')}${more}; nothing was sealed`,
    {
      hint: 'stop what writes to them and pack again, pack from a snapshot (pack --snapshot, on btrfs), or ship them as they were read, marked as changing: pack --allow-changing',
      choices: files.map((f) => f.path),
      path: source,
    },
  );
}
