import type { ReportDrive, ShipmentReport } from '../api/report.js';
import { custodySection } from './html-custody.js';
import { bytes, count, esc, facts, page, rate, seconds, table, when } from './html-kit.js';

const REPORT_CSS = `
.verdict { border: 2px solid var(--bad); background: var(--bad-bg); border-radius: .5rem; padding: 1rem 1.25rem; margin: 1rem 0 1.5rem; }
.verdict.v-ok { border-color: var(--ok); background: var(--ok-bg); }
.verdict.v-warn { border-color: var(--warn); background: var(--warn-bg); }
.verdict .title { display: block; font-size: 1.75rem; font-weight: 700; line-height: 1.2; }
.verdict p { margin: .4rem 0 0; }
.kind { color: var(--muted); margin: 0; }
`;

const STATE_CLASS: Record<string, string> = {
  ok: 'good',
  valid: 'good',
  present: 'good',
  failed: 'bad',
  invalid: 'bad',
  missing: 'bad',
  'unknown-key': 'warn',
  skipped: 'muted',
  'not-checked': 'muted',
};

/** A status word, coloured, with its meaning in words. */
function status(word: string, text = word): string {
  return `<span class="${STATE_CLASS[word] ?? ''}">${esc(text)}</span>`;
}

function verdictBox(r: ShipmentReport): string {
  const cls = r.verdict.ok ? 'v-ok' : r.verdict.status === 'repairable' || r.verdict.status === 'untrusted' ? 'v-warn' : 'v-bad';
  return `<section class="verdict ${cls}" aria-label="verdict"><span class="title">${esc(r.verdict.title)}</span><p>${esc(r.verdict.advice)}</p></section>`;
}

function shipmentSection(r: ShipmentReport): string {
  const s = r.shipment;
  const pairs: Array<[string, string]> = [
    ['Shipment id', `<span class="id">${esc(s.id)}</span>`],
    ['Dataset', esc(s.dataset)],
    ['Label', s.label === '' ? '<span class="muted">(none)</span>' : esc(s.label)],
    ['Sequence', `#${esc(s.seq)}`],
    ['Parent', s.parent === null ? '<span class="muted">none (first shipment of the dataset)</span>' : `<span class="id">${esc(s.parent)}</span>`],
  ];
  if (s.datasetId !== null) pairs.push(['Dataset id', `<span class="id">${esc(s.datasetId)}</span>`]);
  if (s.created !== null) pairs.push(['Packed', esc(when(s.created))]);
  if (s.files !== null && s.bytes !== null) pairs.push(['Content', `${count(s.files)} files, ${esc(bytes(s.bytes))}`]);
  if (s.drives > 0) pairs.push(['Drives', s.drives === 1 ? 'one drive' : `${s.drives} (${s.dataDrives} data, ${s.parityDrives} parity)`]);
  return `<h2>Shipment</h2>${facts(pairs)}`;
}

function publisherSection(r: ShipmentReport): string {
  const p = r.publisher;
  const sig: Record<ShipmentReport['signature'], string> = {
    valid: 'valid',
    invalid: 'INVALID: the signed files were changed or the signature is not by this key',
    missing: 'MISSING: the drive carries no signature',
    'unknown-key': 'cannot be checked: the key is not in your trust store',
    'not-checked': 'checked when the shipment was ingested (a destination keeps no signature)',
  };
  return `<h2>Publisher and signature</h2>${facts([
    ['Publisher key id', `<span class="id">${esc(p.keyId || 'unknown')}</span>`],
    ['Name in your trust store', p.name === null ? '<span class="muted">(not in your trust store)</span>' : esc(p.name)],
    ['Trusted', p.trusted ? status('ok', 'yes') : status('failed', 'NO')],
    ['Signature', status(r.signature, sig[r.signature])],
  ])}`;
}

function drivesSection(drives: ReportDrive[]): string {
  if (drives.length === 0) return '';
  const rows = drives.map((d) => [
    `${d.drive} of ${drives.length}`,
    esc(d.role),
    status(d.state),
    d.path === null ? '<span class="muted">not found</span>' : `<code>${esc(d.path)}</code>`,
    status(d.fixity),
    d.state === 'present' ? `${count(d.files)} files, ${esc(bytes(d.bytes))}` : '',
    d.problems > 0 ? status('failed', count(d.problems)) : '0',
  ]);
  return `<h2>${drives.length === 1 ? 'Drive' : 'Drives of the set'}</h2>${table(['Drive', 'Role', 'State', 'Where', 'Fixity', 'Checked', 'Problems'], rows)}`;
}

function checkSection(r: ShipmentReport): string {
  const c = r.check;
  const level = {
    fixity: 'fixity: signed SHA-256 of every file on the drive, no key needed',
    deep: 'deep: every chunk decrypted, decompressed and re-hashed',
    stat: "stat: every entry's type, size and modification time against the shipment",
  };
  const pairs: Array<[string, string]> = [
    ['Level', esc(r.kind === 'dest' && c.level === 'deep' ? "deep: every file re-read and each chunk's keyed id checked" : level[c.level])],
    [r.kind === 'dest' ? 'Destination matches' : 'Fixity', status(c.fixity)],
    ['Deep verification', status(c.deep)],
    [
      'Checked',
      `${count(c.files)} files, ${esc(bytes(c.bytes))}${c.chunksChecked > 0 ? `, ${count(c.chunksChecked)} chunks` : ''}${c.chunksHeld > 0 ? ` (${count(c.chunksHeld)} held by the recipient, not on the drive)` : ''}`,
    ],
    ['Problems', c.problemsTotal === 0 ? status('ok', 'none') : status('failed', count(c.problemsTotal))],
  ];
  let out = `<h2>Verification</h2>${facts(pairs)}`;
  if (c.problems.length > 0) {
    const rows = c.problems.map((p) => [`<code>${esc(p.code)}</code>`, p.path === undefined ? '' : `<code>${esc(p.path)}</code>`, esc(p.message)]);
    out += `<h2>Failures</h2>${table(['Code', 'File', 'What failed'], rows)}`;
    if (c.problemsTotal > c.problems.length) out += `<p class="muted">${count(c.problemsTotal - c.problems.length)} more problems are not listed.</p>`;
  }
  if (r.repair) {
    const rows = r.repair.files.map((f) => [
      `<code>${esc(f.path)}</code>`,
      count(f.damagedBlocks),
      f.repairable ? status('ok', 'yes') : status('failed', 'no'),
    ]);
    out += `<h2>Repair</h2><p>${count(r.repair.damagedBlocks)} damaged block${r.repair.damagedBlocks === 1 ? '' : 's'}; ${r.repair.repairable ? "all can be repaired from the drive's recovery data (brickpost repair)" : "some are beyond the drive's recovery data"}.</p>${table(['File', 'Damaged blocks', 'Repairable'], rows)}`;
  }
  return out;
}

function destSection(r: ShipmentReport): string {
  if (!r.dest) return '';
  const rows = r.dest.applied.map((a) => [
    `#${esc(a.seq)}`,
    `<span class="id">${esc(a.shipmentId)}</span>`,
    esc(a.label),
    esc(when(a.appliedAt)),
    `${count(a.files)} files, ${esc(bytes(a.bytes))}`,
    a.undoable ? 'yes' : 'no',
  ]);
  return `<h2>Shipments applied to the destination</h2>${table(['Seq', 'Shipment', 'Label', 'Applied', 'Content', 'Undoable'], rows)}`;
}

function timingSection(r: ShipmentReport): string {
  const names: Record<string, string> = {
    verify: 'signature and fixity',
    'deep-verify': 'deep verification',
    drives: 'other drives of the set',
    custody: 'custody log',
    'dest-check': 'destination check',
  };
  const rows = r.timings.phases.map((p) => [
    esc(names[p.phase] ?? p.phase),
    seconds(p.seconds),
    esc(bytes(p.bytes)),
    count(p.files),
    p.bytes > 0 ? rate(p.bytesPerSecond) : '',
  ]);
  return `<h2>Timings</h2>${table(['Phase', 'Time', 'Read', 'Files', 'Rate'], rows)}<p>Total ${seconds(r.timings.seconds)}.</p>`;
}

/**
 * The report as one standalone HTML document (inline style, no script, no
 * external resource; A4 when printed). Every value is escaped: a drive is
 * untrusted input. No Node imports, so any front end can call it.
 */
export function renderReportHtml(r: ShipmentReport): string {
  const what = r.kind === 'drive' ? 'Drive' : 'Destination';
  const body = [
    `<header><h1>brickpost verification report</h1><p class="kind">${what} <code>${esc(r.target)}</code></p></header>`,
    verdictBox(r),
    shipmentSection(r),
    publisherSection(r),
    drivesSection(r.drives),
    checkSection(r),
    destSection(r),
    timingSection(r),
    custodySection(r.custody),
    r.notes.length > 0 ? `<h2>Notes</h2><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '',
    `<footer>Report made ${esc(when(r.created))} by brickpost (${esc(r.format)}).</footer>`,
  ].join('\n');
  return page(`${r.verdict.title}: shipment ${r.shipment.id} (${r.shipment.dataset})`, body, REPORT_CSS);
}
