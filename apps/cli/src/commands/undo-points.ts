/** `brickpost pin`, `unpin`, `prune`: a destination's named points and undo data. */
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { formatBytes, plural, printable } from '../format.js';
import { retentionOptions } from '../retention-options.js';
import { withEngine } from '../session.js';

/** Runs pin, unpin or prune and prints what DEST keeps. */
export const run: CommandRun = async (ctx, inv) => {
  const dest = inv.positionals[0]!;
  if (ctx.command === 'prune') {
    const before = str(inv, 'before');
    const opts = { dest, ...retentionOptions(inv), ...(before !== undefined ? { before: /^[0-9]{1,12}$/.test(before) ? Number(before) : NaN } : {}) };
    const s = await withEngine(ctx, (engine) => engine.prune(opts), { create: false });
    if (ctx.json) {
      await ctx.out.document(s);
      return 0;
    }
    const r = s.retention;
    await ctx.out.line(
      `${s.dest} keeps the undo data of ${r.keepAll ? 'every shipment' : `the last ${r.keepUndo} shipments`}${r.keepDays !== null ? ` and of those applied in the last ${r.keepDays} days` : ''}${s.pins.length ? `, and after ${plural(s.pins.length, 'pin')}` : ''}`,
    );
    await ctx.out.line(
      s.removed.length
        ? `removed the undo data of ${s.removed.map((x) => `#${x.seq}`).join(', ')}: ${formatBytes(s.freedBytes)} freed; ${formatBytes(s.undoBytes)} of undo data left`
        : `nothing to remove; ${formatBytes(s.undoBytes)} of undo data`,
    );
    return 0;
  }
  const s = await withEngine(
    ctx,
    (engine) =>
      ctx.command === 'pin' ? engine.pin({ dest, shipment: inv.positionals[1]!, name: str(inv, 'name')! }) : engine.unpin({ dest, pin: inv.positionals[1]! }),
    { create: false },
  );
  if (ctx.json) {
    await ctx.out.document(s);
    return 0;
  }
  for (const p of s.pins)
    await ctx.out.line(`#${String(p.seq).padEnd(4)} ${p.shipmentId}  pinned as ${printable(p.name)} (${p.at.slice(0, 19).replace('T', ' ')})`);
  if (s.pins.length === 0) await ctx.out.line(`${dest} has no pins`);
  if (s.freedBytes > 0) ctx.out.info(`${formatBytes(s.freedBytes)} of undo data freed`);
  return 0;
};
