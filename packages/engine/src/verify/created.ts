/**
 * The signed creation time of a shipment (Brickpost-Created), as verify,
 * ingest and the desktop's verdict show it: the time, how long ago, and a
 * warning when it lies in the future by more than CLOCK_SKEW_MS (the
 * publisher's clock is wrong, or the drive was made to look newer than it
 * is). No Node imports.
 */
import type { CreatedNote } from '../api/verify.js';

/** How far a creation time may lie ahead of this machine's clock before a warning: one hour. */
export const CLOCK_SKEW_MS = 60 * 60 * 1000;

/** Describes `created` (ISO 8601) relative to `now` (ms since the epoch). */
export function describeCreated(created: string, now = Date.now()): CreatedNote {
  const t = Date.parse(created);
  const at = `${created.slice(0, 16).replace('T', ' ')} UTC`;
  if (Number.isNaN(t)) return { text: created, warning: null };
  const ahead = t - now;
  if (ahead > CLOCK_SKEW_MS) {
    return {
      text: `${at} (${span(ahead)} in the future)`,
      warning: `the shipment says it was packed at ${at}, ${span(ahead)} ahead of this machine's clock (more than the ${span(CLOCK_SKEW_MS)} allowed for clock skew): the publisher's clock, or this machine's, is wrong; ask the publisher when it was packed`,
    };
  }
  return { text: ahead > 0 ? `${at} (just now)` : `${at} (${span(-ahead)} ago)`, warning: null };
}

function span(ms: number): string {
  const units: Array<[number, string]> = [
    [365.25 * 86400e3, 'year'],
    [30.44 * 86400e3, 'month'],
    [86400e3, 'day'],
    [3600e3, 'hour'],
    [60e3, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return 'less than a minute';
}
