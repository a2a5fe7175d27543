/**
 * Entry point of the measuring thread (measureAside): measures one source
 * tree and posts its totals, or its error. Not imported by anything else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../chunk/messages.js';
import { compileExcludes } from './exclude.js';
import { measure, type MeasureInit, type MeasureReply } from './measure.js';

const init = workerData as MeasureInit;
const port = parentPort!;
const exclude = init.patterns.length > 0 ? compileExcludes(init.patterns) : undefined;
measure(init.root, { exclude, excludeCaches: init.excludeCaches }).then(
  (totals) => port.postMessage({ ok: true, totals } satisfies MeasureReply),
  (e: unknown) => port.postMessage({ ok: false, error: serializeError(e) } satisfies MeasureReply),
);
