/**
 * Units as people type them (sizes, bit rates, byte rates, durations) and
 * back to short text. Pure functions with no Node imports, so the desktop
 * renderer and the CLI read `10TB` or `80ms` the same way.
 *
 * Decimal prefixes are SI (kB, MB, GB, TB, PB: powers of 1000), binary ones
 * IEC (KiB, MiB, GiB, TiB, PiB: powers of 1024). A bare prefix letter with no
 * unit (`500G`, `4T`) is binary, as pack's --drive-size has always read it.
 * The parsers return undefined for text they do not read; callers say which
 * option was wrong.
 */

const NUMBER = String.raw`(\d+(?:\.\d*)?|\.\d+)`;
const PREFIXES = 'kmgtpe';

/** 1000^n or 1024^n for the prefix letter (k, M, G…; any case), 1 for none. */
function scale(prefix: string | undefined, binary: boolean): number {
  if (!prefix) return 1;
  return (binary ? 1024 : 1000) ** (PREFIXES.indexOf(prefix.toLowerCase()) + 1);
}

function finite(n: number, min: number): number | undefined {
  return Number.isFinite(n) && n >= min && n <= Number.MAX_SAFE_INTEGER ? n : undefined;
}

const SIZE = new RegExp(`^${NUMBER}\\s*(?:([kmgtpe])(i)?)?(b)?$`, 'i');

/**
 * Bytes from `10TB` (10·10^12), `1.5TiB`, `500GB`, `64KiB`, `500G` (binary)
 * or a plain byte count; whole bytes, at least 1.
 */
export function parseSize(text: string): number | undefined {
  const m = SIZE.exec(text.trim());
  if (!m) return undefined;
  const [, num, prefix, i, b] = m;
  const binary = i !== undefined || (prefix !== undefined && b === undefined);
  const n = Math.floor(Number(num) * scale(prefix, binary));
  return finite(n, 1);
}

const BIT_RATE = new RegExp(`^${NUMBER}\\s*(?:([kmgtpKMGTP])(i)?)?(bits?|Bits?|b|B)?(?:/s|ps)?$`);

/**
 * Bits per second from `100Mbit`, `1Gbit/s`, `10Gbps`, `100Mb/s` or a plain
 * number; a capital B means bytes (`12.5MB/s` is 100 Mbit/s).
 */
export function parseBitRate(text: string): number | undefined {
  const m = BIT_RATE.exec(text.trim());
  if (!m) return undefined;
  const [, num, prefix, i, unit] = m;
  const n = Number(num) * scale(prefix, i !== undefined) * (unit === 'B' ? 8 : 1);
  return finite(n, Number.MIN_VALUE);
}

/** Bytes per second from `200MB/s`, `1.2GB/s`, `150MiB/s`, `200MBps` or a size alone. */
export function parseByteRate(text: string): number | undefined {
  return parseSize(text.trim().replace(/(?:\/s|ps)$/, ''));
}

const DURATION_UNITS: Record<string, number> = {
  ms: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
};

const DURATION = new RegExp(`^${NUMBER}\\s*([a-z]*)$`, 'i');

/** Seconds from `80ms`, `24h`, `2d`, `1.5h`, `90min` or a plain number of seconds; at least 0. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2] === '' ? 1 : DURATION_UNITS[m[2]!.toLowerCase()];
  return unit === undefined ? undefined : finite(Number(m[1]) * unit, 0);
}

/** A non-negative amount of money, `120` or `99.50` (no currency: the planner adds like for like). */
export function parseAmount(text: string): number | undefined {
  const m = new RegExp(`^${NUMBER}$`).exec(text.trim());
  return m ? finite(Number(m[1]), 0) : undefined;
}

/** Three significant digits, no trailing zeros: 9.26, 10, 123. */
function digits(v: number): string {
  return String(Number(v.toPrecision(3)));
}

const SI = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

/** `v` in the largest of `units` (steps of 1000) that keeps it under 1000, to three digits. */
function withSiPrefix(v: number, units: readonly string[]): string {
  let i = 0;
  while (Math.abs(v) >= 999.5 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${digits(v)} ${units[i]}`;
}

/** A size in SI units, as drives are sold: `10 TB`, `1.65 TB`, `512 B`. */
export function humanSize(bytes: number): string {
  return withSiPrefix(bytes, SI);
}

/** A rate in SI bytes per second: `12.5 MB/s`. */
export function humanByteRate(bytesPerSecond: number): string {
  return `${humanSize(bytesPerSecond)}/s`;
}

const BIT_UNITS = ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s', 'Tbit/s', 'Pbit/s'];

/** A link speed: `100 Mbit/s`, `1 Gbit/s`. */
export function humanBitRate(bitsPerSecond: number): string {
  return withSiPrefix(bitsPerSecond, BIT_UNITS);
}

const SPANS: Array<[limit: number, unit: number, name: string]> = [
  [90, 1, 'second'],
  [90 * 60, 60, 'minute'],
  [24 * 3600, 3600, 'hour'],
  [Infinity, 86400, 'day'],
];

/**
 * A duration in the largest unit that reads well: `45 seconds`, `14 hours`,
 * `1.6 days`, `93 days` (one decimal below 10, none above).
 */
export function humanDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'forever';
  const [, unit, name] = SPANS.find(([limit]) => seconds < limit)!;
  const v = seconds / unit;
  const text = v < 9.95 ? String(Math.round(v * 10) / 10) : String(Math.round(v));
  return `${text} ${name}${text === '1' ? '' : 's'}`;
}
