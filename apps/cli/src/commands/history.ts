/** `brickpost history`: the shipments applied to a destination. */
import type { CommandRun } from '../context.js';
import { inProgressLines } from '@brickpost/engine/api';
import { formatBytes, plural, printable } from '../format.js';
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
      `#${String(s.seq).padEnd(4)} ${s.shipmentId}  ${s.appliedAt.slice(0, 19).replace('T', ' ')}  ${String(s.files).padStart(8)} files  ${formatBytes(s.bytes).padStart(10)}${drive}  ${s.undoable ? 'undoable' : '        '}  ${s.kept ? 'kept' : '    '}  ${formatBytes(s.undoBytes).padStart(10)} undo${s.pins.length ? `  pinned ${s.pins.map((p) => printable(p)).join(', ')}` : ''}${s.label ? `  ${printable(s.label)}` : ''}`,
    );
  }
  const rule = h.keepAll ? 'every shipment' : `the last ${h.keepUndo}${h.keepDays !== null ? ` and the last ${h.keepDays} days` : ''}`;
  await ctx.out.line(
    `undo data: ${formatBytes(h.undoBytes)} on disk; keeps ${rule}${h.pins.length ? ` and after ${h.pins.length} pin${h.pins.length > 1 ? 's' : ''}` : ''}`,
  );
  const seen = h.newestSeen;
  if (seen && seen.behind > 0)
    await ctx.out.line(
      `${plural(seen.behind, 'shipment')} behind the newest seen (seq ${seen.newestSeq}, seen ${seen.seenAt.slice(0, 10)}): ${seen.newestShipment}`,
    );
  else if (seen) await ctx.out.line(`up to date with the newest shipment seen (seq ${seen.newestSeq}, seen ${seen.seenAt.slice(0, 10)})`);
  if (h.inProgress) for (const line of inProgressLines(h.inProgress, h.dest)) ctx.out.warn(line);
  return 0;
};
