/**
 * Verification reports and drive labels (`brickpost report`, `brickpost label`).
 *
 * - report: a ShipmentReport, `brickpost-report/v1` (REPORT_SCHEMA), of a
 *   drive (the shipment on it, checked as verify checks it, keyless or
 *   deep, and every drive of its set that is found) or of a destination
 *   (its current shipment, the ones applied before, and the check receipt
 *   makes of it). It carries a verdict in plain words, the problems with
 *   their paths, timings and rates, and the custody log.
 * - verdict: what the report means, decided by its most serious problem:
 *   "Genuine and intact", "Damaged", "Untrusted publisher"…
 * - HTML: one standalone document of a report (renderReportHtml) or of a
 *   set's labels (renderLabelsHtml): inline style, no script, nothing
 *   loaded from anywhere; every value from a drive escaped.
 * - PDF: the same HTML printed by a headless Chromium (printPdf).
 * - label: what goes on a drive's sticker: "drive i of N", dataset, label,
 *   shipment id, publisher key id, date, and a QR code of the shipment id.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import { BrickpostError, quote } from '@brickpost/manifest';
import { driveRoot, isBagFolder } from '../drive/layout.js';
import type { EventSink, ReportOptions, ShipmentReport } from '../api/index.js';
import type { Context } from '../context.js';
import { STATE_DIR } from '../ingest/state.js';
import { destReport } from './dest.js';
import { driveReport } from './drive.js';

export { renderReportHtml } from './html.js';
export { renderLabelsHtml } from './label-html.js';
export { driveLabels, qrSvg } from './label.js';
export { findBrowser, printPdf } from './pdf.js';
export { REPORT_SCHEMA } from './schema.js';
export { REPORT_LIMITS, verdictOf } from './verdict.js';

/**
 * The report of `opts.target`: a destination when it holds brickpost
 * state (DEST/.brickpost/state.json), else a drive.
 * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, NO_IDENTITY, LOCKED, NO_MATCHING_KEY (a destination's kept manifest), CANCELLED
 */
export async function buildReport(ctx: Context, opts: ReportOptions, onEvent: EventSink, signal?: AbortSignal): Promise<ShipmentReport> {
  if (existsSync(join(opts.target, STATE_DIR, 'state.json'))) return destReport(ctx, opts, onEvent, signal);
  // Neither a drive nor a destination: say that both are accepted.
  if ((await stat(opts.target).catch(() => null))?.isDirectory() && !(await isBagFolder(opts.target)) && !(await driveRoot(opts.target))) {
    throw new BrickpostError(
      'NOT_A_DRIVE',
      `${quote(opts.target)} is neither a brickpost drive (no brickpost/ folder) nor a destination (no .brickpost/state.json)`,
      {
        hint: 'give the folder a drive is mounted at, or a folder you ingested a shipment into',
      },
    );
  }
  return driveReport(ctx, opts, onEvent, signal);
}
