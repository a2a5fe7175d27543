import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A process that has a file open. */
export interface Holder {
  pid: number;
  /** Its command line, arguments joined by spaces ('' when unreadable). */
  command: string;
}

/**
 * The other processes that have one of `files` open, found through
 * /proc/PID/fd (Linux; elsewhere, or where /proc hides other users'
 * processes, the list is empty). For a lock message: SQLite does not say
 * who holds its locks, but whoever holds one has the file open. This
 * process is left out. Never throws.
 */
export function fileHolders(files: readonly string[]): Holder[] {
  if (process.platform !== 'linux') return [];
  const wanted = new Set(files.flatMap((f) => [f, real(f)]));
  const out: Holder[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return [];
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        return wanted.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (holds) out.push({ pid: Number(pid), command: commandOf(pid) });
  }
  return out;
}

/** The path with its folder's links resolved, as /proc shows it. */
function real(f: string): string {
  try {
    return join(realpathSync(dirname(f)), basename(f));
  } catch {
    return f;
  }
}

function commandOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/**
 * "process 123 (sqlite3 catalog.sqlite)" for each holder, or "another
 * process" when none is known; command lines are shortened and made printable.
 */
export function describeHolders(holders: readonly Holder[]): string {
  if (holders.length === 0) return 'another process';
  const one = (h: Holder): string => {
    const cmd = h.command.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
    return `process ${h.pid}${cmd ? ` (${cmd.length > 80 ? `${cmd.slice(0, 80)}…` : cmd})` : ''}`;
  };
  const shown = holders.slice(0, 3).map(one);
  return holders.length > 3 ? `${shown.join(', ')} and ${holders.length - 3} more` : shown.join(', ');
}
