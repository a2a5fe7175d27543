/**
 * The engine API's types for the planner: ship drives, or send over the
 * network? Types only. The model is in plan/plan.ts; units and
 * their text in plan/units.ts.
 */

export interface PlanOptions {
  /** Dataset size in bytes. */
  bytes: number;
  /** Link bandwidth, bits per second (default 100 Mbit/s). */
  linkBitsPerSecond?: number;
  /** Round-trip time, seconds (default 0.08). */
  rttSeconds?: number;
  /** TCP window, bytes (default 4 MiB). */
  windowBytes?: number;
  /** Parallel streams (default 4). */
  streams?: number;
  /**
   * Write and read speed of one drive, bytes per second (default: the median
   * of this home's recent packs when it has measured some, else 200 MB/s).
   */
  driveBytesPerSecond?: number;
  /** Drives written and read in parallel (default 1). */
  drives?: number;
  /** Door-to-door courier time, seconds (default 24 h). */
  courierSeconds?: number;
  /** Price of one drive; with courierCost gives shipCost. */
  driveCost?: number;
  /** Price of the courier, both ways if it comes back; with driveCost gives shipCost. */
  courierCost?: number;
  /** Network transfer price per TB (10^12 bytes); gives networkCost. */
  networkCostPerTB?: number;
}

/** The inputs a plan was computed from, defaults filled in. */
export interface PlanInputs {
  bytes: number;
  linkBitsPerSecond: number;
  rttSeconds: number;
  windowBytes: number;
  streams: number;
  driveBytesPerSecond: number;
  drives: number;
  courierSeconds: number;
}

/** One point of the time-against-size curve. */
export interface PlanPoint {
  bytes: number;
  networkSeconds: number;
  shipSeconds: number;
}

export interface PlanResult {
  /** Which arrives first: 'network' when both take equally long. */
  choice: 'ship' | 'network';
  networkSeconds: number;
  shipSeconds: number;
  /** One sentence: "Ship drives: 10 TB arrives in 1.6 days by courier against 9.3 days over the network." */
  recommendation: string;
  inputs: PlanInputs;
  /** Where the drive speed came from: --drive-speed, this home's recent packs, or the default. */
  driveSpeedSource: 'given' | 'measured' | 'default';
  /** How many recent packs the measured speed is the median of (0 unless measured). */
  measuredPacks: number;
  /** One stream's throughput, bytes per second: B / (1 + R·B/D). */
  streamBytesPerSecond: number;
  /** All streams together, capped by the link, bytes per second. */
  networkBytesPerSecond: number;
  /** 'window' when the streams' windows hold the rate below the link, else 'link'. */
  bound: 'window' | 'link';
  /** Writing the drives (in parallel), the courier, reading them (in parallel). */
  writeSeconds: number;
  courierSeconds: number;
  readSeconds: number;
  /**
   * The size at which both take equally long: below it the network wins,
   * above it the drives. Null when one of them wins at every size.
   */
  crossoverBytes: number | null;
  /** Drives plus courier, when either price was given; else null. */
  shipCost: number | null;
  /** Network price for this size, when a price per TB was given; else null. */
  networkCost: number | null;
  /** Both times over log-spaced sizes around `bytes` (and the cross-over), smallest first. */
  curve: PlanPoint[];
}
