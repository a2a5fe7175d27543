/** The commands of repairing a drive, reporting on it, labelling it, its custody log and wiping it, in help order. */
import { json, shipment, type CommandSpec } from './spec.js';

export const DRIVE_COMMANDS: CommandSpec[] = [
  {
    name: 'repair',
    summary: "repair damaged files of a drive in place from the drive's own recovery data",
    args: ['DRIVE-DIR'],
    min: 1,
    max: 256,
    options: [
      { name: 'dry-run', type: 'boolean', help: 'only report what is damaged and what can be repaired' },
      shipment,
      json('print NDJSON events; the summary holds the per-file report'),
    ],
    json: 'events',
    details:
      'Every drive carries recovery data (pack --recovery, 2 % by default): bad sectors\nand bit rot are repaired from it without the other drives of a set. The\nsignature is checked first; each repaired file must match its signed SHA-256.\nExits 0 when every damaged file was repaired, 1 when some could not be (they\nare listed; in a set, ingest rebuilds them from the other drives).',
    load: () => import('../commands/repair.js'),
  },
  {
    name: 'rebuild-drive',
    summary: 'write a lost drive of a set again, onto a new drive, from the other drives',
    args: ['DRIVE-DIR'],
    min: 1,
    max: 256,
    options: [
      { name: 'to', type: 'string', required: true, value: 'NEW-DRIVE-DIR', help: 'the new, empty drive (folder) to write the lost drive onto' },
      {
        name: 'member',
        type: 'string',
        value: 'N',
        help: 'the number of the lost drive in its set ("drive N of M" on its label); by default the one drive of the set not given',
      },
      shipment,
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      "Give the drives of the set you have (at least as many as it has data drives)\nand the new drive. The lost drive, data or parity, is computed from the\nothers' parity and written with the signed tag files every drive carries a\ncopy of: it verifies and ingests as the lost one did. No decryption key is\nneeded, only trust in the publisher's key. It is written under a .part name\nand checked as verify checks a drive before it takes its place; run the same\ncommand again after an interruption to continue. A 'rebuilt' custody event\nnames the drives it came from.",
    load: () => import('../commands/rebuild-drive.js'),
  },
  {
    name: 'report',
    summary: 'a verification report of a drive or destination: HTML, PDF, JSON',
    args: ['DRIVE-or-DEST'],
    min: 1,
    options: [
      { name: 'html', type: 'string', value: 'FILE', help: 'write the report as one standalone HTML file' },
      { name: 'pdf', type: 'string', value: 'FILE', help: 'write the same report as PDF (printed by a headless Chromium)' },
      { name: 'deep', type: 'boolean', help: 'drive: decrypt and re-hash every chunk (needs your identity); destination: re-read every file' },
      shipment,
      json('print the report, a brickpost-report/v1 document'),
    ],
    json: 'document',
    details:
      'Checks a drive as verify does (and every drive of its set found next to it),\nor a destination as receipt does, and says in plain words what it found:\n"Genuine and intact", "Damaged", "Untrusted publisher"... with each failing\nfile, timings and rates, and the shipment\'s custody log. The files are written\neither way; the exit code is 0 only when the verdict is intact, else that of\nthe most serious problem, as for verify. The PDF needs chromium or google-chrome\n(or $BRICKPOST_CHROMIUM).',
    load: () => import('../commands/report.js'),
  },
  {
    name: 'label',
    summary: 'printable labels for the drives of a shipment, with a QR code of its id',
    args: ['DRIVE-DIR'],
    min: 1,
    options: [
      { name: 'html', type: 'string', value: 'FILE', help: 'write the labels as one printable HTML page' },
      { name: 'pdf', type: 'string', value: 'FILE', help: 'write them as PDF (printed by a headless Chromium)' },
      shipment,
      json('print {labels: [{shipmentId, dataset, label, drive, drives, role, publisherKeyId, publisherName, date}], html, pdf}'),
    ],
    json: 'document',
    details:
      'One label per drive of the set: "drive i of N", dataset, label, shipment id,\npublisher key id, packing date and a QR code of the shipment id. Reads only the\ndrive\'s tag files; no key is needed.',
    load: () => import('../commands/label.js'),
  },
  {
    name: 'custody',
    summary: 'print and check the custody log of a shipment on a drive',
    args: ['DRIVE-DIR'],
    min: 1,
    options: [shipment, json('print the check as a JSON document: {shipmentId, drive, bag, log, ok, brokenAt, events, problems}')],
    json: 'document',
    details:
      'Every handling step of a shipment is an event signed by whoever acted and\nchained to the one before: packed and sealed by the publisher (inside the\nsigned bag), then verified, ingested, receipt-issued and wiped (in\nbrickpost/ID.custody next to the bag, and in the catalog of the home that\nacted). Events this home recorded but could not write to the drive are shown\nas "this home only". Exits 0 when every event checks, 1 when the chain is\nbroken: the first broken event is named, with what failed.',
    load: () => import('../commands/custody.js'),
  },
  {
    name: 'wipe',
    summary: 'remove an ingested shipment from a drive, keeping its custody log',
    args: ['DRIVE-DIR'],
    min: 1,
    options: [
      shipment,
      { name: 'force', type: 'boolean', help: 'wipe even if this home has not ingested the shipment' },
      json('print {shipmentId, removed, files, bytes, ingestedTo, event, log}'),
    ],
    json: 'document',
    details:
      'Refused unless this home ingested the shipment (or --force). The bag folder is\nrenamed to ID.wiping first, so an interrupted wipe never leaves a partial\nshipment (run wipe again to finish); a wiped event is added to the custody log,\nwhich stays on the drive.',
    load: () => import('../commands/wipe.js'),
  },
  {
    name: 'subscribers',
    summary: 'who holds which shipment, who is behind and by how much, where the drives are (publisher)',
    args: [],
    min: 0,
    options: [
      { name: 'dataset', type: 'string', value: 'NAME', help: 'only this dataset (name or id)' },
      {
        name: 'max-lag',
        type: 'string',
        multiple: true,
        value: 'LIMIT',
        help: 'flag subscribers further behind: a number of shipments (3) or a time (30d, 12h); both may be given; exit 9 when any is past',
      },
      { name: 'now', type: 'string', value: 'TIME', help: 'measure lag at this ISO 8601 time instead of the clock (also $BRICKPOST_NOW)' },
      json(
        'print {now, maxLag, past, subscribers: [{dataset, datasetId, recipient, name, keyId, newest, acknowledged, unacknowledged, lag: {shipments, bytes, days, since}, pastMaxLag, drives}]}',
      ),
    ],
    json: 'document',
    details:
      "A subscriber is a recipient of a shipment this home sealed (other than your own\nkey), or one whose receipt you imported; it is named as your trust store names\nits recipient. Lag counts the dataset's shipments after the last one its\nreceipts acknowledge: how many, their bytes on the drives, and days since the\noldest was packed. Drives: packed, shipped and returned ('brickpost drive'),\nacknowledged (a receipt), wiped (read from a returned drive's custody log).\nExits 9 when a subscriber is past --max-lag, for scripts and cron.",
    load: () => import('../commands/subscribers.js'),
  },
  {
    name: 'drive shipped',
    summary: 'record that drives of a shipment you packed left with a courier',
    args: ['SHIPMENT-ID-or-DRIVE-DIR'],
    min: 1,
    options: [
      { name: 'drive', type: 'string', value: 'I', help: 'only drive I of the shipment (default: every drive, or the one given)' },
      { name: 'at', type: 'string', value: 'TIME', help: 'when (ISO 8601; default now)' },
      json('print {shipment, state, at, drives, eventsRecorded}'),
    ],
    json: 'document',
    load: () => import('../commands/drive.js'),
  },
  {
    name: 'drive returned',
    summary: "record that drives of a shipment you packed came back (reads a drive's custody log)",
    args: ['SHIPMENT-ID-or-DRIVE-DIR'],
    min: 1,
    options: [
      { name: 'drive', type: 'string', value: 'I', help: 'only drive I of the shipment (default: every drive, or the one given)' },
      { name: 'at', type: 'string', value: 'TIME', help: 'when (ISO 8601; default now)' },
      json('print {shipment, state, at, drives, eventsRecorded}'),
    ],
    json: 'document',
    details:
      "Given the drive itself, its custody log is checked as 'brickpost custody' does\nand, when the chain holds, its events (verified, ingested, wiped) are recorded\nin this home's catalog; a broken log records nothing (exit 1).",
    load: () => import('../commands/drive.js'),
  },
];
