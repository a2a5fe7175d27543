/** `brickpost pack`: write a shipment of a source folder onto a drive. */
import type { CommandRun } from '../context.js';
import { averageRate, formatBytes, formatCount, formatRate, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { packOptions } from '../pack-options.js';
import { withEngine } from '../session.js';

/** Packs and prints the summary. Throws what the engine throws; USAGE for bad options. */
export const run: CommandRun = async (ctx, inv) => {
  const opts = await packOptions(inv);
  const { result: s } = await runJob(ctx, (sink, signal) => withEngine(ctx, (engine) => engine.pack(opts, sink, signal)));
  await printSummary(ctx, 'pack', s, () => [
    `packed ${plural(s.files, 'file')} (${formatBytes(s.bytesIn)}) into shipment ${s.shipmentId}: ` +
      `${formatBytes(s.bytesOnDrive)} on drive, ${formatRate(averageRate(s.bytesIn, s.seconds))}`,
  ]);
  if (!ctx.json) {
    ctx.out.info(`dataset ${printable(s.dataset)} shipment #${s.seq}${s.parent !== null ? ` after ${s.parent}` : ' (base)'} written to ${s.path}`);
    ctx.out.info(
      `${formatCount(s.chunks)} chunks (${formatCount(s.chunksDeduplicated)} deduplicated) in ${plural(s.packs, 'pack')}, ` +
        `encrypted to ${plural(s.recipients.length, 'recipient')}`,
    );
    if (s.warnings > 0) ctx.out.warn(`${plural(s.warnings, 'warning')} while packing; see above`);
  }
  return 0;
};
