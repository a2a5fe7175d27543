/**
 * The words of `--max-lag`, pure so that every front end (the desktop's
 * renderer too) reads them alike.
 */
import { BrickpostError, quote } from '@brickpost/manifest/errors';
import type { MaxLag } from '../api/subscribers.js';
import { parseDuration } from './units.js';

/**
 * Reads `--max-lag` values: a whole number is shipments (`3`), a duration
 * is time (`30d`, `12h`, `2w`). Several values combine (either crossed
 * flags). @throws BrickpostError USAGE for a value that is neither
 */
export function parseMaxLag(values: readonly string[]): MaxLag {
  const out: MaxLag = {};
  for (const v of values) {
    const t = v.trim();
    if (/^[0-9]+$/.test(t)) {
      out.shipments = Number(t);
      continue;
    }
    const s = /[a-z]$/i.test(t) ? parseDuration(t) : undefined;
    if (s === undefined) {
      throw new BrickpostError('USAGE', `--max-lag ${quote(v)} is neither a number of shipments (3) nor a time with its unit (30d, 12h, 2w)`, {
        hint: 'brickpost subscribers --max-lag 30d --max-lag 3',
      });
    }
    out.seconds = s;
  }
  return out;
}
