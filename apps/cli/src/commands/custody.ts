/** `brickpost custody`: print and check the custody log of a shipment on a drive. */
import type { CustodyEvent, CustodyReport } from '@brickpost/engine/api';
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { plural, printable } from '../format.js';
import { withEngine } from '../session.js';

/** One line per event and the verdict; exit 0 when the chain holds, 1 (integrity) when it is broken. */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const shipment = str(inv, 'shipment');
  const r = await withEngine(ctx, (engine) => engine.custody({ drive, ...(shipment ? { shipment } : {}) }), { create: false });
  if (ctx.json) {
    await ctx.out.document(r);
    return r.ok ? 0 : 1;
  }
  for (const line of custodyLines(r)) await ctx.out.line(line);
  if (r.ok) return 0;
  const first = r.problems[0];
  await ctx.out.failure({
    type: 'error',
    code: first?.code ?? 'MALFORMED',
    exitCode: 1,
    message:
      r.brokenAt !== null
        ? `the custody chain of shipment ${r.shipmentId} is broken at event ${r.brokenAt}`
        : `the custody log of shipment ${r.shipmentId} has ${plural(r.problems.length, 'problem')}`,
    hint: 'the events from there on cannot be relied on: the log was damaged or altered',
  });
  return 1;
};

/** The report as text lines: a header, one line per event, the problems and the verdict. */
export function custodyLines(r: CustodyReport): string[] {
  const where = r.log ? `log ${r.log}` : r.bag === 'present' ? 'events in the bag (no log on the drive yet)' : "this home's catalog";
  const lines = [`shipment ${r.shipmentId}${r.drive ? `, drive ${r.drive}` : ''}, ${r.bag === 'removed' ? 'bag wiped, ' : ''}${where}`];
  for (const e of r.events) lines.push(eventLine(e, r.brokenAt));
  for (const p of r.problems) lines.push(`problem  ${p.code}  ${p.message}`);
  lines.push(
    r.ok
      ? `result   OK: ${plural(r.events.length, 'event')}, each signed by its actor and chained to the one before`
      : `result   BROKEN${r.brokenAt !== null ? ` at event ${r.brokenAt}` : ''}`,
  );
  return lines;
}

function eventLine(e: CustodyEvent, brokenAt: number | null): string {
  const who = `${printable(e.actor.name)} (key ${e.actor.keyId}, ${e.actor.trusted ? `trusted as ${printable(e.actor.trustedAs ?? '')}` : `not trusted here, public key ${e.actor.publicKey}`})`;
  const details = Object.entries(e.details)
    .map(([k, v]) => `${k} ${typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? v.slice(0, 16) + '…' : typeof v === 'string' ? printable(v) : String(v)}`)
    .join(', ');
  const mark = !e.valid ? '  [BROKEN]' : brokenAt !== null && e.n > brokenAt ? '  [after the break]' : '';
  const source = e.source === 'catalog' ? '  [this home only]' : '';
  return `${String(e.n).padStart(3)}  ${e.at.slice(0, 19).replace('T', ' ')}  ${e.type.padEnd(14)}  ${who}  ${details}${source}${mark}`;
}
