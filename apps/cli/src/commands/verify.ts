/** `brickpost verify`: check a shipment on a drive and report every problem. */
import type { CommandRun } from '../context.js';
import { flag, list, str } from '../context.js';
import { mostSerious } from '../exit-codes.js';
import type { Failure } from '../failure.js';
import { printSummary, runJob } from '../job.js';
import { reportFailure, reportLines } from '../verify-report.js';
import { expansionOption } from '../apply-options.js';
import { withEngine } from '../session.js';

/**
 * Verifies and prints the report. A drive that holds several shipments has
 * each verified in turn, oldest first, unless --shipment names one (with
 * --json, one summary event each). Exits 0 only when every report is ok,
 * else with the exit code of the most serious problem (authenticity 3,
 * then unsafe 4, then integrity 1); --json then ends with an error event after the
 * summaries. Throws what the engine throws when it cannot start.
 */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const named = str(inv, 'shipment');
  const deep = flag(inv, 'deep');
  const drives = list(inv, 'drive');
  const ids = named !== undefined ? [named] : (await withEngine(ctx, (engine) => engine.shipments(drive), { create: false })).map((s) => s.id);
  const several = ids.length > 1;
  if (several && !ctx.json && !ctx.quiet) ctx.out.info(`${drive} holds ${ids.length} shipments; verifying each, oldest first (--shipment ID for one)`);
  const failures: Failure[] = [];
  for (const [i, id] of (ids.length > 0 ? ids : [undefined]).entries()) {
    const { result: r } = await runJob(ctx, (sink, signal) =>
      withEngine(
        ctx,
        (engine) => engine.verify({ drive, deep, drives, ...expansionOption(inv), ...(id !== undefined ? { shipment: id } : {}) }, sink, signal),
        { create: false },
      ),
    );
    if (several && !ctx.json && i > 0) await ctx.out.line('');
    await printSummary(ctx, 'verify', r, () => reportLines(r, ctx.home));
    const failure = reportFailure(r, drive, named !== undefined || several ? r.shipmentId : undefined);
    if (failure) failures.push(failure);
  }
  return finish(ctx, failures);
};

/** Prints the most serious failure (naming the shipments that failed) and returns its exit code; 0 when none. */
async function finish(ctx: Parameters<CommandRun>[0], failures: Failure[]): Promise<number> {
  if (failures.length === 0) return 0;
  const worst = mostSerious(failures.map((f) => f.code));
  const f = failures.find((x) => x.code === worst) ?? failures[0]!;
  await ctx.out.failure(failures.length > 1 ? { ...f, message: `${f.message} (${failures.length} of the shipments failed)` } : f);
  return f.exitCode;
}
