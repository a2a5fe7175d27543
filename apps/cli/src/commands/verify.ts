/** `brickpost verify`: check a shipment on a drive and report every problem. */
import type { CommandRun } from '../context.js';
import { flag, list, str } from '../context.js';
import { printSummary, runJob } from '../job.js';
import { reportFailure, reportLines } from '../report.js';
import { withEngine } from '../session.js';

/**
 * Verifies and prints the report. Exits 0 only when the report is ok, else
 * with the exit code of the most serious problem (authenticity 3 > unsafe 4
 * > integrity 1); --json then ends with an error event after the summary.
 * Throws what the engine throws when it cannot start.
 */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const shipment = str(inv, 'shipment');
  const { result: r } = await runJob(ctx, (sink, signal) =>
    withEngine(ctx, (engine) =>
      engine.verify({ drive, deep: flag(inv, 'deep'), drives: list(inv, 'drive'), ...(shipment !== undefined ? { shipment } : {}) }, sink, signal),
    ),
  );
  await printSummary(ctx, 'verify', r, () => reportLines(r));
  const failure = reportFailure(r, drive);
  if (failure === undefined) return 0;
  await ctx.out.failure(failure);
  return failure.exitCode;
};
