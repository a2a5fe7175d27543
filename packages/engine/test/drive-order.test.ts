import { test } from 'vitest';
import assert from 'node:assert/strict';
import { byPacking } from '../src/drive/layout.js';
import type { DriveShipment } from '../src/api/index.js';

function shipment(id: string, created: string | null, seq: number | null): DriveShipment {
  return { id, dir: `/d/${id}`, seq, dataset: 'x', datasetId: 'x', label: null, parent: null, created, drive: null, drives: null };
}

test('shipments packed in the same second come oldest first by their packing time, then by sequence, not by the random part of the id', () => {
  const later = shipment('20261127T145457Z-11111111', '2026-11-27T14:54:57.900Z', 2);
  const earlier = shipment('20261127T145457Z-ffffffff', '2026-11-27T14:54:57.100Z', 1);
  assert.deepEqual([later, earlier].sort(byPacking), [earlier, later]);
  const sameMs2 = shipment('20261127T145457Z-00000000', '2026-11-27T14:54:57.100Z', 3);
  assert.deepEqual([sameMs2, earlier].sort(byPacking), [earlier, sameMs2]);
  // An unreadable bag-info sorts by its id's second, before what was packed later in that second.
  const unreadable = shipment('20261127T145457Z-99999999', null, null);
  assert.deepEqual([later, unreadable, earlier].sort(byPacking), [unreadable, earlier, later]);
  const old = shipment('20251127T000000Z-aaaaaaaa', '2025-11-27T00:00:00.000Z', 9);
  assert.equal([later, old].sort(byPacking)[0], old);
});
