/**
 * The engine API's types for verification reports (`brickpost report`) and
 * drive labels (`brickpost label`). A ShipmentReport is a stable JSON
 * document, `brickpost-report/v1`: fields are only ever added, and its JSON
 * Schema (REPORT_SCHEMA) says exactly what a version holds.
 * Types only.
 */
import type { CustodyReport } from './custody.js';
import type { AppliedShipmentInfo } from './dest.js';
import type { VerifyProblem, VerifyRepairStatus } from './verify.js';

/** Options of Engine.report. */
export interface ReportOptions {
  /** A drive (its root, brickpost/ folder or a bag folder) or a destination folder. */
  target: string;
  /** Shipment id when the drive holds several. */
  shipment?: string;
  /**
   * Drive: decrypt, decompress and re-hash every chunk (needs the age identity).
   * Destination: re-read every file and check each chunk's keyed id.
   */
  deep?: boolean;
}

/**
 * The verdict at the top of a report, in plain words.
 *
 * - intact: the signature is valid and by a trusted key, and every check passed
 *   (a destination: it matches its current shipment).
 * - repairable: files on the drive are damaged, and the drive's recovery data
 *   can repair all of them in place.
 * - damaged: data is missing, truncated or corrupt.
 * - untrusted: signed by a key not trusted here (so the signature cannot be checked).
 * - not-authentic: the signature is missing or invalid, or the shipment is not for this key.
 * - unsafe: the shipment asks for something brickpost refuses.
 * - differs: a destination no longer matches its current shipment.
 */
export type ReportStatus = 'intact' | 'repairable' | 'damaged' | 'untrusted' | 'not-authentic' | 'unsafe' | 'differs';

export interface ReportVerdict {
  status: ReportStatus;
  /** True only for 'intact'. */
  ok: boolean;
  /** "Genuine and intact", "Damaged", "Untrusted publisher"… */
  title: string;
  /** One or two sentences: what it means and what to do. */
  advice: string;
}

/** The shipment reported on. Fields a damaged drive does not give are null. */
export interface ReportShipment {
  id: string;
  dataset: string;
  datasetId: string | null;
  seq: number;
  parent: string | null;
  label: string;
  /** When it was packed (ISO 8601), from the drive's bag-info. */
  created: string | null;
  /** Files and bytes of file content the shipment describes. */
  files: number | null;
  bytes: number | null;
  /** Drives of the set (1 for a single drive), of which data and parity. */
  drives: number;
  dataDrives: number;
  parityDrives: number;
}

/** One drive of the shipment's set, as the report found it. */
export interface ReportDrive {
  /** 1-based number in the set. */
  drive: number;
  role: 'data' | 'parity';
  /** 'present': found (the drive named, one given, or one mounted next to it). */
  state: 'present' | 'missing';
  /** The bag folder, when present. */
  path: string | null;
  /** This drive's own fixity check (signed SHA-256 of every file), or 'skipped' when missing. */
  fixity: 'ok' | 'failed' | 'skipped';
  files: number;
  bytes: number;
  problems: number;
}

/** What was checked and what was found. */
export interface ReportCheck {
  /** Drive: 'fixity' (keyless) or 'deep'. Destination: 'stat' (type, size, mtime) or 'deep' (re-read). */
  level: 'fixity' | 'deep' | 'stat';
  /** Drive: the signed fixity list. Destination: the stat-level comparison with the shipment's manifest. */
  fixity: 'ok' | 'failed' | 'skipped';
  deep: 'ok' | 'failed' | 'skipped';
  files: number;
  bytes: number;
  chunksChecked: number;
  chunksHeld: number;
  /** At most REPORT_LIMITS.problems, most serious first; per-file failures carry their path. */
  problems: VerifyProblem[];
  /** Problems found in all (more than `problems` holds when some were left out). */
  problemsTotal: number;
}

/** One timed phase of the check. */
export interface ReportPhase {
  /** 'open', 'verify' (fixity), 'deep-verify', 'drives' (the set's other drives), 'dest-check'. */
  phase: string;
  seconds: number;
  bytes: number;
  files: number;
  /** bytes / seconds, 0 when nothing was read. */
  bytesPerSecond: number;
}

export interface ReportTimings {
  seconds: number;
  phases: ReportPhase[];
}

/** A destination report's view of the destination. */
export interface ReportDest {
  path: string;
  publisherKeyId: string;
  keepUndo: number;
  /** The shipments applied, oldest first; the last is the current one. */
  applied: AppliedShipmentInfo[];
}

/** A verification report, `brickpost-report/v1`: what `brickpost report` writes as JSON, HTML and PDF. */
export interface ShipmentReport {
  format: 'brickpost-report/v1';
  kind: 'drive' | 'dest';
  /** The bag folder or destination folder reported on, absolute. */
  target: string;
  /** When the report was made (ISO 8601). */
  created: string;
  verdict: ReportVerdict;
  shipment: ReportShipment;
  publisher: { keyId: string; name: string | null; trusted: boolean };
  /**
   * The publisher's signature of the drive: 'unknown-key' when it is by a
   * key not in the trust store (so it cannot be checked); 'not-checked' for
   * a destination (its shipment's was checked at ingest).
   */
  signature: 'valid' | 'invalid' | 'missing' | 'unknown-key' | 'not-checked';
  /** Every drive of the set, in set order (empty for a destination). */
  drives: ReportDrive[];
  check: ReportCheck;
  /** What the drive's recovery data can repair, when fixity failed on a drive that has some. */
  repair: VerifyRepairStatus | null;
  /** Present for a destination report. */
  dest: ReportDest | null;
  timings: ReportTimings;
  /** The shipment's custody log, or null when there is none to show (see notes). */
  custody: CustodyReport | null;
  /** Things worth knowing that are not problems (drives not found, no custody log…). */
  notes: string[];
}

/** Options of Engine.label. */
export interface LabelOptions {
  drive: string;
  shipment?: string;
}

/** What a drive label shows, one per drive of the set. */
export interface DriveLabel {
  shipmentId: string;
  dataset: string;
  label: string;
  drive: number;
  drives: number;
  role: 'data' | 'parity';
  publisherKeyId: string;
  publisherName: string;
  /** Packing date, YYYY-MM-DD (UTC). */
  date: string;
}

/** Engine.label's result: the labels and one printable standalone HTML page of them. */
export interface LabelSheet {
  labels: DriveLabel[];
  html: string;
}
