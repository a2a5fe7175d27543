/**
 * `@brickpost/engine/report-html`: the standalone HTML of a verification
 * report and of a set's drive labels. Pure (no Node imports): the CLI and
 * the desktop host render with it without loading the engine.
 */
export { renderReportHtml } from './report/html.js';
export { renderLabelsHtml } from './report/label-html.js';
