/** `brickpost history`: the shipments applied to a destination. */
import type { CommandRun } from '../context.js';
import { inProgressLines } from '@brickpost/engine/api';
import { formatBytes, printable } from '../format.js';
import { withEngine } from '../session.js';
import { s3Option } from '../apply-options.js';

/** Prints one line per applied shipment, oldest first; --json prints the whole history. */
export const run: CommandRun = async (ctx, inv) => {
  const h = await withEngine(ctx, (engine) => engine.history(inv.positionals[0]!, s3Option(inv).s3), { create: false });
  if (ctx.json) {
    await ctx.out.document(h);
    return 0;
  }
  await ctx.out.line(`dataset ${printable(h.dataset)} (${h.datasetId}) from publisher key ${h.publisherKeyId}`);
  for (const s of h.shipments) {
    const drive = s.bytesFromDrive === null ? '' : `  ${formatBytes(s.bytesFromDrive).padStart(10)} from drive`;
    await ctx.out.line(
      `#${String(s.seq).padEnd(4)} ${s.shipmentId}  ${s.appliedAt.slice(0, 19).replace('T', ' ')}  ${String(s.files).padStart(8)} files  ${formatBytes(s.bytes).padStart(10)}${drive}  ${s.undoable ? 'undoable' : '        '}${s.label ? `  ${printable(s.label)}` : ''}`,
    );
  }
  if (h.inProgress) for (const line of inProgressLines(h.inProgress, h.dest)) ctx.out.warn(line);
  return 0;
};
