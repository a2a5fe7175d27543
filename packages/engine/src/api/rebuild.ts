/**
 * The engine API's types for rebuilding a lost drive of a set onto a new
 * one (drive/rebuild-drive.ts). Re-exported by api/index.ts.
 */

export interface RebuildDriveOptions {
  /** Drives of the set at hand: at least k of them (k = data drives), the lost one not among them. */
  from: string[];
  /** The folder of the new drive: empty, or holding only an interrupted rebuild of the same drive. */
  to: string;
  /** The drive number (1-based) to rebuild; by default the one drive of the set missing from `from`. */
  member?: number;
  /** Shipment id when the drives hold several. */
  shipment?: string;
}

export interface RebuildDriveSummary {
  shipmentId: string;
  /** The drive rebuilt (1-based), of `drives`. */
  drive: number;
  drives: number;
  kind: 'data' | 'parity';
  /** The drives the payload was computed from, by number. */
  from: Array<{ drive: number; path: string }>;
  /** The bag folder written. */
  path: string;
  /** Payload files and bytes on the new drive. */
  files: number;
  bytes: number;
  /** Payload files kept from an interrupted run (already whole and matching their SHA-256). */
  kept: number;
  /** Where the `rebuilt` custody event was recorded. */
  custody: 'drive' | 'catalog' | 'none' | 'no-identity';
  seconds: number;
}
