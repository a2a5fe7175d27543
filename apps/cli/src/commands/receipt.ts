/** `brickpost receipt` and `brickpost receipt import`: what a destination holds, signed, for the publisher. */
import type { ReceiptSummary } from '@brickpost/engine/api';
import type { CommandRun, Context } from '../context.js';
import { flag, str } from '../context.js';
import { exitCodeOf, mostSerious } from '../exit-codes.js';
import { formatBytes, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/** Dispatches on the subcommand. Throws what the engine throws. */
export const run: CommandRun = async (ctx, inv) => {
  if (ctx.command === 'receipt import') return importReceipt(ctx, inv.positionals[0]!);
  const dest = inv.positionals[0]!;
  const out = str(inv, 'out')!;
  const { result: s } = await runJob(ctx, (sink, signal) => withEngine(ctx, (engine) => engine.receipt({ dest, out, deep: flag(inv, 'deep') }, sink, signal)));
  await printSummary(ctx, 'receipt', s, () => receiptLines(s));
  const v = s.receipt.verification;
  if (v.ok) return 0;
  const worst = mostSerious(v.problems.map((p) => p.code)) ?? 'FIXITY_MISMATCH';
  await ctx.out.failure({
    type: 'error',
    code: worst,
    exitCode: exitCodeOf(worst),
    message: `${printable(dest)} differs from shipment ${s.receipt.current.shipment}: ${plural(v.problems.length, 'problem')}${v.problems.length === 100 ? ' or more' : ''}; the receipt says so (ok: false)`,
    hint: 'ingest the next shipment into a fresh copy, or send the publisher a signature (brickpost signature) to build a repair shipment against',
  });
  return exitCodeOf(worst);
};

function receiptLines(s: ReceiptSummary): string[] {
  const r = s.receipt;
  const v = r.verification;
  const lines = [
    `wrote receipt ${s.out}: dataset ${printable(r.dataset)} at #${r.current.seq} (shipment ${r.current.shipment}), ` +
      `${v.level} check ${v.ok ? 'ok' : 'FAILED'}, ${plural(v.files, 'file')} (${formatBytes(v.bytes)})`,
  ];
  for (const p of v.problems) lines.push(`problem  ${p.code}  ${p.message}`);
  return lines;
}

async function importReceipt(ctx: Context, file: string): Promise<number> {
  const s = await withEngine(ctx, (engine) => engine.receiptImport(file));
  if (ctx.json) {
    await ctx.out.document(s);
    return 0;
  }
  const who = s.subscriber.name !== null ? printable(s.subscriber.name) : s.subscriber.keyId;
  const check = s.ok ? `verified ok (${s.level})` : `verification FAILED (${s.level}, ${plural(s.problems, 'problem')})`;
  await ctx.out.line(`${s.alreadyImported ? 'already recorded: ' : ''}subscriber ${who} holds dataset ${printable(s.dataset)} at seq ${s.seq}, ${check}`);
  if (s.recipientRecorded) ctx.out.info(`recorded the recipient of ${who} from the receipt: 'pack --recipient ${who}' encrypts to it`);
  return 0;
}
