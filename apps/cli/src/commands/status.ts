/** `brickpost status`: what a destination holds and whether a job on it is under way or interrupted. */
import type { DestStatus } from '@brickpost/engine/api';
import { EXIT_CODES, inProgressLines } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { printable } from '../format.js';
import { withEngine } from '../session.js';
import { s3Option } from '../apply-options.js';

/** Prints the status; exit 0 when DEST is settled, 7 (busy) while a job is under way or interrupted. */
export const run: CommandRun = async (ctx, inv) => {
  const s = await withEngine(ctx, (engine) => engine.status(inv.positionals[0]!, s3Option(inv).s3), { create: false });
  if (ctx.json) await ctx.out.document(s);
  else for (const line of describeStatus(s)) await ctx.out.line(line);
  return s.inProgress ? EXIT_CODES.busy : EXIT_CODES.ok;
};

/** The status as lines for people. */
export function describeStatus(s: DestStatus): string[] {
  const out: string[] = [];
  if (!s.brickpost) out.push(`${s.dest}: nothing was ingested into it`);
  else {
    out.push(`${s.dest}: dataset ${printable(s.dataset ?? '')} (${s.datasetId}) from publisher key ${s.publisherKeyId}`);
    const c = s.current!;
    out.push(
      `holds shipment #${c.seq} ${c.shipmentId}${c.label ? ` ${printable(c.label)}` : ''}, applied ${c.appliedAt.slice(0, 19).replace('T', ' ')} (${s.shipments} applied in all)`,
    );
  }
  if (s.lock)
    out.push(
      `in use by brickpost process ${s.lock.pid}${s.lock.command ? ` (brickpost ${s.lock.command})` : ''}${s.lock.since ? ` since ${s.lock.since.slice(0, 19).replace('T', ' ')}` : ''}`,
    );
  if (s.inProgress) out.push(...inProgressLines(s.inProgress, s.dest));
  else if (s.brickpost) out.push('settled: every entry is as the shipment above left it');
  return out;
}
