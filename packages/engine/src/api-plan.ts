/**
 * The engine API's types for the planner: ship drives, or send over the
 * network? Re-exported by api.ts. (Refined by the planner's implementation.)
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
  /** Write and read speed of one drive, bytes per second (default 200 MB/s). */
  driveBytesPerSecond?: number;
  /** Drives written and read in parallel (default 1). */
  drives?: number;
  /** Door-to-door courier time, seconds (default 24 h). */
  courierSeconds?: number;
}

export interface PlanResult {
  networkSeconds: number;
  shipSeconds: number;
  /** One sentence. */
  recommendation: string;
}
