/**
 * `brickpost catalog recover` and `brickpost journal recover DEST`: set a
 * damaged database aside, keep what can still be read, rebuild what can be
 * rebuilt, and say what was kept, rebuilt and lost.
 */
import { Engine } from '@brickpost/engine';
import type { RecoverSummary } from '@brickpost/engine/api';
import type { CommandRun, Context } from '../context.js';
import { flag, list, str } from '../context.js';
import { formatCount, printable } from '../format.js';

/** Dispatches on the subcommand; exits 0 when the database was intact or is recovered. */
export const run: CommandRun = async (ctx, inv) => {
  const force = flag(inv, 'force');
  let s: RecoverSummary;
  if (ctx.command === 'journal recover') {
    s = await Engine.recoverJournal(inv.positionals[0]!, { force });
  } else {
    const name = str(inv, 'name');
    s = await Engine.recoverCatalog({
      ...(ctx.home !== undefined ? { home: ctx.home } : {}),
      dests: list(inv, 'dest'),
      drives: list(inv, 'drive'),
      ...(name !== undefined ? { name } : {}),
      force,
    });
  }
  if (ctx.json) {
    await ctx.out.document(s);
    return 0;
  }
  await print(ctx, s);
  return 0;
};

async function print(ctx: Context, s: RecoverSummary): Promise<void> {
  if (s.intact) {
    await ctx.out.line(`${printable(s.file)} is intact: nothing was set aside${s.rebuilt.length + s.lost.length === 0 ? ' or changed' : ''}`);
  } else {
    const companions = s.setAside.length - 1;
    await ctx.out.line(
      `recovered ${printable(s.file)}; the damaged file is kept as ${printable(s.setAside[0] ?? '')}${companions > 0 ? ` (with its ${companions === 1 ? 'companion file' : `${companions} companion files`})` : ''}`,
    );
    const kept = s.kept.filter((t) => t.kept > 0);
    await ctx.out.line(`kept: ${kept.length === 0 ? 'nothing could be read' : kept.map((t) => `${formatCount(t.kept)} ${t.table}`).join(', ')}`);
  }
  if (s.pending !== undefined && s.pending !== null && s.pending !== 'unknown')
    await ctx.out.line(`in progress: the ${s.pending.kind === 'apply' ? 'commit' : 'rollback'} of shipment ${s.pending.shipmentId}`);
  // The engine quotes every value it took from a file or a drive in these (quote()): printed as they are.
  for (const r of s.rebuilt) await ctx.out.line(`rebuilt: ${r.what}, from ${r.from}`);
  for (const l of s.lost) await ctx.out.line(`lost: ${l.what}: ${l.meaning}`);
  if (!s.intact && s.lost.length === 0) await ctx.out.line('lost: nothing');
}
