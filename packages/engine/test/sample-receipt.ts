/** A receipt with every field set, for the tests of the receipt schema. */
import type { Receipt } from '../src/api/index.js';

export const SAMPLE_RECEIPT: Receipt = {
  format: 'brickpost-receipt/v1',
  dataset: 'survey',
  datasetId: '1ccfcc4c4c954a50',
  publisher: 'E2E2BEF2840CF832',
  subscriber: { name: 'field station', keyId: '0011E92BA581B15A', recipient: 'age1d2frye3ephgcxjl6x28fuzgxhg2twuvf4nz2f7zrt9p778scz4jq8xfck4' },
  applied: [
    { shipment: 'S1', seq: 1, appliedAt: '2026-01-01T00:00:00.000Z' },
    { shipment: 'S2', seq: 2, appliedAt: '2026-02-01T00:00:00.000Z' },
  ],
  current: { shipment: 'S2', seq: 2 },
  verification: { level: 'stat', ok: false, files: 3, bytes: 10, problems: [{ code: 'FILE_MISSING', message: 'file "a" is missing', path: 'a' }] },
  stateDigest: 'ab'.repeat(32),
  created: '2026-02-02T00:00:00.000Z',
};
