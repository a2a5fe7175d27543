/**
 * The HTTP API of the UI server, the same DesktopApi as Electron's IPC:
 *   POST /api/call `{method, args}`        → 200 `{value}` | 4xx/5xx `{error}`
 *   POST /api/job `{jobId, method, args}`  → 202 `{jobId}` | 400 `{error}`
 *   GET  /api/job/ID/events              → Server-Sent Events: progress,
 *                                          warning, then result or error
 *   POST /api/job/ID/cancel                → 200 `{cancelled: true}`
 * `error` is a WireError (`{name, code, message, hint, exitCode, path}`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BrickpostError, quote } from '@brickpost/engine/api';
import { INTERNAL_EXIT_CODE, toWireError } from '../host/errors.js';
import type { HostPort } from '../host/host.js';
import { jobIdArg } from '../host/args.js';
import { isJobMethod, isQuickMethod } from '../shared/methods.js';
import type { ServerJobs } from './jobs.js';

/** Request bodies larger than this are refused. */
export const MAX_BODY_BYTES = 1 << 20;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) }).end(text);
}

function sendError(res: ServerResponse, e: unknown, status?: number): void {
  const error = toWireError(e);
  sendJson(res, status ?? (error.exitCode === INTERNAL_EXIT_CODE ? 500 : error.exitCode === 2 ? 400 : 422), { error });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new BrickpostError('USAGE', 'the request body must be JSON (content-type application/json)');
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BrickpostError('LIMIT_EXCEEDED', `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    parts.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new BrickpostError('USAGE', 'the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BrickpostError('USAGE', 'the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function argsOf(body: Record<string, unknown>): unknown[] {
  const a = body.args ?? [];
  if (!Array.isArray(a)) throw new BrickpostError('USAGE', 'args must be an array');
  return a;
}

/** Handles an /api/… request (already authorised). */
export async function handleApi(req: IncomingMessage, res: ServerResponse, path: string, host: HostPort, jobs: ServerJobs): Promise<void> {
  const jobRoute = /^\/api\/job\/([^/]+)\/(events|cancel)$/.exec(path);
  try {
    if (path === '/api/call' && req.method === 'POST') {
      const body = await readJson(req);
      if (!isQuickMethod(body.method)) throw new BrickpostError('USAGE', `unknown method ${quote(String(body.method))}`);
      let value: unknown;
      try {
        value = await host.call(body.method, argsOf(body));
      } catch (e) {
        return sendError(res, e);
      }
      return sendJson(res, 200, { value: value === undefined ? null : value });
    }
    if (path === '/api/job' && req.method === 'POST') {
      const body = await readJson(req);
      if (!isJobMethod(body.method)) throw new BrickpostError('USAGE', `unknown job method ${quote(String(body.method))}`);
      const jobId = jobIdArg(body.jobId);
      if (jobs.has(jobId)) throw new BrickpostError('USAGE', `job id ${quote(jobId)} is already in use`, { hint: 'use a new id for each job' });
      jobs.start(jobId, body.method, argsOf(body));
      return sendJson(res, 202, { jobId });
    }
    if (jobRoute && jobRoute[2] === 'events' && req.method === 'GET') {
      if (!jobs.attach(decodeURIComponent(jobRoute[1]!), res))
        return sendError(
          res,
          new BrickpostError('NOT_FOUND', `no job ${quote(jobRoute[1]!)}`, {
            hint: 'start the job first (POST /api/job); a finished job is kept for a minute',
          }),
          404,
        );
      return;
    }
    if (jobRoute && jobRoute[2] === 'cancel' && req.method === 'POST') {
      await host.cancel(decodeURIComponent(jobRoute[1]!));
      return sendJson(res, 200, { cancelled: true });
    }
    sendJson(res, 404, { error: toWireError(new BrickpostError('NOT_FOUND', `no api route ${quote(`${req.method} ${path}`)}`)) });
  } catch (e) {
    if (!res.headersSent) sendError(res, e, 400);
    else res.destroy();
  }
}
