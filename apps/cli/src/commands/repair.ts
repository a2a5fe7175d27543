/** `brickpost repair`: repair drives in place from their own recovery data. */
import { BrickpostError } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { flag, str } from '../context.js';
import { formatCount, plural, printable } from '../format.js';
import { printSummary, runJob } from '../job.js';
import { withEngine } from '../session.js';

/**
 * Repairs each drive given and prints, per drive, what was repaired and
 * what was beyond its recovery data, by file. Exits 1 (integrity) when a
 * file could not be repaired.
 */
export const run: CommandRun = async (ctx, inv) => {
  const shipment = str(inv, 'shipment');
  const dryRun = flag(inv, 'dry-run');
  let failed: string[] = [];
  // A drive that holds several shipments has each repaired, unless --shipment names one.
  const jobs: Array<{ drive: string; shipment?: string }> = [];
  for (const drive of inv.positionals) {
    const ids = shipment !== undefined ? [shipment] : (await withEngine(ctx, (engine) => engine.shipments(drive), { create: false })).map((s) => s.id);
    if (ids.length === 0) jobs.push({ drive });
    for (const id of ids) jobs.push({ drive, shipment: id });
  }
  for (const { drive, shipment: id } of jobs) {
    const { result: s } = await runJob(ctx, (sink, signal) =>
      withEngine(ctx, (engine) => engine.repair({ drive, dryRun, ...(id !== undefined ? { shipment: id } : {}) }, sink, signal)),
    );
    await printSummary(ctx, 'repair', s, () => [
      s.damagedBlocks === 0
        ? `${printable(s.drive)}: intact (${formatCount(s.blocks)} blocks checked)`
        : `${printable(s.drive)}: ${formatCount(s.damagedBlocks)} damaged blocks in ${plural(s.files.length, 'file')}, ` +
          (dryRun ? `${s.ok ? 'all' : 'not all'} repairable` : `${formatCount(s.repairedBlocks)} repaired`),
      ...s.files.map(
        (f) =>
          `  ${f.status.padEnd(15)} ${printable(f.path)}  ${f.damagedBlocks} damaged${f.unrepairableBlocks ? `, ${f.unrepairableBlocks} beyond the recovery data` : ''}${f.reason ? `: ${printable(f.reason)}` : ''}`,
      ),
      ...s.recoveryProblems.map((p) => `  recovery ${p.state.padEnd(6)} ${printable(p.path)}: ${printable(p.reason)}`),
    ]);
    if (!s.ok) failed = [...failed, ...s.files.filter((f) => f.status !== 'repaired' && f.status !== 'repairable').map((f) => `${drive}: ${f.path}`)];
  }
  if (failed.length === 0) return 0;
  throw new BrickpostError(
    'FIXITY_MISMATCH',
    `${plural(failed.length, 'file')} could not be repaired: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''}`,
    {
      hint: 'in a drive set, ingest rebuilds them from the other drives; otherwise ask the sender for a new copy (ingest --skip-damaged takes the other files)',
    },
  );
};
