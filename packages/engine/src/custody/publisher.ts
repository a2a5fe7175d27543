import { custodyActor, formatCustodyEvent, formatCustodyLog, ZERO_HASH, type minisign, type ShipmentInfo } from '@brickpost/manifest';
import type { SealDigests } from '../drive/seal.js';
import { wellFormed } from './actor.js';

/**
 * The publisher's events of one drive's bag, packed (at the time of
 * packing) and sealed (now), as the text of the tag file custody.ndjson
 * (FORMAT.md §custody). The tag manifest cannot be named in them: it lists
 * this file's own digest.
 */
export function publisherCustodyLog(info: ShipmentInfo, key: minisign.SigningKey, digests: SealDigests, now = new Date()): string {
  const actor = custodyActor(wellFormed(info.publisher), key);
  const common = { shipment: info.shipment, drive: `${info.bagIndex} of ${info.bagCount}`, actor };
  const packed = formatCustodyEvent(
    {
      n: 1,
      type: 'packed',
      at: info.created,
      ...common,
      details: { files: info.files, bytes: info.bytes, packs: info.packs, payloadFiles: info.payloadFiles, payloadBytes: info.payloadBytes },
      prev: ZERO_HASH,
    },
    key,
  );
  const sealed = formatCustodyEvent({ n: 2, type: 'sealed', at: now.toISOString(), ...common, details: { ...digests }, prev: packed.hash }, key);
  return formatCustodyLog([packed.line, sealed.line]);
}
