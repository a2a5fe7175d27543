/** `brickpost rollback`: return a destination to the tree of an earlier shipment. */
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { plural } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';
import { s3Option } from '../apply-options.js';

/** Rolls back and prints what was undone. */
export const run: CommandRun = async (ctx, inv) => {
  const dest = inv.positionals[0]!;
  const to = str(inv, 'to')!;
  const { result: s } = await runJob(ctx, (sink) => withEngine(ctx, (engine) => engine.rollback({ dest, to, ...s3Option(inv) }, sink)));
  await printSummary(ctx, 'rollback', s, () =>
    s.undone.length === 0
      ? [`${s.dest} is already at seq ${s.to.seq} (${s.to.shipmentId}); nothing to do`]
      : [
          `rolled ${s.dest} back from seq ${s.from.seq} to seq ${s.to.seq} (${s.to.shipmentId}), undoing ${plural(s.undone.length, 'shipment')}: ${s.undone.map((u) => u.seq).join(', ')}`,
        ],
  );
  return 0;
};
