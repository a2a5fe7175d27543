/** `brickpost report`: a verification report of a drive or destination, as HTML, PDF and JSON. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findBrowser, printPdf } from '@brickpost/engine';
import type { ShipmentReport } from '@brickpost/engine/api';
import { renderReportHtml } from '@brickpost/engine/report-html';
import type { CommandRun, Context } from '../context.js';
import { flag, str } from '../context.js';
import { exitCodeOf, mostSerious } from '../exit-codes.js';
import { formatBytes, formatRate, plural, printable } from '../format.js';
import { runJob } from '../job.js';
import { Output } from '../output.js';
import { withEngine } from '../session.js';

/**
 * Checks the target, writes the files asked for (--html, --pdf), then
 * prints a summary (or, with --json, the report document). Exits 0 when
 * the verdict is "intact"; otherwise, once the files are written, with the
 * exit code of the most serious problem, as verify does. Throws what the
 * engine throws when there is nothing to report on, and DEPENDENCY when
 * --pdf is given and no browser can print it (checked before the work).
 */
export const run: CommandRun = async (ctx, inv) => {
  const target = inv.positionals[0]!;
  const html = str(inv, 'html');
  const pdf = str(inv, 'pdf');
  const shipment = str(inv, 'shipment');
  const browser = pdf !== undefined ? await findBrowser() : undefined;
  const opts = { target, deep: flag(inv, 'deep'), ...(shipment !== undefined ? { shipment } : {}) };
  const report = ctx.json
    ? await withEngine(ctx, (engine) => engine.report(opts, (ev) => (ev.type === 'warning' ? ctx.out.warn(ev.message, ev.path) : undefined), ctx.signal), {
        create: false,
      })
    : (await runJob(ctx, (sink, signal) => withEngine(ctx, (engine) => engine.report(opts, sink, signal), { create: false }))).result;
  const written: string[] = [];
  if (html !== undefined || pdf !== undefined) {
    const page = renderReportHtml(report);
    if (html !== undefined) {
      await writeFile(html, page);
      written.push(resolve(html));
    }
    if (pdf !== undefined) {
      await printPdf(page, resolve(pdf), ctx.signal, browser);
      written.push(resolve(pdf));
    }
  }
  if (ctx.json) await ctx.out.document(report);
  else for (const line of summaryLines(report, written)) await ctx.out.line(line);
  return verdictExit(ctx, report, target);
};

function summaryLines(r: ShipmentReport, written: string[]): string[] {
  const c = r.check;
  const pub = r.publisher;
  const lines = [
    `verdict    ${r.verdict.title}`,
    `shipment   ${printable(r.shipment.id)}  dataset ${printable(r.shipment.dataset)} #${r.shipment.seq}${r.shipment.label !== '' ? `  label ${printable(r.shipment.label)}` : ''}`,
    `publisher  ${pub.keyId}${pub.name !== null ? ` ${printable(pub.name)}` : ''}  ${pub.trusted ? 'trusted' : 'NOT TRUSTED'}  signature ${r.signature}`,
    `check      ${c.level} check: fixity ${c.fixity}, deep ${c.deep}; ${plural(c.files, 'file')}, ${formatBytes(c.bytes)} in ${r.timings.seconds.toFixed(2)} s` +
      (r.timings.seconds > 0 && c.bytes > 0 ? ` (${formatRate(c.bytes / r.timings.seconds)})` : ''),
  ];
  if (r.drives.length > 1) {
    const here = r.drives.filter((d) => d.state === 'present').map((d) => d.drive);
    lines.push(`drives     ${r.drives.length} in the set; here: ${here.join(', ')}`);
  }
  if (r.custody)
    lines.push(
      `custody    ${plural(r.custody.events.length, 'event')}, chain ${r.custody.ok ? 'holds' : `BROKEN${r.custody.brokenAt !== null ? ` at event ${r.custody.brokenAt}` : ''}`}`,
    );
  for (const p of c.problems.slice(0, 10)) lines.push(`problem    ${p.code}  ${p.message}${p.path !== undefined ? `  (${printable(p.path)})` : ''}`);
  if (c.problemsTotal > 10) lines.push(`problem    … and ${c.problemsTotal - 10} more (all are in the report)`);
  for (const n of r.notes) lines.push(`note       ${n}`);
  for (const f of written) lines.push(`wrote      ${printable(f)}`);
  return lines;
}

async function verdictExit(ctx: Context, r: ShipmentReport, target: string): Promise<number> {
  if (r.verdict.ok) return 0;
  const worst = mostSerious(r.check.problems.map((p) => p.code)) ?? 'FIXITY_MISMATCH';
  // With --json, stdout holds the report alone; the failure goes to stderr only.
  const out = ctx.json ? new Output({ json: false, quiet: ctx.quiet, stdout: ctx.out.stdout, stderr: ctx.out.stderr }) : ctx.out;
  await out.failure({
    type: 'error',
    code: worst,
    exitCode: exitCodeOf(worst),
    message: `${printable(target)}: ${r.verdict.title.toLowerCase()} (${plural(r.check.problemsTotal, 'problem')}, most serious ${worst}); the report says so`,
    hint: r.verdict.advice,
  });
  return exitCodeOf(worst);
}
