/** `brickpost ingest`: verify a shipment and apply it to a destination folder. */
import { retentionOptions } from '../retention-options.js';
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { averageRate, commandLine, formatBytes, formatCount, formatRate, plural, printable } from '../format.js';
import { applyOptions, expansionOption, s3Option } from '../apply-options.js';
import { describeCreated } from '@brickpost/engine/api';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/** Ingests and prints the summary. Throws what the engine throws (chain errors exit 6). */
export const run: CommandRun = async (ctx, inv) => {
  const drives = inv.positionals.slice(0, -1);
  const dest = inv.positionals[inv.positionals.length - 1]!;
  const drive = drives[0]!;
  const shipment = str(inv, 'shipment');
  const requestOut = str(inv, 'request-out');
  const opts = {
    drive,
    ...(drives.length > 1 ? { drives: drives.slice(1) } : {}),
    ...(flag(inv, 'gather') ? { gather: true } : {}),
    ...(flag(inv, 'skip-damaged') ? { skipDamaged: true } : {}),
    ...(flag(inv, 'allow-older') ? { allowOlder: true } : {}),
    ...(flag(inv, 'windows-names') ? { windowsNames: true } : {}),
    ...(flag(inv, 'allow-expired') ? { allowExpired: true } : {}),
    ...applyOptions(inv),
    ...expansionOption(inv),
    ...s3Option(inv),
    dest,
    ...(shipment !== undefined ? { shipment } : {}),
    ...(requestOut !== undefined ? { requestOut } : {}),
    ...retentionOptions(inv),
  };
  const { result: s } = await runJob(ctx, (sink, signal) =>
    withEngine(ctx, async (engine) => {
      const choice = shipment === undefined ? await engine.nextShipment(drive, dest) : null;
      if (choice && !ctx.json && !ctx.quiet) {
        ctx.out.info(
          `${drive} holds several shipments; ingesting #${choice.chosen.seq} ${choice.chosen.id}${choice.chosen.label ? ` (${printable(choice.chosen.label)})` : ''}: ${choice.reason}`,
        );
      }
      return engine.ingest(opts, sink, signal);
    }),
  );
  await printSummary(ctx, 'ingest', s, () =>
    s.alreadyApplied
      ? [`shipment ${s.shipmentId} is already applied to ${s.dest}; nothing to do`]
      : s.incremental
        ? [
            `applied shipment ${s.shipmentId} (seq ${s.seq}) to ${s.dest}: ${plural(s.filesUnchanged, 'file')} unchanged, ` +
              `${plural(s.filesWritten, 'file')} written (${formatBytes(s.bytesWritten)}: ${formatBytes(s.bytesFromDrive)} from the drive, ` +
              `${formatBytes(s.bytesReused)} reused from the destination, ${plural(s.chunksFromDelta, 'delta chunk')}), ` +
              `${plural(s.filesLinked, 'file')} moved, ${plural(s.retired, 'entry', 'entries')} retired to undo`,
          ]
        : [
            `ingested ${plural(s.files, 'file')} (${formatBytes(s.bytesWritten)}) from shipment ${s.shipmentId} ` +
              `into ${s.dest}, ${formatRate(averageRate(s.bytesWritten, s.seconds))}`,
          ],
  );
  if (!ctx.json && !ctx.quiet && !s.alreadyApplied) ctx.out.info(`shipment packed ${describeCreated(s.created).text}`);
  if (!ctx.json && !ctx.quiet && s.laterOnDrive.length > 0) {
    const next = s.laterOnDrive[0]!;
    ctx.out.info(
      `the drive holds ${plural(s.laterOnDrive.length, 'later shipment')} for this destination (next: #${next.seq} ${next.shipmentId}${next.label ? ` ${printable(next.label)}` : ''}); ` +
        `apply ${s.laterOnDrive.length === 1 ? 'it' : 'them one by one'} with: ${commandLine(ctx.argv)}`,
    );
  }
  const notApplied = Object.entries(s.notApplied);
  if (!ctx.json && notApplied.length > 0) {
    ctx.out.info(
      `recorded but not applied: ${notApplied.map(([why, n]) => `${formatCount(n)} ${why}`).join('; ')}${s.notAppliedList ? `; listed in ${s.notAppliedList}` : ''}`,
    );
  }
  if (!ctx.json && s.skipped > 0) ctx.out.warn(`${plural(s.skipped, 'damaged file')} left out; listed in ${s.skippedList}`);
  if (!ctx.json && s.warnings > 0) ctx.out.warn(`${plural(s.warnings, 'warning')} while ingesting; see above`);
  return 0;
};
