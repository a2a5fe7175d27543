/**
 * Measured drive speeds: at the end of each pack, the bytes it wrote to each
 * drive over the seconds it took, kept in the catalog's meta table (one row
 * per pack, key `drive-rate/<time>/<shipment>`, the newest 20 kept). The
 * planner's default drive speed is the median of the recent ones.
 */
import type { Catalog } from '../catalog/catalog.js';
import { keepNewestWithPrefix, metaWithPrefix, setMeta } from '../catalog/meta.js';
import type { MeasuredSpeed } from './plan.js';

const PREFIX = 'drive-rate/';
const KEEP = 20;
/** The planner uses this many recent measurements at most. */
export const RECENT_PACKS = 5;
/**
 * Packs that wrote less than this per drive are not used: on small packs the
 * start-up and sealing, not the drive, set the time.
 */
export const MIN_MEASURED_BYTES = 1e9;

/** One pack's measurement. */
export interface DriveRate {
  shipment: string;
  /** Bytes written, summed over the drives. */
  bytes: number;
  drives: number;
  seconds: number;
  /** ISO time; the default is now. */
  at?: string;
}

/**
 * Records a finished pack's write rate. Never throws: the shipment is sealed
 * by now, and a lost measurement only leaves the planner its default.
 */
export function recordDriveRate(catalog: Catalog, r: DriveRate): void {
  if (!(r.seconds > 0 && r.drives > 0 && r.bytes >= 0)) return;
  try {
    const key = `${PREFIX}${r.at ?? new Date().toISOString()}/${r.shipment}`;
    catalog.tx(() => {
      setMeta(catalog, key, JSON.stringify({ bytes: r.bytes, drives: r.drives, seconds: r.seconds }));
      keepNewestWithPrefix(catalog, PREFIX, KEEP);
    });
  } catch {
    // A busy or read-only catalog: the measurement is lost, nothing else.
  }
}

/** The recorded measurements, newest first, as bytes per second per drive. */
export function driveRates(catalog: Catalog): Array<{ shipment: string; at: string; bytesPerDrive: number; bytesPerSecond: number }> {
  const rows = metaWithPrefix(catalog, PREFIX);
  const out = [];
  for (const row of rows) {
    const rest = row.key.slice(PREFIX.length);
    const cut = rest.lastIndexOf('/');
    let v: { bytes?: unknown; drives?: unknown; seconds?: unknown };
    try {
      v = JSON.parse(row.value) as typeof v;
    } catch {
      continue;
    }
    if (typeof v.bytes !== 'number' || typeof v.drives !== 'number' || typeof v.seconds !== 'number' || !(v.seconds > 0 && v.drives > 0)) continue;
    out.push({ at: rest.slice(0, cut), shipment: rest.slice(cut + 1), bytesPerDrive: v.bytes / v.drives, bytesPerSecond: v.bytes / v.drives / v.seconds });
  }
  return out;
}

/** The median per-drive write rate of the recent packs large enough to tell, or null when there are none. */
export function measuredDriveSpeed(catalog: Catalog): MeasuredSpeed | null {
  const recent = driveRates(catalog)
    .filter((r) => r.bytesPerDrive >= MIN_MEASURED_BYTES)
    .slice(0, RECENT_PACKS)
    .map((r) => r.bytesPerSecond)
    .sort((a, b) => a - b);
  if (recent.length === 0) return null;
  const mid = recent.length >> 1;
  const median = recent.length % 2 ? recent[mid]! : (recent[mid - 1]! + recent[mid]!) / 2;
  return { bytesPerSecond: median, packs: recent.length };
}
