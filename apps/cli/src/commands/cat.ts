/** `brickpost cat`: write one file of a shipment to standard output. */
import type { CommandRun } from '../context.js';
import { list, str } from '../context.js';
import { expansionOption } from '../apply-options.js';
import { withEngine } from '../session.js';

/**
 * Streams the file's bytes to stdout as they are read and checked. Stops
 * quietly when stdout's reader goes away. Throws what the engine throws.
 */
export const run: CommandRun = async (ctx, inv) => {
  const [drive, path] = inv.positionals as [string, string];
  const shipment = str(inv, 'shipment');
  await withEngine(ctx, (engine) =>
    engine.cat(
      { drive, path, drives: list(inv, 'drive'), ...(shipment !== undefined ? { shipment } : {}), ...expansionOption(inv) },
      (b) => ctx.out.bytes(b),
      (ev) => (ev.type === 'warning' ? ctx.out.warn(ev.message, ev.path) : undefined),
      ctx.signal,
    ),
  );
  return 0;
};
