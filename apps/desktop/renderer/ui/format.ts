/** Numbers as people read them: sizes, rates, durations, dates. */

const UNITS = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** 1234567 → "1.2 MB" (decimal units, as drives are sold). */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  let i = 0;
  let v = n;
  while (v >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i += 1;
  }
  return i === 0 ? `${Math.round(v)} ${v === 1 ? 'byte' : 'bytes'}` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${UNITS[i]}`;
}

/** Bytes per second → "45 MB/s". */
export function rate(n: number): string {
  return `${bytes(n).replace(/ bytes?$/, ' B')}/s`;
}

/** Seconds → "3 min 20 s", "2 h 5 min", "4 days 3 h". */
export function duration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 1) return 'under a second';
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 >= 1 ? ` ${Math.floor(s % 60)} s` : ''}`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs} h${m % 60 ? ` ${m % 60} min` : ''}`;
  const days = Math.floor(hrs / 24);
  return `${days} days${hrs % 24 ? ` ${hrs % 24} h` : ''}`;
}

/** An ISO date as the local date and time. */
export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A key id in groups of four: "8F3A 21C0 …", easier to compare aloud. */
export function fingerprint(keyId: string): string {
  return keyId.replace(/(.{4})(?=.)/g, '$1 ');
}

/** "1 file", "2 files". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** A modification time in nanoseconds since the epoch (a decimal string) as the local date and time; '—' when there is none. */
export function mtime(ns: string): string {
  let ms: number;
  try {
    ms = Number(BigInt(ns) / 1_000_000n);
  } catch {
    return '—';
  }
  if (ms === 0) return '—';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
}
