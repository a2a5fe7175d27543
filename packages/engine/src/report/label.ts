import QRCode from 'qrcode';
import { BrickpostError } from '@brickpost/manifest';
import type { DriveLabel, LabelOptions, LabelSheet } from '../api/index.js';
import type { Context } from '../context.js';
import { findShipment } from '../drive/layout.js';
import { openShipment } from '../drive/open.js';
import { trustedVerifiers } from '../keys/index.js';
import { renderLabelsHtml } from './label-html.js';

/** A QR code of `text` as inline SVG markup, without namespace URL (HTML does not need it). */
export async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  if (!/^<svg [^>]*>(<path [^>]*\/>)+<\/svg>\s*$/.test(svg)) throw new BrickpostError('DEPENDENCY', 'the qrcode package made an unexpected SVG');
  return svg.trim().replace(' xmlns="http://www.w3.org/2000/svg"', ` role="img" aria-label="QR code of ${text.replace(/[^0-9A-Za-z-]/g, '')}"`);
}

/**
 * Printable labels for every drive of the shipment on `drive`, from its
 * tag files (bag-info and set file); the signature is not required, so a
 * publisher can label drives before trusting anything.
 * @throws BrickpostError NOT_A_DRIVE, NOT_FOUND, AMBIGUOUS_SHIPMENT, MALFORMED, FILE_MISSING
 */
export async function driveLabels(ctx: Context, opts: LabelOptions): Promise<LabelSheet> {
  const found = await findShipment(opts.drive, opts.shipment);
  const o = await openShipment(found.id, found.dir, trustedVerifiers(ctx.catalog), {
    problems: [],
    signature: 'missing',
    signer: { keyId: '', name: null, trusted: false },
  });
  const info = o.info;
  const n = Math.max(1, info.bagCount);
  const data = n - info.setParity;
  const labels: DriveLabel[] = [];
  for (let i = 1; i <= n; i++) {
    const kind = o.set?.shares[i - 1]?.kind ?? (i > data ? 'parity' : 'data');
    labels.push({
      shipmentId: found.id,
      dataset: info.dataset,
      label: info.label,
      drive: i,
      drives: n,
      role: kind === 'parity' ? 'parity' : 'data',
      publisherKeyId: info.publisherKey,
      publisherName: info.publisher,
      date: info.created.slice(0, 10),
    });
  }
  return { labels, html: renderLabelsHtml(labels, await qrSvg(found.id)) };
}
