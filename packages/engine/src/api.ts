/**
 * The engine's API contract: option and result types, and the events long
 * jobs emit. Both front ends (CLI and desktop) speak only this. No Node
 * imports here, so the desktop renderer can import it.
 */
export { BrickpostError, EXIT_CODES, ERROR_CODES, isBrickpostError, quote } from '@brickpost/manifest/errors';
export type { ErrorCode, Category } from '@brickpost/manifest/errors';
export { bugBehind, isSystemError, toEnvironmentError } from './io/errors.js';
export type { EnvironmentOptions, Place } from './io/errors.js';
export { sqliteErrorCode } from './io/sqlite-codes.js';
export type * from './api-verify.js';
export type * from './api-plan.js';
export { computePlan, PLAN_DEFAULTS } from './plan/plan.js';
export { humanBitRate, humanByteRate, humanDuration, humanSize, parseAmount, parseBitRate, parseByteRate, parseDuration, parseSize } from './plan/units.js';
export type * from './api-custody.js';
export type * from './api-report.js';
export type * from './api-dest.js';
export { inProgressLines } from './api-dest.js';
export { CLOCK_SKEW_MS, describeCreated, type CreatedNote } from './verify/created.js';
export type * from './api-recover.js';
export { renderReportHtml } from './report/html.js';
export { renderLabelsHtml } from './report/label-html.js';
export { REPORT_SCHEMA } from './report/schema.js';
import type { VerifyProblem } from './api-verify.js';

/** A progress report of a long job; emitted at most a few times a second. */
export interface ProgressEvent {
  type: 'progress';
  /** What the job is doing now: 'scan', 'pack', 'seal', 'verify', 'ingest', 'commit'. */
  phase: string;
  bytesDone: number;
  /** Unknown while scanning. */
  bytesTotal?: number;
  filesDone: number;
  filesTotal?: number;
  /** Bytes per second over the last few seconds. */
  rate: number;
  /** Seconds left at the current rate, when bytesTotal is known. */
  etaSeconds?: number;
  /** The drive this event is about, for jobs over several drives. */
  drive?: string;
}

/** Something the user should know that does not stop the job. */
export interface WarningEvent {
  type: 'warning';
  code: string;
  message: string;
  path?: string;
}

/** The result of a long job, last event on success. */
export interface SummaryEvent<T = Record<string, unknown>> {
  type: 'summary';
  command: string;
  result: T;
}

/** How a failed job ended; last event on failure. */
export interface ErrorEvent {
  type: 'error';
  code: string;
  exitCode: number;
  message: string;
  hint?: string;
  path?: string;
}

/** Every event of a long job as `--json` prints it, one per NDJSON line: progress and warnings, then a summary or an error. */
export type EngineEvent = ProgressEvent | WarningEvent | SummaryEvent | ErrorEvent;
/** Receives events of a long job. Must not throw. */
export type EventSink = (event: ProgressEvent | WarningEvent) => void;

export interface WhoAmI {
  name: string;
  /** age X25519 recipient, `age1…`. */
  recipient: string;
  /** minisign public key line, `RW…`. */
  minisignPublicKey: string;
  /** minisign key id, 16 upper-case hex digits. */
  keyId: string;
  identityFile: string;
  minisignPublicKeyFile: string;
  home: string;
}

export interface TrustedKey {
  name: string;
  keyId: string;
  minisignPublicKey: string;
  /** The party's age recipient (`age1…`), to pack for them by name; null when not known. */
  recipient: string | null;
  addedAt: string;
  /** True for this home's own key. */
  self: boolean;
}

export interface PackOptions {
  source: string;
  /** Drive roots; the shipment goes under DRIVE/brickpost/. Several make a drive set. */
  drives: string[];
  /** Parity drives of a set, m (FORMAT.md §drive-sets). Default 1 for three or more drives, else 0. */
  parity?: number;
  /** Recovery data on each drive, percent of its payload (integer 0–100, default 2). */
  recovery?: number;
  /** Bytes each drive may take at most (besides its free space). */
  driveSize?: number;
  /** Continue the interrupted shipment of this dataset instead of starting one. */
  resume?: boolean;
  /** age recipients (`age1…`). */
  recipients: string[];
  /** Do not add the publisher's own recipient. */
  noSelf?: boolean;
  /** Dataset name; defaults to the source folder's base name. */
  dataset?: string;
  label?: string;
  /** zstd level, default 3. */
  level?: number;
  /** A self-contained shipment (no bases), even when the recipients hold an earlier one. */
  full?: boolean;
  /** Read every file, even those the stat cache says are unchanged. */
  rehash?: boolean;
  /** Build against this signature or request file (a subscriber's): its chunks are held, there are no bases. */
  against?: string;
  /** Seconds after packing at which subscribers refuse the shipment (signed Brickpost-Expires); default never. */
  expiresIn?: number;
  /** Patterns of entries to leave out (README "What a shipment carries": restic's and rsync's rules). */
  exclude?: string[];
  /** Files of such patterns, one per line (# comments and blank lines ignored). */
  excludeFrom?: string[];
  /** Leave out folders tagged as caches (CACHEDIR.TAG). */
  excludeCaches?: boolean;
  /** Fail (SOURCE_INCOMPLETE) when anything of the source was not shipped, other than what was excluded on purpose. */
  strict?: boolean;
  /** Refuse (UNSAFE_PATH) names some systems cannot hold: names differing only in case or Unicode form, Windows' reserved names and characters, names that are not UTF-8 or not NFC. */
  portable?: boolean;
}

/** What a shipment carries of a source tree, and what it left out. */
export interface PackEntryCounts {
  files: number;
  dirs: number;
  /** Symbolic links. */
  links: number;
  /** Further names of files with several hard links (each shipped once). */
  hardLinks: number;
  /** FIFOs, sockets and devices (recorded; created at ingest only on request). */
  specials: number;
  /** Files with holes, and the bytes of their holes (neither read nor stored). */
  sparseFiles: number;
  holeBytes: number;
  /** Entries with extended attributes, with ACLs. */
  withXattrs: number;
  withAcls: number;
  /** Entries left out on purpose (--exclude, --exclude-from) and cache folders (--exclude-caches). */
  excluded: number;
  /** Entries not shipped for another reason, by reason (`vanished while scanning`, `cannot be read (permission denied)`…). */
  notShipped: Record<string, number>;
}

export interface PackSummary {
  shipmentId: string;
  dataset: string;
  datasetId: string;
  seq: number;
  parent: string | null;
  files: number;
  dirs: number;
  bytesIn: number;
  bytesOnDrive: number;
  chunks: number;
  chunksDeduplicated: number;
  packs: number;
  recipients: string[];
  /** The bag folder (of the first drive, for a set). */
  path: string;
  /** Every drive's bag folder, in set order; data drives first. */
  paths: string[];
  /** Parity drives of the set (0 for one drive). */
  parity: number;
  /** Recovery percent on each drive. */
  recovery: number;
  /** The run continued an interrupted one; packs it kept were not rewritten. */
  packsKept: number;
  seconds: number;
  warnings: number;
  /** Self-contained: no bases and no `against`. */
  full: boolean;
  /** The shipments this one is relative to (FORMAT.md §10.4), oldest first. */
  bases: Array<{ shipmentId: string; seq: number }>;
  /** SHA-256 of the signature or request file it was built against, or null. */
  against: string | null;
  /** Files read from the source, and their bytes (bytesIn counts every file's bytes, read or not). */
  filesRead: number;
  bytesRead: number;
  /** Files the stat cache found unchanged, shipped as held refs without being read. */
  filesUnchanged: number;
  /** Held refs: chunks the recipients already hold, not on the drive. */
  chunksHeld: number;
  bytesHeld: number;
  /** Chunks carried as deltas against their file's basis, and their bytes (as chunks). */
  chunksDelta: number;
  bytesDelta: number;
  /** Bytes of the delta frames on the drive (before encryption). */
  deltaFrameBytes: number;
  /** Why the shipment is self-contained, or how recipients at different states were served. */
  notes: string[];
  /** What the shipment carries of the source, and what it left out. */
  entries: PackEntryCounts;
}

export interface IngestOptions {
  drive: string;
  /** More drives of the same drive set (any k of the N drives make the shipment). */
  drives?: string[];
  /** With a drive set short of drives: copy the given drives into DEST/.brickpost/gather/ to be used with the next drives. */
  gather?: boolean;
  /** Ingest the files whose data is intact and leave out (and list) those with damaged chunks; default refuses. */
  skipDamaged?: boolean;
  /** Accept a shipment older than one this home applied of the dataset elsewhere (refused by default: a rollback). */
  allowOlder?: boolean;
  /** Accept a shipment past its signed expiry time (Brickpost-Expires; refused by default with EXPIRED). */
  allowExpired?: boolean;
  dest: string;
  shipment?: string;
  /** Where to write the request file when the shipment is refused for missing basis data (default DEST/.brickpost/requests/ID.bpsig). */
  requestOut?: string;
  /** How many applied shipments keep their undo area (rollback reach); 0 keeps none. Remembered by DEST. Default 3. */
  keepUndo?: number;
  /** Apply the Windows name rules (refuse reserved device names, a trailing dot or space, `< > : " | ? *`) to any destination; they always apply on Windows and on FAT, exFAT and NTFS. */
  windowsNames?: boolean;
  /** Permission bits as the source had them, without the umask (always so for root). */
  samePermissions?: boolean;
  /** Keep setuid and setgid bits (root only). */
  setid?: boolean;
  /** Give entries the owner and group the source had: by name where the name exists here, else by number (root only). */
  owners?: boolean;
  /** Apply the POSIX ACLs the source had. */
  acls?: boolean;
  /** Do not apply user extended attributes (applied by default). */
  noXattrs?: boolean;
  /** Create FIFOs and devices (root only); sockets are never created (a socket is made by the program that listens on it). */
  specials?: boolean;
  /** Create symbolic links whose target lies outside DEST (absolute, or escaping with ..) as they are; by default they are listed, not created. */
  outsideLinks?: boolean;
  /** How many times its size on the drive the shipment's data may expand (holes and the destination's own data do not count); default 10000, 'none' for no limit. Refused past it with LIMIT_EXCEEDED. */
  maxExpansion?: number | 'none';
}

export interface IngestSummary {
  shipmentId: string;
  dataset: string;
  seq: number;
  /** When the publisher packed it (Brickpost-Created, signed; ISO 8601). */
  created: string;
  dest: string;
  files: number;
  dirs: number;
  bytesWritten: number;
  /** True when the shipment was already applied and nothing was done. */
  alreadyApplied: boolean;
  /** The shipment builds on what DEST held (bases or against). */
  incremental: boolean;
  /** Files left in place: same content as before. */
  filesUnchanged: number;
  /** Files written from the drive, DEST's own chunks and deltas. */
  filesWritten: number;
  /** Files moved or renamed by the publisher, copied from DEST's old copy (reflinked where the file system can), not read from the drive; never hard links. */
  filesLinked: number;
  /** Entries moved to the undo area: replaced, deleted, or not part of the shipment. */
  retired: number;
  bytesFromDrive: number;
  /** Bytes of held chunks copied from DEST's own files. */
  bytesReused: number;
  chunksFromDelta: number;
  /** Files left out by --skip-damaged (their data on the drive is damaged). */
  skipped: number;
  /** The list of them (DEST/.brickpost/skipped/ID.txt, one JSON string per line), or null. */
  skippedList: string | null;
  /** Shipments on the drive that apply after this one, oldest first (run ingest again for each); empty when none or a shipment was named. */
  laterOnDrive: Array<{ shipmentId: string; seq: number; label: string }>;
  /** The shipment's entries by kind (v2 carries links, hard links and special files). */
  links: number;
  hardLinks: number;
  specials: number;
  /** What the shipment recorded but this ingest did not apply, by reason (`link outside DEST`, `owner`, `setuid/setgid bits`…). */
  notApplied: Record<string, number>;
  /** The list of them (DEST/.brickpost/not-applied/ID.txt, one JSON object per line), or null. */
  notAppliedList: string | null;
  /** What ingest found the destination's file system can hold apart. */
  destination: { caseInsensitive: boolean; normalizationInsensitive: boolean; windowsNames: boolean };
  seconds: number;
  warnings: number;
}

/** What to take off a drive with Engine.extract; the apply options are ingest's. */
export interface ExtractOptions extends Pick<IngestOptions, 'samePermissions' | 'setid' | 'owners' | 'acls' | 'noXattrs' | 'specials' | 'outsideLinks' | 'maxExpansion'> {
  drive: string;
  /** More drives of the same drive set. */
  drives?: string[];
  shipment?: string;
  /** Paths relative to the shipment's root (a folder takes what is below it; `\xNN` for a byte of a name that is not UTF-8); none takes everything. */
  paths: string[];
  /** The folder to write into (created when absent); nothing in it is replaced. */
  to: string;
}

export interface ExtractSummary {
  shipmentId: string;
  /** The folder written into. */
  to: string;
  files: number;
  dirs: number;
  links: number;
  hardLinks: number;
  specials: number;
  bytesWritten: number;
  /** What the shipment recorded but extract did not create or apply, by reason (as IngestSummary.notApplied). */
  notApplied: Record<string, number>;
  seconds: number;
}

/** What to write out with Engine.cat: one file of a shipment. */
export interface CatOptions extends Pick<IngestOptions, 'maxExpansion'> {
  drive: string;
  drives?: string[];
  shipment?: string;
  /** The file's path relative to the shipment's root (a hard link names its file; `\xNN` for a byte that is not UTF-8). */
  path: string;
}

export interface RollbackOptions {
  dest: string;
  /** Shipment id or sequence number of an applied shipment to return to. */
  to: string;
}

export interface RollbackSummary {
  dest: string;
  from: { shipmentId: string; seq: number };
  to: { shipmentId: string; seq: number };
  /** The shipments undone, newest first. */
  undone: Array<{ shipmentId: string; seq: number }>;
  seconds: number;
}

/**
 * A shipment on a drive as its bag-info.txt describes it: for listing and
 * choosing, not verified (fields are null when bag-info cannot be read).
 */
export interface DriveShipment {
  id: string;
  /** The bag folder. */
  dir: string;
  seq: number | null;
  dataset: string | null;
  datasetId: string | null;
  label: string | null;
  parent: string | null;
  created: string | null;
  /** This drive's number in its set, and the set's size (1 and 1 for one drive). */
  drive: number | null;
  drives: number | null;
}

/** Which shipment of a drive `ingest` applies next to a destination, and why. */
export interface ShipmentChoice {
  chosen: DriveShipment;
  /** Why this one, in words (`the next after #3 applied to DEST`). */
  reason: string;
  /** Shipments on the drive that apply after it, oldest first. */
  later: DriveShipment[];
}

export interface ListEntry {
  /** A folder, a file, a symbolic link, a further name of a hard-linked file, or a FIFO, socket or device. */
  type: 'file' | 'dir' | 'link' | 'hard' | 'special';
  /** The path; a name that is not UTF-8 holds its bytes 0x80–0xFF as U+DC80–U+DCFF (README "Names"). */
  path: string;
  size: number;
  /** Permission bits as the source had them (0 for a hard link, which shares its file's). */
  mode: number;
  /** Modification time, nanoseconds since the epoch, as a decimal string. */
  mtimeNs: string;
  /** A symbolic link's target. */
  target?: string;
  /** A hard link: the path of the file it is another name of. */
  to?: string;
  /** A special file's kind, and a device's [major, minor]. */
  kind?: 'fifo' | 'socket' | 'char' | 'block';
  dev?: [number, number];
  /** A file with holes. */
  sparse?: boolean;
  owner?: { uid: number; gid: number; user: string | null; group: string | null };
}

/** One shipment applied to a destination. */
export interface AppliedShipmentInfo {
  shipmentId: string;
  seq: number;
  label: string;
  appliedAt: string;
  files: number;
  bytes: number;
  /** Bytes read from the drive for this shipment (the rest came from DEST). */
  bytesFromDrive: number | null;
  parent: string | null;
  /** Rollback can return to the state before this shipment (its undo area is kept). */
  undoable: boolean;
}

/** What a destination holds: its dataset and the shipments applied, oldest first. */
import type { DestInProgress } from './api-dest.js';

export interface DestHistory {
  dest: string;
  dataset: string;
  datasetId: string;
  publisherKeyId: string;
  /** How many shipments keep their undo area. */
  keepUndo: number;
  shipments: AppliedShipmentInfo[];
  /**
   * An ingest or rollback under way or interrupted: until it finishes, DEST
   * may hold entries of two trees, and `shipments` ends with the last one
   * recorded whole.
   */
  inProgress: DestInProgress | null;
}


/** Options of Engine.signature. */
export interface SignatureOptions {
  /** The folder to describe: a destination, or any folder. */
  dest: string;
  /** The signature file to write; FILE.minisig is written beside it. */
  out: string;
  /** Dataset name for a folder that holds no brickpost state. */
  dataset?: string;
}

/** What `brickpost signature` wrote. */
export interface SignatureSummary {
  dest: string;
  out: string;
  /** SHA-256 (hex) of the signature file. */
  sha256: string;
  dataset: string | null;
  datasetId: string | null;
  /** The last shipment applied to the folder, when it is a destination. */
  state: { shipment: string; seq: number } | null;
  files: number;
  chunks: number;
  bytes: number;
  /** Size of the signature file in bytes. */
  fileSize: number;
  seconds: number;
  warnings: number;
}

/** Options of Engine.receipt. */
export interface ReceiptOptions {
  dest: string;
  /** The receipt file to write; FILE.minisig is written beside it. */
  out: string;
  /** Re-read every file and check each chunk's keyed id (else: type, size and mtime only). */
  deep?: boolean;
}

/** How a destination was checked against its current shipment. */
export interface ReceiptVerification {
  level: 'stat' | 'deep';
  ok: boolean;
  files: number;
  bytes: number;
  /** At most 100; paths are relative to the destination. */
  problems: VerifyProblem[];
}

/** A receipt, `brickpost-receipt/v1` (FORMAT.md §receipt): what a destination holds, signed by its subscriber. */
export interface Receipt {
  format: 'brickpost-receipt/v1';
  dataset: string;
  datasetId: string;
  /** The dataset's publisher key id. */
  publisher: string;
  subscriber: { name: string; keyId: string; recipient: string };
  applied: Array<{ shipment: string; seq: number; appliedAt: string }>;
  current: { shipment: string; seq: number };
  verification: ReceiptVerification;
  /** SHA-256 (hex) of the current shipment's encrypted manifest kept in the destination. */
  stateDigest: string;
  created: string;
}

/** What `brickpost receipt` wrote. */
export interface ReceiptSummary {
  dest: string;
  out: string;
  /** SHA-256 (hex) of the receipt file. */
  sha256: string;
  receipt: Receipt;
  seconds: number;
}

/** What `brickpost receipt import` recorded. */
export interface ReceiptImportSummary {
  file: string;
  sha256: string;
  /** True when this receipt file was imported before; nothing was changed. */
  alreadyImported: boolean;
  /** The subscriber: the name this home trusts them under, their key id and recipient. */
  subscriber: { name: string | null; keyId: string; recipient: string };
  /** True when the trust store had no recipient for the subscriber's key and now has the receipt's. */
  recipientRecorded: boolean;
  dataset: string;
  datasetId: string;
  shipment: string;
  seq: number;
  level: 'stat' | 'deep';
  ok: boolean;
  problems: number;
  created: string;
}
