/** `brickpost label`: printable labels for the drives of a shipment. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findBrowser, printPdf } from '@brickpost/engine';
import type { CommandRun } from '../context.js';
import { str } from '../context.js';
import { printable } from '../format.js';
import { withEngine } from '../session.js';

/**
 * Makes one label per drive of the set and writes them as one printable
 * page (--html, --pdf); prints a line per label, or with --json
 * `{labels, html, pdf}` (the files written, or null). Throws what the engine
 * throws, and DEPENDENCY when --pdf is given and no browser can print it.
 */
export const run: CommandRun = async (ctx, inv) => {
  const drive = inv.positionals[0]!;
  const html = str(inv, 'html');
  const pdf = str(inv, 'pdf');
  const shipment = str(inv, 'shipment');
  const browser = pdf !== undefined ? await findBrowser() : undefined;
  const sheet = await withEngine(ctx, (engine) => engine.label({ drive, ...(shipment !== undefined ? { shipment } : {}) }), { create: false });
  if (html !== undefined) await writeFile(html, sheet.html);
  if (pdf !== undefined) await printPdf(sheet.html, resolve(pdf), ctx.signal, browser);
  const files = { html: html !== undefined ? resolve(html) : null, pdf: pdf !== undefined ? resolve(pdf) : null };
  if (ctx.json) {
    await ctx.out.document({ labels: sheet.labels, ...files });
    return 0;
  }
  for (const l of sheet.labels) {
    await ctx.out.line(
      `drive ${l.drive} of ${l.drives}${l.drives > 1 ? ` (${l.role})` : ''}  ${printable(l.dataset)}${l.label !== '' ? `  ${printable(l.label)}` : ''}  shipment ${printable(l.shipmentId)}  publisher ${l.publisherKeyId}  ${l.date}`,
    );
  }
  for (const f of [files.html, files.pdf]) if (f !== null) await ctx.out.line(`wrote ${printable(f)}`);
  if (files.html === null && files.pdf === null) ctx.out.info('give --html FILE or --pdf FILE for a printable page with a QR code of the shipment id');
  return 0;
};
