import { BrickpostError, quote } from '@brickpost/manifest/errors';
import type { SubscribersOptions, SubscribersReport } from '../api/index.js';
import type { Catalog } from './catalog.js';
import { subscriberLags } from './subscribers.js';

/**
 * `brickpost subscribers`: the lag of every subscriber at `now` (default
 * the clock), flagged past `maxLag`. Reads the catalog only.
 * @throws BrickpostError USAGE for a `now` that is not a time
 */
export function subscribersReport(catalog: Catalog, o: SubscribersOptions): SubscribersReport {
  const now = o.now === undefined ? new Date() : new Date(o.now);
  if (Number.isNaN(now.getTime()))
    throw new BrickpostError('USAGE', `--now ${quote(o.now ?? '')} is not a time`, {
      hint: 'give an ISO 8601 time such as 2026-12-01 or 2026-12-01T12:00:00Z',
    });
  const maxLag = o.maxLag && (o.maxLag.shipments !== undefined || o.maxLag.seconds !== undefined) ? o.maxLag : null;
  const subscribers = subscriberLags(catalog, { ...(o.dataset !== undefined ? { dataset: o.dataset } : {}), now, maxLag });
  return { now: now.toISOString(), maxLag, subscribers, past: subscribers.filter((s) => s.pastMaxLag).length };
}
