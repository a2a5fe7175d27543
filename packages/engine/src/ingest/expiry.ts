import { BrickpostError, quote } from '@brickpost/manifest';
import type { OpenedShipment } from '../drive/open.js';

/**
 * Refuses a shipment past the expiry time its publisher signed
 * (`Brickpost-Expires` in bag-info, FORMAT.md §bag-info): a courier that
 * withholds new shipments cannot keep a subscriber on an old one forever,
 * as long as the publisher ships before the expiry. `allowExpired` is the
 * subscriber accepting it on purpose. `now` is milliseconds since the epoch.
 * @throws BrickpostError EXPIRED
 */
export function checkNotExpired(s: OpenedShipment, allowExpired: boolean, now = Date.now()): void {
  const expires = s.info.expires;
  if (expires === undefined || allowExpired || now <= Date.parse(expires)) return;
  throw new BrickpostError(
    'EXPIRED',
    `shipment ${quote(s.id)} (seq ${s.info.seq} of dataset ${quote(s.info.dataset)}) expired at ${expires}; it was packed at ${s.info.created}`,
    {
      hint: 'a newer shipment may have been withheld: ask the publisher for the current one; to ingest this one anyway, give --allow-expired',
    },
  );
}
