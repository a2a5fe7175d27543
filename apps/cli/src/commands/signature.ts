/** `brickpost signature`: describe what a folder holds, for the publisher. */
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { averageRate, formatBytes, formatCount, formatRate, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/** Writes the signature file and its .minisig and prints the summary. Throws what the engine throws. */
export const run: CommandRun = async (ctx, inv) => {
  const dest = inv.positionals[0]!;
  const out = str(inv, 'out')!;
  const dataset = str(inv, 'dataset');
  const { result: s } = await runJob(ctx, (sink, signal) =>
    withEngine(ctx, (engine) => engine.signature({ dest, out, ...(dataset !== undefined ? { dataset } : {}) }, sink, signal)),
  );
  await printSummary(ctx, 'signature', s, () => [
    `wrote signature ${s.out} of ${plural(s.files, 'file')} (${formatBytes(s.bytes)}, ${formatCount(s.chunks)} chunks): ` +
      `${formatBytes(s.fileSize)}, ${formatRate(averageRate(s.bytes, s.seconds))}`,
  ]);
  if (!ctx.json) {
    const what =
      s.dataset !== null ? `dataset ${printable(s.dataset)}${s.state ? ` at shipment #${s.state.seq} (${s.state.shipment})` : ''}` : 'no dataset named';
    ctx.out.info(`${what}; sha256 ${s.sha256}; signed in ${s.out}.minisig`);
    if (s.warnings > 0) ctx.out.warn(`${plural(s.warnings, 'warning')} while scanning; see above`);
  }
  return 0;
};
