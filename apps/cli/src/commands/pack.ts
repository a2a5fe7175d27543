/** `brickpost pack`: write a shipment of a source folder onto a drive. */
import type { PackSummary } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { averageRate, formatBytes, formatCount, formatRate, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { packOptions } from '../pack-options.js';
import { withEngine } from '../session.js';

/** Packs and prints the summary. Throws what the engine throws; USAGE for bad options. */
export const run: CommandRun = async (ctx, inv) => {
  const opts = await packOptions(inv, () => withEngine(ctx, (engine) => engine.trustList()));
  const { result: s } = await runJob(ctx, (sink, signal) => withEngine(ctx, (engine) => engine.pack(opts, sink, signal)));
  await printSummary(ctx, 'pack', s, () => [
    `packed ${plural(s.files, 'file')} (${formatBytes(s.bytesIn)}) into shipment ${s.shipmentId}: ` +
      `${formatBytes(s.bytesOnDrive)} on drive, ${formatRate(averageRate(s.bytesIn, s.seconds))}`,
    ...(s.full ? [] : [incrementalLine(s)]),
  ]);
  if (!ctx.json) {
    ctx.out.info(
      `dataset ${printable(s.dataset)} shipment #${s.seq}${s.parent !== null ? ` after ${s.parent}` : ' (the first)'} written to ${s.paths.length === 1 ? s.path : `${s.paths.length} drives`}`,
    );
    if (s.paths.length > 1) {
      const k = s.paths.length - s.parity;
      s.paths.forEach((p, i) => ctx.out.info(`  drive ${i + 1} of ${s.paths.length} (${i < k ? 'data' : 'parity'}): ${p}`));
      ctx.out.info(`any ${k} of the ${s.paths.length} drives give the whole shipment (${plural(s.parity, 'drive')} may be lost)`);
    }
    if (s.recovery > 0) ctx.out.info(`recovery data: ${s.recovery}% on each drive ('brickpost repair' fixes bad sectors with it)`);
    if (s.packsKept > 0) ctx.out.info(`resumed: ${plural(s.packsKept, 'pack')} kept from the interrupted run`);
    ctx.out.info(
      `${formatCount(s.chunks)} chunks (${formatCount(s.chunksDeduplicated)} deduplicated) in ${plural(s.packs, 'pack')}, ` +
        `encrypted to ${plural(s.recipients.length, 'recipient')}`,
    );
    ctx.out.info(entriesLine(s));
    const missed = Object.entries(s.entries.notShipped);
    if (missed.length > 0)
      ctx.out.warn(`not shipped: ${missed.map(([why, n]) => `${formatCount(n)} ${why}`).join('; ')} (each named above; --strict makes this an error)`);
    if (s.entries.changing > 0)
      ctx.out.warn(`${plural(s.entries.changing, 'file')} kept changing while read and shipped as last read, marked as changing (each named above)`);
    for (const n of s.notes) ctx.out.info(printable(n));
    if (s.warnings > 0) ctx.out.warn(`${plural(s.warnings, 'warning')} while packing; see above`);
  }
  return 0;
};

/**
 * What the shipment carries of the source, in one line: "carries 51 files,
 * 12 folders, 9 symbolic links, 4 hard links, 1 special file; 3 sparse files
 * (57.3 MB of holes not stored); 120 entries excluded".
 */
export function entriesLine(s: PackSummary): string {
  const e = s.entries;
  const kinds = [
    plural(e.files, 'file'),
    plural(e.dirs, 'folder'),
    plural(e.links, 'symbolic link'),
    plural(e.hardLinks, 'hard link'),
    plural(e.specials, 'special file'),
  ];
  const parts = [`carries ${kinds.join(', ')}`];
  if (e.sparseFiles > 0) parts.push(`${plural(e.sparseFiles, 'sparse file')} (${formatBytes(e.holeBytes)} of holes not stored)`);
  if (e.withXattrs + e.withAcls > 0) parts.push(`${plural(e.withXattrs, 'entry', 'entries')} with extended attributes, ${formatCount(e.withAcls)} with ACLs`);
  if (e.excluded > 0) parts.push(`${plural(e.excluded, 'entry', 'entries')} excluded`);
  return parts.join('; ');
}

/**
 * What an incremental shipment carries, in one line: "incremental over seq 3:
 * 41 files read, 2,310 unchanged (not re-read), 1.2 GB held, 10.3 MB as
 * 1.26 MB of deltas, 117 MB on the drive".
 */
export function incrementalLine(s: PackSummary): string {
  const over = s.against !== null ? `built against signature file ${s.against.slice(0, 12)}…` : `incremental over seq ${s.bases.map((b) => b.seq).join(', ')}`;
  const parts = [`${plural(s.filesRead, 'file')} read`];
  if (s.filesUnchanged > 0) parts.push(`${formatCount(s.filesUnchanged)} unchanged (not re-read)`);
  parts.push(`${formatBytes(s.bytesHeld)} held`);
  if (s.chunksDelta > 0) parts.push(`${formatBytes(s.bytesDelta)} as ${formatBytes(s.deltaFrameBytes)} of deltas`);
  parts.push(`${formatBytes(s.bytesOnDrive)} on the drive`);
  return `${over}: ${parts.join(', ')}`;
}
