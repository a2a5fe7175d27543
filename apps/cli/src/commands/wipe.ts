/** `brickpost wipe`: remove an ingested shipment from a drive, keeping its custody log. */
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { formatBytes, plural } from '../format.js';
import { withEngine } from '../session.js';

/** Removes the bag and records the wiped event; warnings (catalog-only event) go to stderr. */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const shipment = str(inv, 'shipment');
  const s = await withEngine(ctx, (engine) =>
    engine.wipe({ drive, ...(shipment ? { shipment } : {}), force: flag(inv, 'force') }, (ev) => {
      if (ev.type === 'warning') ctx.out.warn(ev.message, ev.path);
    }),
  );
  if (ctx.json) {
    await ctx.out.document(s);
    return 0;
  }
  await ctx.out.line(`wiped shipment ${s.shipmentId}: removed ${s.removed} (${plural(s.files, 'file')}, ${formatBytes(s.bytes)})`);
  if (s.log) await ctx.out.line(`custody log kept in ${s.log}${s.event ? ` (event ${s.event.n}: wiped)` : ''}`);
  return 0;
};
