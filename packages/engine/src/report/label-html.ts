import type { DriveLabel } from '../api/report.js';
import { esc, page } from './html-kit.js';

const LABEL_CSS = `
body { max-width: 190mm; }
.sheet { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 88mm), 1fr)); gap: 6mm; }
.label { border: 1.5px dashed #59636e; border-radius: 3mm; padding: 4mm; display: grid; grid-template-columns: 1fr auto; grid-template-areas: "head qr" "facts facts"; gap: 2mm 3mm; align-items: start; }
.label .head { grid-area: head; }
.label .qr { grid-area: qr; text-align: center; font-size: .7rem; color: var(--muted); }
.label dl.facts { grid-area: facts; font-size: .85rem; margin: 0; gap: 0 .6rem; }
.label .which { font-size: 1.5rem; font-weight: 700; line-height: 1.15; margin: 0; }
.label .dataset { font-size: 1.1rem; font-weight: 600; margin: .15rem 0; overflow-wrap: anywhere; }
.label svg { width: 28mm; height: 28mm; display: block; }
@media print { body { font-size: 9pt; } h1, .intro { display: none; } }
`;

/**
 * One printable page of drive labels, one per drive of a shipment's set:
 * "drive i of N", dataset, label, shipment id, publisher key id, date, and
 * the QR code `qrSvg` (of the shipment id, made by the caller). Every value
 * is escaped; no Node imports.
 */
export function renderLabelsHtml(labels: DriveLabel[], qrSvg: string): string {
  const first = labels[0];
  const cards = labels.map((l) => {
    const rows: Array<[string, string]> = [
      ['Shipment', `<span class="id">${esc(l.shipmentId)}</span>`],
      ['Publisher key', `<span class="id">${esc(l.publisherKeyId)}</span>`],
      ['Publisher', esc(l.publisherName)],
      ['Packed', esc(l.date)],
    ];
    if (l.label !== '') rows.splice(1, 0, ['Label', esc(l.label)]);
    return `<section class="label" aria-label="drive ${l.drive} of ${l.drives}">
<div class="head"><p class="which">drive ${l.drive} of ${l.drives}${l.drives > 1 ? ` <span class="muted">(${esc(l.role)})</span>` : ''}</p>
<p class="dataset">${esc(l.dataset)}</p></div>
<div class="qr">${qrSvg}<br>shipment id</div>
<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
</section>`;
  });
  const title = first ? `Drive labels: ${first.dataset}, shipment ${first.shipmentId}` : 'Drive labels';
  const intro = '<h1>brickpost drive labels</h1><p class="intro muted">Print on A4, cut along the dashed lines and stick one on each drive.</p>';
  return page(title, `${intro}<div class="sheet">\n${cards.join('\n')}\n</div>`, LABEL_CSS);
}
