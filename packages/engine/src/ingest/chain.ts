import { readdir } from 'node:fs/promises';
import { BrickpostError, quote, type ShipmentRecord } from '@brickpost/manifest';
import type { Catalog } from '../catalog/catalog.js';
import { newestApplied } from '../catalog/ingests.js';
import type { OpenedShipment } from '../drive/open.js';
import { STATE_DIR, type DestState } from './state.js';

function seqs(h: ShipmentRecord): string {
  const list = h.bases.map(([, seq]) => seq).sort((a, b) => a - b);
  return list.length === 1 ? `seq ${list[0]}` : `seq ${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

/**
 * Refuses to start a new destination with a shipment older than one this
 * home has applied of the same dataset and publisher to any destination
 * (the catalog remembers every ingest): an attacker holding an old genuine
 * drive cannot pass it off as current. A destination with a chain of its
 * own follows that chain (checkChain). `allowOlder` is the subscriber
 * saying it on purpose.
 * @throws BrickpostError CHAIN_REPLAY
 */
export function checkNotOlder(catalog: Catalog, s: OpenedShipment, h: ShipmentRecord, allowOlder: boolean): void {
  if (allowOlder) return;
  const newest = newestApplied(catalog, s.info.datasetId, s.info.publisherKey);
  if (newest && h.seq < newest.seq) {
    throw new BrickpostError(
      'CHAIN_REPLAY',
      `shipment ${quote(s.id)} is seq ${h.seq} of dataset ${quote(s.info.dataset)}, older than seq ${newest.seq} this home applied to ${quote(newest.dest)}`,
      {
        hint: 'the drive may be an old shipment passed off as current; nothing was changed. To ingest an older shipment on purpose, give --allow-older',
      },
    );
  }
}

/** Refuses a shipment that does not follow what DEST holds (FORMAT.md §10.4). */
export async function checkChain(dest: string, s: OpenedShipment, h: ShipmentRecord, state: DestState | null): Promise<void> {
  const name = quote(s.info.dataset);
  if (!state) {
    if (h.against !== null) return;
    if (h.bases.length > 0) {
      throw new BrickpostError(
        'CHAIN_GAP',
        `shipment ${quote(s.id)} (seq ${h.seq} of dataset ${name}) only carries changes on top of ${seqs(h)}, and ${quote(dest)} holds no shipment of this dataset`,
        {
          hint: 'ingest the earlier shipments first, or ask the publisher for a self-contained one (brickpost pack --full), or seed: brickpost signature, then pack --against',
        },
      );
    }
    const others = (await readdir(dest)).filter((n) => n !== STATE_DIR);
    if (others.length > 0) {
      throw new BrickpostError('USAGE', `destination ${quote(dest)} is not empty and was not written by brickpost`, {
        hint: "ingest into a new or empty folder, or seed it: 'brickpost signature' there, and the publisher packs --against that file",
      });
    }
    return;
  }
  if (state.publisher !== s.info.publisherKey) {
    throw new BrickpostError(
      'DATASET_MISMATCH',
      `the publisher differs: destination holds dataset ${quote(state.dataset)} (${state.datasetId}) from publisher key ${state.publisher}; the drive carries ${name} (${s.info.datasetId}) signed by publisher key ${s.info.publisherKey}`,
      { hint: "'brickpost trust list' names both keys; a destination follows one publisher: ingest this drive into another folder" },
    );
  }
  if (state.datasetId !== s.info.datasetId) {
    throw new BrickpostError(
      'DATASET_MISMATCH',
      `destination holds dataset ${quote(state.dataset)} (${state.datasetId}), the drive carries ${name} (${s.info.datasetId})`,
      {
        hint: 'ingest into another folder',
      },
    );
  }
  const cur = state.applied[state.applied.length - 1]!;
  const applied = new Map(state.applied.map((a) => [a.shipment, a]));
  if (applied.has(s.id)) {
    throw new BrickpostError(
      'CHAIN_REPLAY',
      `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) was applied before; the destination is now at seq ${cur.seq}, so the next shipment must be seq ${cur.seq + 1}`,
      {
        hint: 'this drive carries an older shipment; nothing was changed',
      },
    );
  }
  if (h.seq <= cur.seq) {
    const sibling = h.parent !== null ? state.applied.find((a) => a.parent === h.parent) : undefined;
    if (sibling) {
      throw new BrickpostError(
        'CHAIN_FORK',
        `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) and the applied shipment ${quote(sibling.shipment)} (seq ${sibling.seq}) both follow shipment ${quote(h.parent!)}: the chain forked; the destination is at seq ${cur.seq}`,
        {
          hint: 'the publisher packed twice from the same point (a restored or copied catalog?); ask for a shipment built on seq ' + cur.seq,
        },
      );
    }
    throw new BrickpostError(
      'CHAIN_REPLAY',
      `shipment ${quote(s.id)} is seq ${h.seq} of ${name}, but the destination is already at seq ${cur.seq}; expected seq ${cur.seq + 1}`,
      {
        hint: 'this drive carries an older shipment; nothing was changed',
      },
    );
  }
  if (h.against !== null || h.bases.length === 0) return;
  if (h.bases.some(([id]) => id === cur.shipment)) return;
  const forked = h.bases.find(([id, seq]) => seq <= cur.seq && !applied.has(id));
  if (forked && h.bases.every(([id, seq]) => seq <= cur.seq && !applied.has(id))) {
    throw new BrickpostError(
      'CHAIN_FORK',
      `shipment ${quote(s.id)} (seq ${h.seq} of ${name}) builds on shipment ${quote(forked[0])} (seq ${forked[1]}), which this destination never applied: it is at seq ${cur.seq} (${quote(cur.shipment)}) on another branch`,
      {
        hint: 'ask the publisher for a shipment built on what the destination holds (brickpost receipt, or brickpost signature and pack --against)',
      },
    );
  }
  throw new BrickpostError(
    'CHAIN_GAP',
    `the destination is at seq ${cur.seq} of ${name}; shipment ${quote(s.id)} (seq ${h.seq}) applies on top of ${seqs(h)}: expected seq ${cur.seq + 1} first`,
    {
      hint: `ingest the shipments after seq ${cur.seq} first, in order`,
    },
  );
}
