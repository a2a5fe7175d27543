/** `brickpost drive shipped|returned`: record where a drive of a shipment went. */
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { plural } from '../format.js';
import { withEngine } from '../session.js';

/** Records the step for the drives named; prints what was recorded. */
export const run: CommandRun = async (ctx, inv) => {
  const state = ctx.command === 'drive returned' ? 'returned' : 'shipped';
  const drive = str(inv, 'drive');
  const at = str(inv, 'at');
  const s = await withEngine(ctx, (engine) =>
    engine.markDrive({ state, target: inv.positionals[0]!, ...(drive !== undefined ? { drive } : {}), ...(at !== undefined ? { at } : {}) }),
  );
  if (ctx.json) {
    await ctx.out.document(s);
    return 0;
  }
  await ctx.out.line(`shipment ${s.shipment}: ${plural(s.drives.length, 'drive')} ${s.state} ${s.at.slice(0, 19).replace('T', ' ')} (${s.drives.join(', ')})`);
  if (s.eventsRecorded > 0) await ctx.out.line(`custody log read: ${plural(s.eventsRecorded, 'event')} recorded in this home's catalog`);
  return 0;
};
