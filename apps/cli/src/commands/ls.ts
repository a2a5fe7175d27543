/** `brickpost ls`: list the entries of a shipment, streaming. */
import { BrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { entryLine } from '../format.js';
import { withEngine } from '../session.js';

/**
 * Prints one line (or one NDJSON object) per entry as the engine yields
 * them, so memory stays bounded whatever the listing's size. Stops quietly
 * when stdout's reader goes away; throws CANCELLED on Ctrl-C.
 */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const shipment = str(inv, 'shipment');
  await withEngine(ctx, async (engine) => {
    for await (const e of engine.list(shipment !== undefined ? { drive, shipment } : { drive })) {
      if (ctx.out.closed) break;
      if (ctx.signal.aborted) throw new BrickpostError('CANCELLED', 'listing interrupted');
      await (ctx.json ? ctx.out.ndjson(e) : ctx.out.line(entryLine(e)));
    }
  });
  return 0;
};
