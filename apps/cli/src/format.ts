/**
 * Human formatting of numbers, sizes, rates, durations, file modes and times
 * for the CLI's text output. Pure functions, no I/O.
 */
import { humanByteRate, humanSize, quote } from '@brickpost/engine/api';
import type { ListEntry } from '@brickpost/engine/api';

/**
 * A byte count in SI units, as drives are sold and as the planner, reports
 * and the desktop app show them: `512 B`, `2.15 GB`. One formatter for all
 * (plan/units in the engine).
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '? B';
  return humanSize(n);
}

/** An integer with thousands separators: `1,234,567`. */
export function formatCount(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A rate in SI bytes per second, as drive makers quote them: `312 MB/s`. */
export function formatRate(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) return '? MB/s';
  return humanByteRate(bytesPerSecond);
}

/** Average rate of `bytes` over `seconds`, guarding against a zero duration. */
export function averageRate(bytes: number, seconds: number): number {
  return seconds > 0 ? bytes / seconds : 0;
}

/** A duration as `42s`, `3:07` (min:s) or `2:03:07` (h:min:s). */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** `1 file`, `2 files`. */
export function plural(n: number, one: string, many = one + 's'): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

const TYPE_CHAR: Record<string, string> = { file: '-', dir: 'd', link: 'l', hard: 'h', fifo: 'p', socket: 's', char: 'c', block: 'b' };

/**
 * A file mode in `ls -l` form, `drwxr-xr-x` / `-rw-r--r--` / `lrwxrwxrwx`,
 * from the entry type (a special file's kind) and the permission bits
 * (setuid, setgid and sticky shown as s/S, t/T). A hard link shows `h`.
 */
export function formatMode(type: string, mode: number): string {
  const p = mode & 0o7777;
  const rwx = (bits: number, special: boolean, ch: string): string => {
    const x = (bits & 1) !== 0;
    const last = special ? (x ? ch : ch.toUpperCase()) : x ? 'x' : '-';
    return ((bits & 4) !== 0 ? 'r' : '-') + ((bits & 2) !== 0 ? 'w' : '-') + last;
  };
  return (
    (TYPE_CHAR[type] ?? '?') + rwx((p >> 6) & 7, (p & 0o4000) !== 0, 's') + rwx((p >> 3) & 7, (p & 0o2000) !== 0, 's') + rwx(p & 7, (p & 0o1000) !== 0, 't')
  );
}

/**
 * A modification time given in nanoseconds since the epoch (decimal string)
 * as `YYYY-MM-DD hh:mm` in UTC, so listings read the same in every time zone.
 */
export function formatMtime(mtimeNs: string): string {
  let ms: number;
  try {
    ms = Number(BigInt(mtimeNs) / 1_000_000n);
  } catch {
    return '????-??-?? ??:??';
  }
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '????-??-?? ??:??';
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069"\\]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A name or path from a drive, printable on a terminal: shown as is when it
 * holds only safe characters, else JSON-quoted (see `quote`) so control
 * characters, bidi overrides and edge spaces are visible and cannot forge
 * output; bytes of a name that is not UTF-8 show as `\xNN`.
 */
export function printable(s: string): string {
  const safe = s !== '' && s.trim() === s && !UNSAFE_CHARS.test(s) && !LONE_SURROGATE.test(s);
  return safe ? s : quote(s, Number.MAX_SAFE_INTEGER);
}

/** One `ls` line: `-rw-r--r--          1234  2026-01-02 03:04  path`, sizes right-aligned to 12 columns. */
export function entryLine(e: ListEntry): string {
  return `${formatMode(e.type, e.mode)}  ${String(e.size).padStart(12)}  ${formatMtime(e.mtimeNs)}  ${printable(e.path)}`;
}

/**
 * One `ls -l` line: type and mode, owner, size (a device's major, minor),
 * mtime, path, and `-> target` for a symbolic link or `=> file` for a hard
 * link: `lrwxrwxrwx  root:root  0  2026-01-02 03:04  bin -> usr/bin`.
 */
export function longLine(e: ListEntry): string {
  const who = e.owner ? `${e.owner.user ?? e.owner.uid}:${e.owner.group ?? e.owner.gid}` : '-';
  const size = e.dev ? `${e.dev[0]}, ${e.dev[1]}` : String(e.size);
  const type = e.type === 'special' ? e.kind! : e.type;
  const tail =
    e.type === 'link'
      ? ` -> ${printable(e.target!)}`
      : e.type === 'hard'
        ? ` => ${printable(e.to!)}`
        : `${e.sparse ? '  (sparse)' : ''}${e.changing ? '  (changing while packed)' : ''}`;
  return `${formatMode(type, e.mode)}  ${printable(who).padEnd(17)}  ${size.padStart(12)}  ${e.type === 'hard' ? ''.padEnd(16) : formatMtime(e.mtimeNs)}  ${printable(e.path)}${tail}`;
}

/**
 * One argument of a command as a POSIX shell reads it: as is when it holds
 * only characters no shell treats specially, else in single quotes. Hints
 * print commands this way so that they work when pasted.
 */
export function shellArg(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command line, `brickpost verify /media/my drive` → `brickpost verify '/media/my drive'`. */
export function commandLine(args: readonly string[]): string {
  return ['brickpost', ...args.map(shellArg)].join(' ');
}
