import { isBrickpostError, type ShipmentInfo } from '@brickpost/manifest';
import type { Context } from '../context.js';
import { recordSeen } from './subscribers.js';

/**
 * Notes a shipment seen with a valid signature by a trusted publisher
 * (verify, ingest) in the catalog, for `history`'s "behind the newest
 * seen" line. A catalog that cannot be written now loses only that hint:
 * the command's own work does not depend on it.
 * @throws only what is not the environment's (a bug)
 */
export function noteSeen(ctx: Context, info: ShipmentInfo): void {
  try {
    recordSeen(ctx.catalog, { datasetId: info.datasetId, publisher: info.publisherKey, shipment: info.shipment, seq: info.seq, created: info.created });
  } catch (e) {
    if (isBrickpostError(e) && (e.category === 'environment' || e.category === 'busy')) return;
    throw e;
  }
}
