/**
 * The engine API's types for applying a shipment to a destination
 * (ingest, rollback) and choosing which shipment of a drive applies next.
 * Types only.
 */
import type { S3Options } from './s3.js';

export interface IngestOptions {
  drive: string;
  /** How to reach a destination `s3://BUCKET/PREFIX`. */
  s3?: S3Options;
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
  /** Every applied shipment keeps its undo data (`--keep-undo all`); false returns to keepUndo. Remembered by DEST. */
  keepAll?: boolean;
  /** Shipments applied within this many days keep their undo data too. Remembered by DEST. */
  keepDays?: number;
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

export interface RollbackOptions {
  dest: string;
  /** Shipment id or sequence number of an applied shipment to return to. */
  to: string;
  /** Credentials and endpoint when `dest` is s3://BUCKET/PREFIX. */
  s3?: S3Options;
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
