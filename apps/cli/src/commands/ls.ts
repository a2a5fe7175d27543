/** `brickpost ls`: list the entries of a shipment, streaming. */
import { BrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { commandLine, entryLine, longLine } from '../format.js';
import { withEngine } from '../session.js';

/**
 * Prints one line (or one NDJSON object) per entry as the engine yields
 * them, so memory stays bounded whatever the listing's size. Stops quietly
 * when stdout's reader goes away; throws CANCELLED on Ctrl-C.
 */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const named = str(inv, 'shipment');
  const long = flag(inv, 'long');
  await withEngine(ctx, async (engine) => {
    let shipment = named;
    if (shipment === undefined) {
      const all = await engine.shipments(drive);
      if (all.length > 1) {
        const newest = all[all.length - 1]!;
        shipment = newest.id;
        ctx.out.info(
          `${drive} holds ${all.length} shipments; listing the newest, ${newest.seq !== null ? `#${newest.seq} ` : ''}${newest.id} (${commandLine([...ctx.argv, '--shipment', all[0]!.id])} lists the oldest)`,
        );
      }
    }
    for await (const e of engine.list(shipment !== undefined ? { drive, shipment } : { drive })) {
      if (ctx.out.closed) break;
      if (ctx.signal.aborted) throw new BrickpostError('CANCELLED', 'listing interrupted');
      await (ctx.json ? ctx.out.entry(e) : ctx.out.line(long ? longLine(e) : entryLine(e)));
    }
  });
  return 0;
};
