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
      "Every drive carries recovery data (pack --recovery, 2 % by default): bad sectors\nand bit rot are repaired from it without the other drives of a set. The\nsignature is checked first; each repaired file must match its signed SHA-256.\nExits 0 when every damaged file was repaired, 1 when some could not be (they\nare listed; in a set, ingest rebuilds them from the other drives).",
    load: () => import('../commands/repair.js'),
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
      "Checks a drive as verify does (and every drive of its set found next to it),\nor a destination as receipt does, and says in plain words what it found:\n\"Genuine and intact\", \"Damaged\", \"Untrusted publisher\"... with each failing\nfile, timings and rates, and the shipment's custody log. The files are written\neither way; the exit code is 0 only when the verdict is intact, else that of\nthe most serious problem, as for verify. The PDF needs chromium or google-chrome\n(or $BRICKPOST_CHROMIUM).",
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
    details: 'One label per drive of the set: "drive i of N", dataset, label, shipment id,\npublisher key id, packing date and a QR code of the shipment id. Reads only the\ndrive\'s tag files; no key is needed.',
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
      "Every handling step of a shipment is an event signed by whoever acted and\nchained to the one before: packed and sealed by the publisher (inside the\nsigned bag), then verified, ingested, receipt-issued and wiped (in\nbrickpost/ID.custody next to the bag, and in the catalog of the home that\nacted). Events this home recorded but could not write to the drive are shown\nas \"this home only\". Exits 0 when every event checks, 1 when the chain is\nbroken: the first broken event is named, with what failed.",
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
      "Refused unless this home ingested the shipment (or --force). The bag folder is\nrenamed to ID.wiping first, so an interrupted wipe never leaves a partial\nshipment (run wipe again to finish); a wiped event is added to the custody log,\nwhich stays on the drive.",
    load: () => import('../commands/wipe.js'),
  },
];
