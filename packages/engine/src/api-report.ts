/**
 * The engine API's types for verification reports (`brickpost report`).
 * Re-exported by api.ts. (Refined by the report implementation.)
 */
import type { CustodyReport } from './api-custody.js';
import type { VerifyReport } from './api-verify.js';

export interface ShipmentReport {
  format: 'brickpost-report/v1';
  /** 'drive' or 'dest'. */
  kind: 'drive' | 'dest';
  target: string;
  shipmentId: string;
  dataset: string;
  verify: VerifyReport | null;
  custody: CustodyReport | null;
  created: string;
}
