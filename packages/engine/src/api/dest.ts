/**
 * The engine API's types for the state of a destination: what it holds,
 * who works on it, and an ingest or rollback under way or interrupted.
 * Types only; the one wording every front end uses for an interrupted job
 * is inProgressLines (ingest/in-progress.ts).
 */
import type { SeenLag } from './subscribers.js';
import type { PinInfo } from './undo.js';

/**
 * An ingest or rollback of a destination that has begun to change it and
 * not finished (DEST/.brickpost/IN-PROGRESS). Meanwhile DEST holds some
 * entries of the tree it had (`from`) and some of the one it is going to,
 * each entry whole.
 */
export interface DestInProgress {
  kind: 'ingest' | 'rollback';
  /** The shipment it goes to: the one ingested, or the one rolled back to. */
  shipmentId: string;
  /** Its sequence number (null when only the journal of an older brickpost tells). */
  seq: number | null;
  from: { shipmentId: string; seq: number } | null;
  started: string | null;
  /** The commit's phase (retire, install, links, dirs; unstage, restore), when the journal tells. */
  phase: string | null;
  /** True when a brickpost holds DEST's lock now (it is running); false when it was interrupted. */
  running: boolean;
  /** What it means, in the words every front end shows (inProgressLines). */
  lines: string[];
}

/** What `brickpost status DEST` reports (Engine.status). */
export interface DestStatus {
  dest: string;
  /** False for a folder nothing was ingested into. */
  brickpost: boolean;
  dataset: string | null;
  datasetId: string | null;
  publisherKeyId: string | null;
  /** The shipment DEST holds (the last one recorded whole). */
  current: { shipmentId: string; seq: number; label: string; appliedAt: string } | null;
  /** How many shipments were applied. */
  shipments: number;
  /** The brickpost process working on DEST now, from its lock. */
  lock: { pid: number; command: string | null; since: string | null; host: string | null } | null;
  inProgress: DestInProgress | null;
  /** The command that finishes an interrupted job (null when none is needed). */
  next: string | null;
}

/** What Engine.resume finished. */
export interface ResumeSummary {
  dest: string;
  /** What was finished ("the commit of shipment …"), or null when nothing was interrupted. */
  finished: string | null;
  current: { shipmentId: string; seq: number } | null;
  seconds: number;
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
  /** Rollback can return to the tree this shipment left (every later shipment is undoable). */
  kept: boolean;
  /** Names of the pins on this shipment. */
  pins: string[];
  /** Bytes of undo data this shipment's undo takes on disk (a chunk shared with an earlier shipment counts there). */
  undoBytes: number;
}

/** What a destination holds: its dataset and the shipments applied, oldest first. */

export interface DestHistory {
  dest: string;
  dataset: string;
  datasetId: string;
  publisherKeyId: string;
  /** How many shipments keep their undo area. */
  keepUndo: number;
  /** Every shipment keeps its undo data. */
  keepAll: boolean;
  /** Shipments applied within this many days keep theirs too (null: no such rule). */
  keepDays: number | null;
  pins: PinInfo[];
  /** Bytes of undo data on disk: the chunk store and files kept whole. */
  undoBytes: number;
  shipments: AppliedShipmentInfo[];
  /**
   * An ingest or rollback under way or interrupted: until it finishes, DEST
   * may hold entries of two trees, and `shipments` ends with the last one
   * recorded whole.
   */
  inProgress: DestInProgress | null;
  /** How far behind the newest shipment of the dataset this home saw on a drive DEST is, or null when this home saw none newer. */
  newestSeen: SeenLag | null;
}
