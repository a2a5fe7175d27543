/**
 * The command table. A command is a name (`pack`, or `trust add` inside the
 * `trust` group), its options and positional arguments, its help text, and a
 * loader for its module in this folder. Modules are imported only when their
 * command runs, so `brickpost --help` never loads the engine or native code.
 */
import type { CommandRun } from '../context.js';

/** One option of a command. */
export interface OptionSpec {
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** May be given several times; the value is then an array. */
  multiple?: boolean;
  /** Must be given at least once. */
  required?: boolean;
  /** Placeholder in help: `--to <DRIVE-DIR>`. */
  value?: string;
  help: string;
}

/** What a command prints with --json. */
export type JsonMode = 'document' | 'events' | 'entries' | 'none';

/** One runnable command. */
export interface CommandSpec {
  /** `pack`, `trust add`. */
  name: string;
  summary: string;
  /** Positional argument placeholders, in order; trailing ones after `min` are optional. */
  args: string[];
  /** How many positionals are required. */
  min: number;
  /** How many positionals are allowed, when more than `args` (the first one repeats). */
  max?: number;
  options: OptionSpec[];
  json: JsonMode;
  /** Further help paragraphs. */
  details?: string;
  load(): Promise<{ run: CommandRun }>;
}

const json = (what: string): OptionSpec => ({ name: 'json', type: 'boolean', help: what });
/** What ingest and extract apply of what a shipment recorded (README "What a shipment carries"). */
const APPLY: OptionSpec[] = [
  { name: 'outside-links', type: 'boolean', help: 'create symbolic links that point outside the target folder as they are (by default they are listed, not created)' },
  { name: 'same-permissions', type: 'boolean', help: 'permission bits as the source had them, without your umask (always so for root)' },
  { name: 'setid', type: 'boolean', help: 'keep setuid and setgid bits (root only)' },
  { name: 'owners', type: 'boolean', help: 'give entries the owner and group the source had, by name where it exists here, else by number (root only)' },
  { name: 'acls', type: 'boolean', help: 'apply the POSIX ACLs the source had' },
  { name: 'no-xattrs', type: 'boolean', help: 'do not apply the extended attributes (user.*) the source had' },
  { name: 'specials', type: 'boolean', help: 'create FIFOs and devices the source had (root only)' },
];
/** The limit on how far a shipment's data may expand (SECURITY.md "Bounded work for a small hostile drive"). */
const maxExpansion: OptionSpec = {
  name: 'max-expansion',
  type: 'string',
  value: 'N',
  help: "accept a shipment whose data expands up to N times its size on the drive (default 10000; 'none' for no limit); holes of sparse files do not count",
};
/** How to reach object storage (README "Object storage"); credentials only from the environment and ~/.aws. */
const S3: OptionSpec[] = [
  { name: 'endpoint-url', type: 'string', value: 'URL', help: 'the S3 service to use for s3:// URLs, for servers other than AWS (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL)' },
  { name: 'profile', type: 'string', value: 'NAME', help: 'the profile of ~/.aws/credentials and ~/.aws/config for s3:// URLs (default: $AWS_PROFILE, else default)' },
];
const shipment: OptionSpec = {
  name: 'shipment',
  type: 'string',
  value: 'ID',
  help: 'the shipment to use when the drive holds several',
};

/** Options every command accepts, anywhere on the command line. */
export const GLOBAL_OPTIONS: OptionSpec[] = [
  { name: 'home', type: 'string', value: 'DIR', help: 'folder of your keys and catalog (default: $BRICKPOST_HOME, else per-user)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'no progress and no informational messages' },
  { name: 'json', type: 'boolean', help: 'machine-readable output on stdout (see below)' },
  { name: 'help', short: 'h', type: 'boolean', help: 'show help (also: brickpost help [COMMAND])' },
  { name: 'version', type: 'boolean', help: 'print the version' },
];

/** Command groups: a name that prefixes subcommands; it may be a command of its own too (`receipt`). */
export const GROUPS: Record<string, string> = {
  trust: 'manage the publisher keys you trust',
  receipt: "tell a publisher what a destination holds, and record subscribers' receipts",
  catalog: "this home's catalog (its SQLite database)",
  journal: "a destination's journal (DEST/.brickpost/journal.sqlite)",
};

/** Every command, in the order help lists them. */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'keygen',
    summary: 'create your identity (age key pair and minisign signing key)',
    args: [],
    min: 0,
    options: [
      { name: 'name', type: 'string', value: 'NAME', help: 'a name for you, shown to the people you send drives to' },
      { name: 'force', type: 'boolean', help: 'replace an existing identity (the old keys are lost)' },
      json('print the new identity as a JSON document'),
    ],
    json: 'document',
    details: 'Share the printed recipient (age1…) with publishers who send you data, and the\nminisign public key (RW…) with subscribers who receive your drives.',
    load: () => import('./keygen.js'),
  },
  {
    name: 'whoami',
    summary: 'show your recipient, public key and key files',
    args: [],
    min: 0,
    options: [
      { name: 'contact', type: 'boolean', help: 'only what others need to trust you: name, recipient, public key, key id (no local paths)' },
      json('print {recipient, minisignPublicKey, keyId, identityFile, minisignPublicKeyFile, name, home} (with --contact: the first three and name)'),
    ],
    json: 'document',
    details: "Send 'brickpost whoami --contact' to the people you exchange drives with:\n'brickpost trust add' takes it as it is (a file, or - for standard input) and\nrecords both your signing key and your recipient.",
    load: () => import('./whoami.js'),
  },
  {
    name: 'trust add',
    summary: "trust a publisher's or subscriber's public key (and record their recipient)",
    args: ['KEY-or-FILE'],
    min: 1,
    options: [
      { name: 'name', type: 'string', value: 'NAME', help: 'a name for them (default: the name in the pasted text, else key-ID)' },
      { name: 'recipient', type: 'string', value: 'AGE1-KEY', help: "their age recipient (age1…), so 'pack --recipient NAME' encrypts to them" },
      json('print the trusted key as a JSON document'),
    ],
    json: 'document',
    details:
      "KEY is a minisign public key line (RW…), a file holding one such as\nminisign.pub, the text 'brickpost whoami' prints (saved to a file, or - to read\nstandard input), or any text with one RW… key and one age1… recipient as\nwords of their own: the recipient is then recorded too. An existing file is\nread. Adding a key trusted already updates its name or recipient.",
    load: () => import('./trust.js'),
  },
  {
    name: 'trust list',
    summary: 'list trusted keys and their recipients',
    args: [],
    min: 0,
    options: [json('print a JSON array of trusted keys')],
    json: 'document',
    load: () => import('./trust.js'),
  },
  {
    name: 'trust remove',
    summary: 'stop trusting a publisher key',
    args: ['NAME-or-KEYID'],
    min: 1,
    options: [json('print the removed key as a JSON document')],
    json: 'document',
    load: () => import('./trust.js'),
  },
  {
    name: 'pack',
    summary: 'pack a folder into a signed, encrypted shipment on a drive',
    args: ['SOURCE-DIR'],
    min: 1,
    options: [
      { name: 'to', type: 'string', multiple: true, required: true, value: 'DRIVE-DIR', help: 'the drive (folder) to write to; repeatable' },
      { name: 'recipient', short: 'r', type: 'string', multiple: true, value: 'KEY-or-FILE', help: 'an age recipient (age1…), a file of them one per line, or the name or key id of a trusted key with a recipient; repeatable' },
      { name: 'no-self', type: 'boolean', help: 'do not encrypt to your own key as well' },
      { name: 'dataset', type: 'string', value: 'NAME', help: "dataset name (default: the source folder's name)" },
      { name: 'label', type: 'string', value: 'TEXT', help: 'a label for this shipment, e.g. "2026-01 monthly"' },
      { name: 'level', type: 'string', value: 'N', help: 'zstd compression level, 1 to 19 (default 3)' },
      { name: 'full', type: 'boolean', help: 'ship every chunk (a self-contained shipment), even to recipients holding an earlier one' },
      { name: 'rehash', type: 'boolean', help: 'read every file, even those whose size, times and inode say they are unchanged' },
      { name: 'against', type: 'string', value: 'FILE', help: "ship what a subscriber's signature or request file (signed, FILE.minisig beside it) lacks" },
      { name: 'parity', type: 'string', value: 'M', help: 'parity drives of a set: any M drives may be lost (default 1 for 3 or more drives, else 0)' },
      { name: 'recovery', type: 'string', value: 'PCT', help: 'recovery data on each drive, percent of its payload, to repair bad sectors in place (default 2, 0 for none)' },
      { name: 'drive-size', type: 'string', value: 'SIZE', help: 'use at most SIZE of each drive (e.g. 500G, 4T)' },
      { name: 'resume', type: 'boolean', help: "continue this dataset's interrupted shipment, keeping the packs already written" },
      { name: 'expires', type: 'string', value: 'DURATION', help: 'subscribers refuse the shipment this long after packing (e.g. 90d, 12w; signed in bag-info; default never)' },
      { name: 'exclude', type: 'string', multiple: true, value: 'PATTERN', help: "leave out entries matching PATTERN ('*.tmp', 'build/', '/top-only'; restic's and rsync's rules); repeatable" },
      { name: 'exclude-from', type: 'string', multiple: true, value: 'FILE', help: 'leave out entries matching the patterns in FILE, one per line (# comments); repeatable' },
      { name: 'exclude-caches', type: 'boolean', help: 'leave out folders holding a CACHEDIR.TAG file' },
      { name: 'strict', type: 'boolean', help: 'fail (exit 5, nothing shipped) when anything but what you excluded cannot be shipped' },
      { name: 'portable', type: 'boolean', help: 'refuse names not every system can hold (case or Unicode-form twins, Windows-reserved names and characters, names not UTF-8)' },
      ...S3,
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      'Several --to drives make a drive set, written at the same time: the packs are\nspread over the first N-M drives, the last M hold Reed-Solomon parity, so any M\ndrives may be lost. Every drive is a signed bag of its own.\n\nThe shipment is always encrypted to your own key too, unless --no-self; with\nit, at least one --recipient is needed. Recipient files use the format of\n`age -R`: one recipient per line, # comments and blank lines ignored. A value\nthat is neither a recipient nor an existing file is looked up in the trust\nstore by name or key id (`brickpost trust list` shows the recipients).\n\nA dataset shipped before is packed incrementally: the shipment carries only\nwhat the recipients lack (by their receipts, else the last shipment each was\nsent), changed parts of files as deltas, and files unchanged since the last\nshipment are not read again. A recipient that never received the dataset gets\na self-contained shipment.\n\nSOURCE-DIR may be s3://BUCKET/PREFIX: the objects under it are packed as files\n(README "Object storage"; credentials as AWS tools take them).',
    load: () => import('./pack.js'),
  },
  {
    name: 'verify',
    summary: 'check a shipment on a drive: complete, intact, signed by a trusted key',
    args: ['DRIVE-DIR'],
    min: 1,
    options: [
      { name: 'deep', type: 'boolean', help: 'also decrypt, decompress and re-hash every chunk (needs your identity)' },
      { name: 'drive', type: 'string', multiple: true, value: 'DRIVE-DIR', help: 'another drive of the same set (drives mounted next to DRIVE-DIR are found without it); repeatable' },
      shipment,
      { ...maxExpansion, help: `with --deep: ${maxExpansion.help}` },
      json('print NDJSON events; the summary holds the full report'),
    ],
    json: 'events',
    details:
      'Exits 0 only when the shipment verifies. Otherwise every problem is printed\nand the exit code is that of the most serious one: authenticity (3), then\nunsafe (4), then integrity (1).',
    load: () => import('./verify.js'),
  },
  {
    name: 'ingest',
    summary: 'verify a shipment and apply it to a destination folder',
    args: ['DRIVE-DIR', 'DEST-DIR'],
    min: 2,
    max: 257,
    options: [
      shipment,
      { name: 'gather', type: 'boolean', help: 'for a drive set with one drive at a time: keep a copy of the drives given in DEST until enough are in' },
      { name: 'allow-older', type: 'boolean', help: 'ingest a shipment older than one this home applied of the dataset to another destination (refused by default)' },
      { name: 'allow-expired', type: 'boolean', help: 'ingest a shipment past the expiry its publisher signed (refused by default, exit 6)' },
      { name: 'skip-damaged', type: 'boolean', help: 'ingest the intact files of a damaged drive and list the others in DEST/.brickpost/skipped/ (default: refuse)' },
      { name: 'windows-names', type: 'boolean', help: 'refuse names Windows cannot create (CON, nul.txt, a trailing dot or space, < > : " | ? *) on any destination (always on Windows and on FAT, exFAT and NTFS)' },
      { name: 'request-out', type: 'string', value: 'FILE', help: 'where to write the request file if the shipment is refused for missing data (default DEST/.brickpost/requests/ID.bpsig)' },
      { name: 'keep-undo', type: 'string', value: 'N', help: 'how many shipments stay undoable by rollback (default 3, 0 keeps none); remembered by DEST' },
      maxExpansion,
      ...APPLY,
      ...S3,
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      'Give every drive of a drive set you have before DEST (any N-M of them): packs\nof missing drives are rebuilt from the parity. With one drive slot, run ingest\n--gather once per drive: each run copies its drive into DEST/.brickpost, and the\nrun that completes the set ingests.\n\nDEST becomes the shipment\'s tree. A first, self-contained shipment needs an empty\nfolder; a later one applies on top of what DEST holds: unchanged files are left\nin place, changed files are rebuilt from the drive, from DEST\'s own data and\nfrom deltas, moved files are moved, deleted files are deleted. Shipments apply\nin order: a replayed, skipped (gap) or forked shipment is refused (exit 6).\nIf DEST lacks data the shipment builds on (a file edited locally), nothing is\nchanged, and a request file is written for the publisher to pack --against.\nReplaced and deleted files stay in DEST/.brickpost/undo for rollback. A commit\ninterrupted by a crash is finished by \'brickpost resume DEST\', or by any\nbrickpost command on DEST.\n\nDEST may be s3://BUCKET/PREFIX: the files are uploaded as objects, staged and then\nput in place (README "Object storage").',
    load: () => import('./ingest.js'),
  },
  {
    name: 'ls',
    summary: 'list the files of a shipment on a drive',
    args: ['DRIVE-DIR'],
    min: 1,
    options: [
      shipment,
      { name: 'long', short: 'l', type: 'boolean', help: 'also the owner, link targets, hard links and devices: `ls -l` style' },
      json('print NDJSON: one JSON object per entry, one per line'),
    ],
    json: 'entries',
    details:
      'Text output: one line per entry, `MODE  SIZE  YYYY-MM-DD hh:mm  PATH`, times in\nUTC; unusual names are shown JSON-quoted, bytes of names that are not UTF-8 as\n\\xNN. --long adds the owner and `-> TARGET` for a symbolic link, `=> FILE` for\na hard link. --json prints NDJSON (one entry per line: {type, path, size, mode,\nmtimeNs, and target, to, kind, dev, sparse, owner where they apply}) so huge\nlistings stream; an error ends the stream with an error event.',
    load: () => import('./ls.js'),
  },
  {
    name: 'extract',
    summary: 'take files or folders off a drive into a folder, without ingesting the shipment',
    args: ['DRIVE-DIR', '[PATH...]'],
    min: 1,
    max: 100000,
    options: [
      { name: 'to', type: 'string', required: true, value: 'DIR', help: 'the folder to write into (created when absent; nothing in it is replaced)' },
      shipment,
      { name: 'drive', type: 'string', multiple: true, value: 'DRIVE-DIR', help: 'another drive of the same set (a missing data drive is rebuilt from the parity); repeatable' },
      maxExpansion,
      ...APPLY,
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      "PATH is relative to the shipment's root, as 'brickpost ls' prints it (\\xNN for a\nbyte of a name that is not UTF-8); a folder takes everything below it; no PATH\ntakes the whole shipment. Entries keep their paths under DIR. Only the chunks of\nthe files taken are read, each checked against its id. Nothing is written until\nevery PATH is found and nothing is in the way in DIR. A file of an incremental\nshipment that reuses data the drive does not carry cannot be extracted (exit 6).",
    load: () => import('./extract.js'),
  },
  {
    name: 'cat',
    summary: "write one file of a shipment to standard output",
    args: ['DRIVE-DIR', 'PATH'],
    min: 2,
    max: 2,
    options: [
      shipment,
      { name: 'drive', type: 'string', multiple: true, value: 'DRIVE-DIR', help: 'another drive of the same set; repeatable' },
      maxExpansion,
    ],
    json: 'none',
    details: "PATH as 'brickpost ls' prints it. Holes of a sparse file come out as zeros. Only\nthe file's chunks are read, each checked against its id.",
    load: () => import('./cat.js'),
  },
  {
    name: 'history',
    summary: 'list the shipments applied to a destination folder',
    args: ['DEST-DIR'],
    min: 1,
    options: [...S3, json('print {dest, dataset, datasetId, publisherKeyId, keepUndo, shipments: [{shipmentId, seq, parent, label, appliedAt, files, bytes, bytesFromDrive, undoable}], inProgress}')],
    json: 'document',
    details: 'Reads the destination\'s state folder (DEST/.brickpost); needs no key and changes\nnothing. A shipment marked "undoable" can be rolled back (rollback --to the one\nbefore it). An ingest or rollback under way or interrupted is named after the\nlist (see \'brickpost status\').',
    load: () => import('./history.js'),
  },
  {
    name: 'status',
    summary: 'say what a destination holds and whether an ingest or rollback is under way or interrupted',
    args: ['DEST-DIR'],
    min: 1,
    options: [json('print {dest, brickpost, dataset, datasetId, publisherKeyId, current, shipments, lock, inProgress, next}')],
    json: 'document',
    details:
      "Reads only: needs no key, takes no lock, and answers while another brickpost\nworks on DEST. While an ingest or rollback changes DEST, the file\nDEST/.brickpost/IN-PROGRESS exists and DEST may hold some entries of the old\ntree and some of the new one. If no brickpost is running, 'brickpost resume\nDEST' finishes it (so does any other brickpost command on DEST). Exit 0 when\nDEST is settled, 7 when a job is under way or interrupted.",
    load: () => import('./status.js'),
  },
  {
    name: 'resume',
    summary: 'finish an ingest or rollback of a destination that was interrupted',
    args: ['DEST-DIR'],
    min: 1,
    options: [json('print NDJSON events')],
    json: 'events',
    details:
      'Finishes what a crash, a kill or a full disk interrupted: the commit of an\ningest (DEST gets the new tree) or a rollback (down to the shipment it was\nasked for). Needs no drive; needs the key that ingested DEST. Nothing to do\nis not an error.',
    load: () => import('./resume.js'),
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
    load: () => import('./signature.js'),
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
    load: () => import('./receipt.js'),
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
    load: () => import('./receipt.js'),
  },
  {
    name: 'rollback',
    summary: 'return a destination folder to the tree of an earlier shipment',
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'to', type: 'string', required: true, value: 'SHIPMENT-ID-or-SEQ', help: 'the applied shipment to return to' },
      json('print NDJSON events'),
    ],
    json: 'events',
    details:
      'Undoes the shipments applied after the given one, newest first, from the undo\narea in DEST/.brickpost (the last 3 shipments by default; see ingest\n--keep-undo). Journaled like ingest: if interrupted, \'brickpost resume DEST\'\n(or any brickpost command on DEST) finishes it.',
    load: () => import('./rollback.js'),
  },
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
    load: () => import('./repair.js'),
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
    load: () => import('./report.js'),
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
    load: () => import('./label.js'),
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
    load: () => import('./custody.js'),
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
    load: () => import('./wipe.js'),
  },
  {
    name: 'plan',
    summary: 'ship drives or send over the network? times, cross-over size and a recommendation',
    args: ['SIZE'],
    min: 1,
    options: [
      { name: 'link', type: 'string', value: 'RATE', help: 'network bandwidth, e.g. 100Mbit, 1Gbit/s, 10Gbps (default 100Mbit)' },
      { name: 'rtt', type: 'string', value: 'TIME', help: 'round-trip time, e.g. 80ms (default 80ms)' },
      { name: 'window', type: 'string', value: 'SIZE', help: 'TCP window of each stream, e.g. 64KiB (default 4MiB)' },
      { name: 'streams', type: 'string', value: 'N', help: 'parallel TCP streams (default 4)' },
      { name: 'drive-speed', type: 'string', value: 'RATE', help: 'write and read speed of one drive, e.g. 200MB/s (default: measured by your recent packs, else 200MB/s)' },
      { name: 'drives', type: 'string', value: 'N', help: 'drives written and read in parallel (default 1)' },
      { name: 'courier', type: 'string', value: 'TIME', help: 'door-to-door courier time, e.g. 24h, 2d (default 24h)' },
      { name: 'drive-cost', type: 'string', value: 'AMOUNT', help: 'price of one drive, for the cost of shipping' },
      { name: 'courier-cost', type: 'string', value: 'AMOUNT', help: 'price of the courier, for the cost of shipping' },
      { name: 'network-cost-per-tb', type: 'string', value: 'AMOUNT', help: 'network transfer price per TB, for the cost of sending' },
      json('print {choice, networkSeconds, shipSeconds, recommendation, inputs, bound, crossoverBytes, curve, …}'),
    ],
    json: 'document',
    details:
      'SIZE like 10TB, 1.5TiB, 500GB: decimal units are SI (TB = 10^12 bytes), binary\nones IEC (TiB = 2^40); a bare 500G is binary. Network time is SIZE over the\nthroughput of the streams: each moves B / (1 + R*B/D) for link B, round trip R\nand window D, all together at most B. Ship time is writing the drives in\nparallel, the courier, and reading them in parallel.',
    load: () => import('./plan.js'),
  },
  {
    name: 'catalog recover',
    summary: "recover this home's damaged catalog: keep what can be read, rebuild the rest",
    args: [],
    min: 0,
    options: [
      { name: 'dest', type: 'string', multiple: true, value: 'DEST-DIR', help: 'a destination this home ingested into: its state rebuilds the records of those ingests; repeatable' },
      { name: 'drive', type: 'string', multiple: true, value: 'DRIVE-DIR', help: 'a drive with shipments you packed or handled: rebuilds their records and custody logs; repeatable' },
      { name: 'name', type: 'string', value: 'NAME', help: 'your display name, when the catalog lost it' },
      { name: 'force', type: 'boolean', help: 'set the catalog aside and rebuild it even when it checks out intact' },
      json('print {file, intact, setAside, kept: [{table, kept, lost, error}], rebuilt: [{what, from}], lost: [{what, meaning}]}'),
    ],
    json: 'document',
    details:
      "For a catalog brickpost reports as damaged (exit 5, DATABASE_DAMAGED). The\ndamaged file is set aside, never deleted (catalog.sqlite.damaged-TIME, with its\n-wal and -shm files), a new catalog is made, and every row that can still be\nread is copied into it, table by table. Then your key files give back your own\ntrusted key, each destination (--dest, and those the old catalog still names)\nthe records of what was ingested into it with its dataset's key, and each\ndrive (--drive) the shipments you packed on it and its custody logs. The\nsummary lists what was kept, what was rebuilt and from what, and what was lost\nand what that means (other keys you trusted: trust them again; receipts:\nimport them again). An intact catalog is not set aside: what --dest, --drive\nand --name give is added to it.",
    load: () => import('./recover.js'),
  },
  {
    name: 'journal recover',
    summary: "recover a destination's damaged journal: keep what can be read",
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'force', type: 'boolean', help: 'set the journal aside and rebuild it even when it checks out intact' },
      json('print {file, intact, setAside, kept, rebuilt, lost, pending}'),
    ],
    json: 'document',
    details:
      "For a journal brickpost reports as damaged (exit 5, DATABASE_DAMAGED). The\ndestination's files and state are not touched. The damaged journal is set\naside (journal.sqlite.damaged-TIME), a new one is made, and what can still be\nread is kept: a commit or rollback in progress (only with all of its steps:\nthe next ingest or rollback finishes it) and the steps of applied shipments.\nWhere steps are lost, rollback can no longer go back past those shipments\n(their replaced files stay in DEST/.brickpost/undo); ingesting goes on as\nbefore. The summary says what was kept and lost, and whether a commit or\nrollback was in progress.",
    load: () => import('./recover.js'),
  },
  {
    name: 'ui',
    summary: 'open the desktop app in your browser (served on 127.0.0.1 only)',
    args: [],
    min: 0,
    options: [
      { name: 'port', type: 'string', value: 'N', help: 'the port to listen on (default: a free one)' },
      { name: 'no-open', type: 'boolean', help: 'do not start a browser; only print the link' },
      json('print {url, port, token}'),
    ],
    json: 'document',
    details:
      "Prints a link with a random access token: open it in a browser on this\nmachine. Every request without the token (or the cookie the first page load\nsets) is refused, the page included. A browser is started when there is a\ndisplay and a terminal, unless --no-open or --json. Runs until Ctrl-C.",
    load: () => import('./ui.js'),
  },
];

/** The command with this name (`pack`, `trust add`), if any. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The subcommands of a group, e.g. `trust` → trust add, trust list, trust remove. */
export function groupCommands(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.name.startsWith(group + ' '));
}
