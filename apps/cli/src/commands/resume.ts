/** `brickpost resume`: finish an interrupted ingest or rollback of a destination. */
import type { CommandRun } from '../context.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';
import { s3Option } from '../apply-options.js';

/** Finishes what was interrupted and says what DEST holds now. */
export const run: CommandRun = async (ctx, inv) => {
  const dest = inv.positionals[0]!;
  const { result: s } = await runJob(ctx, (sink) => withEngine(ctx, (engine) => engine.resume(dest, sink, s3Option(inv).s3)));
  await printSummary(ctx, 'resume', s, () => [
    `${s.finished ? `finished ${s.finished}` : 'nothing was interrupted'}; ${s.dest} holds ${s.current ? `shipment #${s.current.seq} ${s.current.shipmentId}` : 'nothing'}`,
  ]);
  return 0;
};
