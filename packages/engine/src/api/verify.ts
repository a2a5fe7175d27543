/**
 * The engine API's types for checking drives: verify (one drive, or the
 * drive set it belongs to) and repair from a drive's recovery data.
 * Types only.
 */

/** A creation time for people (verify/created.ts's describeCreated). */
export interface CreatedNote {
  /** "2026-11-26 10:02 UTC (3 days ago)". */
  text: string;
  /** Set when the time is ahead of this machine's clock by more than CLOCK_SKEW_MS: what that means. */
  warning: string | null;
}

export interface VerifyOptions {
  drive: string;
  /** Shipment id when the drive holds several. */
  shipment?: string;
  /** Decrypt, decompress and re-hash every chunk (needs the age identity). */
  deep?: boolean;
  /** Other drives of the same set to use (besides those found mounted next to `drive`). */
  drives?: string[];
  /** With `deep`: how many times its size on the drive the shipment's data may expand (as IngestOptions.maxExpansion). */
  maxExpansion?: number | 'none';
}

/** A drive set as verify sees it from one of its drives. */
export interface VerifySetStatus {
  /** This drive's number in the set (1-based). */
  drive: number;
  drives: number;
  data: number;
  parity: number;
  /** Drives of the set found (this one, those given and those mounted next to it), by number. */
  found: Array<{ drive: number; path: string }>;
  present: number[];
  missing: number[];
  /** Whether the drives found are enough to rebuild the shipment. */
  recoverable: boolean;
  needed: number;
}

/** What the drive's recovery data can do about damage fixity found. */
export interface VerifyRepairStatus {
  /** Every damaged file can be repaired in place with `brickpost repair`. */
  repairable: boolean;
  damagedBlocks: number;
  files: Array<{ path: string; damagedBlocks: number; repairable: boolean }>;
}

export interface VerifyProblem {
  code: string;
  message: string;
  path?: string;
  /** What to do, when the problem says more than its code (a refusal of what the publisher signed). */
  hint?: string;
}

export interface VerifyReport {
  ok: boolean;
  shipmentId: string;
  dataset: string;
  seq: number;
  label: string;
  /** The signer; `publicKey` (RW…) is given for an untrusted signer whose signature checks out against the key the drive names. */
  publisher: { keyId: string; name: string | null; trusted: boolean; publicKey?: string };
  signature: 'valid' | 'invalid' | 'missing';
  fixity: 'ok' | 'failed' | 'skipped';
  deep: 'ok' | 'failed' | 'skipped';
  /** Files on the drive whose SHA-256 was checked (packs, manifest, set and recovery files): drive files, not the dataset's. */
  filesChecked: number;
  bytesChecked: number;
  /** Files and bytes of the dataset the shipment carries (signed bag-info), when the shipment could be opened. */
  datasetFiles?: number;
  datasetBytes?: number;
  /** When the publisher packed it (signed bag-info, ISO 8601 UTC). */
  created?: string;
  /** The same for people: the time, how long ago, and a warning when it lies ahead of this machine's clock (describeCreated). */
  packed?: CreatedNote;
  /**
   * Where this verify's `verified` custody event went: on the drive (and this
   * home's catalog), the catalog only (read-only drive), nowhere (no custody
   * chain, or it is broken: a warning says which), or nowhere because this
   * home has no identity to sign it.
   */
  custody: 'drive' | 'catalog' | 'none' | 'no-identity';
  /** Chunk frames `deep` decoded and checked: packed frames against their ids, delta frames to their length; each once, however many refs name it. */
  chunksChecked: number;
  /** The packed and delta refs those frames cover (refs naming a frame already checked are not decoded again). */
  refsCovered?: number;
  /** Held refs seen by `deep`: not on the drive (the recipient's base tree holds them), so not checked. */
  chunksHeld?: number;
  /** Present for a drive of a set. */
  set?: VerifySetStatus;
  /** Present when fixity failed on a drive with recovery data. */
  repair?: VerifyRepairStatus;
  problems: VerifyProblem[];
  seconds: number;
}

export interface RepairOptions {
  drive: string;
  shipment?: string;
  /** Only say what would be repaired. */
  dryRun?: boolean;
}

export interface RepairSummary {
  shipmentId: string;
  /** The bag folder repaired. */
  drive: string;
  dryRun: boolean;
  /** Every damaged file was repaired (or, with dryRun, can be). */
  ok: boolean;
  blocks: number;
  damagedBlocks: number;
  repairedBlocks: number;
  /** The files that were not intact: repaired, repairable (dry run), unrepairable or digest-mismatch. */
  files: Array<{ path: string; status: string; damagedBlocks: number; unrepairableBlocks: number; reason?: string }>;
  /** Recovery files that are lost, refused or degraded. */
  recoveryProblems: Array<{ path: string; state: string; reason: string }>;
  seconds: number;
}
