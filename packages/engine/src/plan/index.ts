/**
 * The planner: ship drives, or send over the network?
 *
 * - network time: size over the throughput of `streams` TCP streams, each
 *   held by its window per round trip and by the link (whichever binds is the
 *   `bound`), all together never above the link.
 * - ship time: write the drives (in parallel), the courier, read them (in
 *   parallel).
 * - cross-over: the size at which both take equally long.
 * - measured drive speed: the per-drive write rate of this home's recent
 *   packs, recorded in the catalog, the default when none is given.
 *
 * plan.ts and units.ts are pure (no Node imports); drive-rates.ts reads and
 * writes the catalog.
 */
export { computePlan, crossover, networkRate, PLAN_DEFAULTS, type MeasuredSpeed } from './plan.js';
export { humanBitRate, humanByteRate, humanDuration, humanSize, parseAmount, parseBitRate, parseByteRate, parseDuration, parseSize } from './units.js';
export { driveRates, measuredDriveSpeed, MIN_MEASURED_BYTES, recordDriveRate, RECENT_PACKS } from './drive-rates.js';
