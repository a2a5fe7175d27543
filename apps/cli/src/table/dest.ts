/** The commands of a destination's shipments, its state, and the receipts and signature files that describe it, in help order. */
import { RETENTION } from '../retention-options.js';
import { json, S3, type CommandSpec } from './spec.js';

export const DEST_COMMANDS: CommandSpec[] = [
  {
    name: 'history',
    summary: 'list the shipments applied to a destination folder',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      ...S3,
      json(
        'print {dest, dataset, datasetId, publisherKeyId, keepUndo, keepAll, keepDays, pins: [{name, shipmentId, seq, at}], undoBytes, shipments: [{shipmentId, seq, parent, label, appliedAt, files, bytes, bytesFromDrive, undoable, kept, pins, undoBytes}], inProgress, newestSeen: {newestSeq, newestShipment, seenAt, behind}}',
      ),
    ],
    json: 'document',
    details:
      'Reads the destination\'s state folder (DEST/.brickpost); needs no key and changes\nnothing. A shipment marked "undoable" can be rolled back (rollback --to the one\nbefore it); "kept" means rollback can return to it. Each line gives the bytes\nits undo data takes (a chunk shared with an earlier shipment counts there),\nand its pins; the total follows. An ingest or rollback under way or interrupted is named after the\nlist (see \'brickpost status\'). The last line says how far behind the newest\nshipment of the dataset this home saw on a drive (verify or ingest) DEST is.',
    load: () => import('../commands/history.js'),
  },
  {
    name: 'status',
    summary: 'say what a destination holds and whether an ingest or rollback is under way or interrupted',
    args: ['DEST-DIR'],
    min: 1,
    options: [...S3, json('print {dest, brickpost, dataset, datasetId, publisherKeyId, current, shipments, lock, inProgress, next}')],
    json: 'document',
    details:
      "Reads only: needs no key, takes no lock, and answers while another brickpost\nworks on DEST. While an ingest or rollback changes DEST, the file\nDEST/.brickpost/IN-PROGRESS exists and DEST may hold some entries of the old\ntree and some of the new one. If no brickpost is running, 'brickpost resume\nDEST' finishes it (so does any other brickpost command on DEST). Exit 0 when\nDEST is settled, 7 when a job is under way or interrupted. For s3://BUCKET/PREFIX\nthe marker is PREFIX/.brickpost/commit.json or rollback.json, and lock is null.",
    load: () => import('../commands/status.js'),
  },
  {
    name: 'resume',
    summary: 'finish an ingest or rollback of a destination that was interrupted',
    args: ['DEST-DIR'],
    min: 1,
    options: [...S3, json('print NDJSON events')],
    json: 'events',
    details:
      'Finishes what a crash, a kill or a full disk interrupted: the commit of an\ningest (DEST gets the new tree) or a rollback (down to the shipment it was\nasked for). Needs no drive; needs the key that ingested DEST (for\ns3://BUCKET/PREFIX, only the credentials). Nothing to do is not an error.',
    load: () => import('../commands/resume.js'),
  },
  {
    name: 'signature',
    summary: 'describe what a folder holds in a signed signature file, for the publisher',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'out', type: 'string', required: true, value: 'FILE', help: 'the signature file to write (FILE.minisig is written beside it)' },
      { name: 'dataset', type: 'string', value: 'NAME', help: 'the dataset the folder is a copy of (for a folder brickpost never wrote)' },
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      'Works on any folder, also one brickpost never wrote: every file is cut into\nchunks as pack cuts them and each chunk named by its SHA-256. A destination\nalso names its dataset and last applied shipment. Send FILE and FILE.minisig to\nthe publisher, who can then ship only what the folder lacks. Signed with your\nkey: the publisher must trust it.',
    load: () => import('../commands/signature.js'),
  },
  {
    name: 'receipt',
    summary: 'check a destination against its shipment and write a signed receipt',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'out', type: 'string', required: true, value: 'FILE', help: 'the receipt to write (FILE.minisig is written beside it)' },
      { name: 'deep', type: 'boolean', help: "also re-read every file and check each chunk's id (else: type, size, mtime)" },
      json('print NDJSON events; the summary holds the receipt'),
    ],
    json: 'events',
    details:
      "The receipt says which shipment DEST holds and whether DEST still matches it.\nIt is written either way; the exit code is 0 only when DEST matches (else that\nof the most serious problem). Send FILE and FILE.minisig to the publisher, who\nrecords it with 'brickpost receipt import FILE'.",
    load: () => import('../commands/receipt.js'),
  },
  {
    name: 'receipt import',
    summary: "record a subscriber's receipt (on the publisher)",
    args: ['FILE'],
    min: 1,
    options: [json('print {file, sha256, alreadyImported, subscriber, dataset, datasetId, shipment, seq, level, ok, problems, created}')],
    json: 'document',
    details:
      "FILE.minisig must be by a key you trust (brickpost trust add the subscriber's\nRW… key), and the receipt must be about a dataset you publish. Importing the\nsame receipt again changes nothing.",
    load: () => import('../commands/receipt.js'),
  },
  {
    name: 'rollback',
    summary: 'return a destination folder or bucket prefix to the tree of an earlier shipment',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'to', type: 'string', required: true, value: 'SHIPMENT-ID-or-SEQ', help: 'the applied shipment to return to' },
      ...S3,
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      'Undoes the shipments applied after the given one, newest first, from the undo\ndata in DEST/.brickpost (the last 3 shipments by default; see ingest\n--keep-undo and --keep-days, brickpost pin and prune). Any shipment history\nmarks "kept" can be returned to. Journaled like ingest: if interrupted,\n\'brickpost resume DEST\' (or any brickpost command on DEST) finishes it.\nDEST may be s3://BUCKET/PREFIX: the objects a shipment replaced or deleted\nare kept under PREFIX/.brickpost/undo/SEQ/ (ingest --keep-undo N; no pins,\nprune or --keep-days there) and copied back on the server.',
    load: () => import('../commands/rollback.js'),
  },
  {
    name: 'pin',
    summary: "name a point of a destination's history so pruning keeps rollback to it",
    args: ['DEST-DIR', 'SHIPMENT-ID-or-SEQ'],
    min: 2,
    options: [
      { name: 'name', type: 'string', required: true, value: 'NAME', help: 'the name of the point (unique in DEST)' },
      json('print {dest, pins: [{name, shipmentId, seq, at}], freedBytes}'),
    ],
    json: 'document',
    details:
      'A pinned shipment stays reachable by rollback and extract --at whatever the\nretention (ingest --keep-undo, --keep-days): the undo data of every shipment\nafter it is kept. prune --before refuses to remove it. Only a shipment rollback\ncan still reach can be pinned.',
    load: () => import('../commands/undo-points.js'),
  },
  {
    name: 'unpin',
    summary: 'remove a pin of a destination, then prune what is no longer kept',
    args: ['DEST-DIR', 'NAME-or-SEQ'],
    min: 2,
    options: [json('print {dest, pins: [{name, shipmentId, seq, at}], freedBytes}')],
    json: 'document',
    load: () => import('../commands/undo-points.js'),
  },
  {
    name: 'prune',
    summary: 'set how long a destination keeps undo data, and remove what it no longer keeps',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      ...RETENTION,
      {
        name: 'before',
        type: 'string',
        value: 'SEQ',
        help: 'also remove the undo data rollback needs to go back before shipment SEQ (refused when an older shipment is pinned)',
      },
      json('print {dest, retention: {keepUndo, keepAll, keepDays}, pins, removed: [{shipmentId, seq}], freedBytes, undoBytes}'),
    ],
    json: 'document',
    details: 'Every ingest prunes the same way; prune does it now, with the settings given\n(remembered by DEST). Pins are always kept.',
    load: () => import('../commands/undo-points.js'),
  },
];
