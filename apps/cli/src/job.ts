/**
 * Long jobs (pack, verify, ingest): route the engine's events to the user,
 * as a status line and `brickpost: warning:` lines on a terminal, or as
 * NDJSON events on stdout with --json; then print the summary.
 */
import type { EventSink, JobEvent, SummaryEvent } from '@brickpost/engine/api';
import type { Context } from './context.js';
import { ProgressLine } from './progress.js';

/** What a job reports besides its result. */
export interface JobStats {
  warnings: number;
}

/**
 * Runs `start` with an event sink suited to the output mode and the
 * context's abort signal. Rethrows what `start` throws, after erasing the
 * status line.
 */
export async function runJob<T>(ctx: Context, start: (sink: EventSink, signal: AbortSignal) => Promise<T>): Promise<{ result: T; stats: JobStats }> {
  const stats: JobStats = { warnings: 0 };
  const progress = new ProgressLine(ctx.out);
  const sink: EventSink = (ev: JobEvent) => {
    if (ev.type === 'warning') stats.warnings++;
    if (ctx.json) {
      // Events are few (a handful a second); stdout buffers them in order.
      void ctx.out.event(ev);
    } else if (ev.type === 'progress') {
      progress.update(ev);
    } else {
      ctx.out.warn(ev.message, ev.path);
    }
  };
  try {
    const result = await start(sink, ctx.signal);
    return { result, stats };
  } finally {
    progress.done();
  }
}

/**
 * Prints a job's result: the `summary` event with --json, else the given
 * human lines on stdout.
 */
export async function printSummary(ctx: Context, command: string, result: object, human: () => string[]): Promise<void> {
  if (ctx.json) {
    const summary: SummaryEvent = { type: 'summary', command, result };
    await ctx.out.event(summary);
    return;
  }
  for (const line of human()) await ctx.out.line(line);
}
