/**
 * The engine's API contract, `@brickpost/engine/api`: what the CLI, the
 * desktop host and the desktop renderer share.
 *
 * - One file per area, types only: events (of long jobs: progress,
 *   warning, summary, error), keys, pack, ingest (and rollback), extract
 *   (and listing), verify, plan, dest (a destination's state), receipt
 *   (and signature files), report (and labels), custody, recover.
 * - The pure words every front end speaks, re-exported from where they
 *   live: the error type and codes, units and their text, the wording of
 *   creation times and of interrupted jobs, the report's JSON Schema. None
 *   imports Node or an implementation, so the renderer can load this.
 *
 * Implementations are behind their own subpaths: `@brickpost/engine/plan`
 * (computePlan), `@brickpost/engine/report-html` (renderReportHtml,
 * renderLabelsHtml), `@brickpost/engine` (Engine).
 */
export type * from './events.js';
export type * from './keys.js';
export type * from './pack.js';
export type * from './ingest.js';
export type * from './extract.js';
export type * from './verify.js';
export type * from './plan.js';
export type * from './dest.js';
export type * from './receipt.js';
export type * from './report.js';
export type * from './custody.js';
export type * from './recover.js';
export type * from './undo.js';
export type * from './subscribers.js';
export type * from './s3.js';
export type * from './rebuild.js';

export { BrickpostError, EXIT_CODES, ERROR_CODES, isBrickpostError, quote } from '@brickpost/manifest/errors';
export type { ErrorCode, Category } from '@brickpost/manifest/errors';
export { bugBehind, isSystemError, toEnvironmentError } from '../io/errors.js';
export type { EnvironmentOptions, Place } from '../io/errors.js';
export { sqliteErrorCode } from '../io/sqlite-codes.js';
export { humanBitRate, humanByteRate, humanDuration, humanSize, parseAmount, parseBitRate, parseByteRate, parseDuration, parseSize } from '../plan/units.js';
export { CLOCK_SKEW_MS, describeCreated } from '../verify/created.js';
export { inProgressLines } from '../ingest/in-progress.js';
export { REPORT_SCHEMA } from '../report/schema.js';
export { parseMaxLag } from '../plan/max-lag.js';
