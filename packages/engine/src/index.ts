/**
 * `@brickpost/engine`: every brickpost operation, for both front ends.
 *
 * Folders, in the order data flows: scan/ (read a source tree), chunk/
 * (content-defined chunks, keyed ids, compression on worker threads), pack/
 * (write packs and the manifest), drive/ (shipment folders: layout, sealing,
 * opening), verify/ (fixity, deep verification, listing), ingest/ (staging,
 * journaled commit, destination state), catalog/ (SQLite), keys/ (identity
 * and trust store).
 */
export * from './api/index.js';
export { computePlan, PLAN_DEFAULTS } from './plan/plan.js';
export { Engine, defaultHome } from './engine.js';
export { tuneProcess } from './io/process-memory.js';
export { worstProblem } from './verify/worst-problem.js';
export { findBrowser, printPdf } from './report/pdf.js';
