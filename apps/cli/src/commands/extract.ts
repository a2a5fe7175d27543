/** `brickpost extract`: take files or folders off a drive into a folder. */
import { BrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { list, str } from '../context.js';
import { formatBytes, formatCount, plural } from '../format.js';
import { applyOptions, expansionOption, s3Option } from '../apply-options.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/** Extracts and prints what was written. Throws what the engine throws. */
export const run: CommandRun = async (ctx, inv) => {
  const [drive, ...paths] = inv.positionals as [string, ...string[]];
  const at = str(inv, 'at');
  if (at !== undefined) return runAt(ctx, inv, drive, paths, at);
  const shipment = str(inv, 'shipment');
  const opts = {
    drive,
    drives: list(inv, 'drive'),
    paths,
    to: str(inv, 'to')!,
    ...(shipment !== undefined ? { shipment } : {}),
    ...applyOptions(inv),
    ...expansionOption(inv),
    ...s3Option(inv),
  };
  const { result: s } = await runJob(ctx, (sink, signal) => withEngine(ctx, (engine) => engine.extract(opts, sink, signal)));
  await printSummary(ctx, 'extract', s, () => [
    `extracted ${plural(s.files, 'file')} (${formatBytes(s.bytesWritten)}), ${plural(s.dirs, 'folder')}, ${plural(s.links, 'symbolic link')}, ${plural(s.hardLinks, 'hard link')} from shipment ${s.shipmentId} into ${s.to}`,
  ]);
  const notApplied = Object.entries(s.notApplied);
  if (!ctx.json && notApplied.length > 0) ctx.out.info(`recorded but not applied: ${notApplied.map(([why, n]) => `${formatCount(n)} ${why}`).join('; ')}`);
  return 0;
};

/** `extract --at SEQ DEST PATH…`: files as they were after shipment SEQ, from DEST's history. */
const runAt = async (ctx: Parameters<CommandRun>[0], inv: Parameters<CommandRun>[1], dest: string, paths: string[], at: string): Promise<number> => {
  if (paths.length === 0) throw new BrickpostError('USAGE', 'extract --at needs at least one PATH (a file of the destination)');
  const opts = { dest, at, paths, to: str(inv, 'to')! };
  const { result: s } = await runJob(ctx, (sink) => withEngine(ctx, (engine) => engine.extractAt(opts, sink)));
  await printSummary(ctx, 'extract', s, () =>
    s.files.map(
      (f) => `${f.path}: ${formatBytes(f.bytes)} as after #${s.at.seq} (${f.from === 'current' ? 'unchanged since' : 'from the undo data'}) into ${s.to}`,
    ),
  );
  return 0;
};
