/** `brickpost rebuild-drive`: write a lost drive of a set again, onto a new drive, from the others. */
import { BrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { formatBytes, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/**
 * Rebuilds the drive named by --member (or the one drive of the set not
 * given) onto the folder --to, from the drives given, and prints what was
 * written and from which drives.
 */
export const run: CommandRun = async (ctx, inv) => {
  const to = str(inv, 'to')!;
  const member = str(inv, 'member');
  const n = member === undefined ? undefined : Number(member);
  if (member !== undefined && !/^[1-9][0-9]{0,3}$/.test(member))
    throw new BrickpostError('USAGE', `--member ${member} is not a drive number`, {
      hint: 'give the number of the lost drive in its set, as its label says: --member 2 for "drive 2 of 3"',
    });
  const shipment = str(inv, 'shipment');
  const { result: s } = await runJob(ctx, (sink, signal) =>
    withEngine(ctx, (engine) =>
      engine.rebuildDrive(
        { from: inv.positionals, to, ...(n !== undefined ? { member: n } : {}), ...(shipment !== undefined ? { shipment } : {}) },
        sink,
        signal,
      ),
    ),
  );
  await printSummary(ctx, 'rebuild-drive', s, () => [
    `brickpost: drive ${s.drive} of ${s.drives} (${s.kind}) of shipment ${s.shipmentId} rebuilt from drives ${s.from.map((f) => f.drive).join(', ')}: ${printable(s.path)}`,
    `brickpost: ${plural(s.files, 'payload file')}, ${formatBytes(s.bytes)}${s.kept > 0 ? ` (${s.kept} kept from the interrupted run)` : ''}; it verifies as the lost drive would (signature, tag files, every SHA-256)`,
    s.custody === 'drive'
      ? "brickpost: a 'rebuilt' event is in the drive's custody log"
      : s.custody === 'catalog'
        ? "brickpost: the 'rebuilt' event is in this home's catalog only"
        : s.custody === 'no-identity'
          ? "brickpost: no 'rebuilt' custody event: this home has no key (brickpost keygen makes one)"
          : "brickpost: no 'rebuilt' custody event was recorded",
  ]);
  return 0;
};
