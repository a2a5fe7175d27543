/**
 * Job streams of the UI server: a job started by POST /api/job runs at once;
 * its events are kept (the last few hundred) until a client reads them as
 * Server-Sent Events from GET /api/job/ID/events, so a client that connects
 * late misses nothing but superseded progress. The stream ends with one
 * `result` or `error` event; a finished job is forgotten a minute later.
 */
import type { ServerResponse } from 'node:http';
import type { JobEvent } from '@brickpost/engine/api';
import type { JobListener } from '../shared/api.js';
import type { JobMethod, WireError } from '../shared/methods.js';
import { toWireError } from '../host/errors.js';
import type { HostPort } from '../host/host.js';

/** One SSE message: its event name and JSON data (a job's event, its result, or its error). */
type Message = { event: JobEvent['type']; data: JobEvent } | { event: 'result'; data: unknown } | { event: 'error'; data: WireError };

const KEEP_EVENTS = 300;
const FORGET_AFTER_MS = 60_000;

function format(m: Message): string {
  return `event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;
}

class JobStream {
  readonly kept: Message[] = [];
  final: Message | null = null;
  readonly readers = new Set<ServerResponse>();

  push(m: Message): void {
    this.kept.push(m);
    if (this.kept.length > KEEP_EVENTS) this.kept.shift();
    for (const r of this.readers) r.write(format(m));
  }

  finish(m: Message): void {
    this.final = m;
    for (const r of this.readers) r.end(format(m));
    this.readers.clear();
  }
}

/** The jobs of one server. */
export class ServerJobs {
  private readonly jobs = new Map<string, JobStream>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly host: HostPort) {}

  /** True when a job of this id is known (running, or finished less than a minute ago). */
  has(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** Starts a job; its outcome goes to its stream. */
  start(jobId: string, method: JobMethod, args: unknown[]): void {
    const stream = new JobStream();
    this.jobs.set(jobId, stream);
    const onEvent: JobListener = (ev) => stream.push({ event: ev.type, data: ev });
    this.host
      .job(jobId, method, args, onEvent)
      .then(
        (value) => stream.finish({ event: 'result', data: value === undefined ? null : value }),
        (e: unknown) => stream.finish({ event: 'error', data: toWireError(e) }),
      )
      .finally(() => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (this.jobs.get(jobId) === stream) this.jobs.delete(jobId);
        }, FORGET_AFTER_MS);
        t.unref();
        this.timers.add(t);
      });
  }

  /** Streams a job's events to `res` as SSE; false when the job is unknown. */
  attach(jobId: string, res: ServerResponse): boolean {
    const stream = this.jobs.get(jobId);
    if (!stream) return false;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(': brickpost job events\n\n');
    for (const m of stream.kept) res.write(format(m));
    if (stream.final) {
      res.end(format(stream.final));
      return true;
    }
    stream.readers.add(res);
    res.on('close', () => stream.readers.delete(res));
    return true;
  }

  /** Ends every open event stream (the server is closing). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.jobs.values()) for (const r of s.readers) r.end();
    this.jobs.clear();
  }
}
