import Database from 'better-sqlite3';
import { UNDO_KEEP } from '../ingest/retention.js';
import { STATE_DIR } from './objects.js';

/**
 * What an object storage destination holds, in PREFIX/.brickpost/ beside
 * the data (so any machine with the credentials can ingest the next
 * shipment):
 *
 * - `state.json`: the dataset and the shipment applied last, its tree and
 *   the shipments applied so far;
 * - `trees/SHIPMENT.sqlite`: that shipment's tree (a SQLite file): each
 *   object brickpost wrote (path below the prefix, size) and where each of
 *   its chunks is (id, offset), so an incremental shipment's held chunks
 *   and delta bases are read back from the objects;
 * - `staging/SHIPMENT/PATH`: objects of a shipment being ingested;
 * - `undo/SEQ/PATH`: the objects shipment SEQ replaced or deleted, as they
 *   were (server-side copies, for rollback; undo.ts);
 * - `commit.json`: present from the commit point of an ingest until it is
 *   finished (the marker that the prefix is changing); `rollback.json`
 *   likewise for a rollback.
 */
export interface S3State {
  format: 'brickpost-s3-dest-1';
  dataset: string;
  datasetId: string;
  publisher: string;
  shipment: string;
  seq: number;
  /** The tree file of `shipment`, below the prefix. */
  tree: string;
  /** How many of the last shipments keep their undo objects (absent: UNDO_KEEP), or every one. */
  keepUndo?: number;
  keepAll?: boolean;
  history: S3Applied[];
}

/** One applied shipment. `undo` is present while its undo objects are kept (rollback can undo it). */
export interface S3Applied {
  shipment: string;
  seq: number;
  label: string;
  created: string;
  applied: string;
  files?: number;
  bytes?: number;
  bytesFromDrive?: number;
  undo?: { objects: number; bytes: number };
}

/** The commit journal: the new state, and the tree of the state it replaces (whose objects not in the new tree retire). */
export interface S3Commit {
  shipment: string;
  state: S3State;
  oldTree: string | null;
  /** The undo objects of the old tree are all copied (and `state` says what they take): nothing is copied to undo again. */
  undoSaved?: boolean;
}

export const STATE = STATE_DIR + 'state.json';
export const COMMIT = STATE_DIR + 'commit.json';
export const ROLLBACK = STATE_DIR + 'rollback.json';
export const STAGING = STATE_DIR + 'staging/';
export const UNDO = STATE_DIR + 'undo/';
export const TREES = STATE_DIR + 'trees/';
export const treeKey = (shipment: string): string => `${TREES}${shipment}.sqlite`;
export const undoKey = (seq: number): string => `${UNDO}${seq}/`;

/** Objects copied, deleted and fetched at once. */
export const PARALLEL = 8;

/** A tree file, open. */
export function openTree(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, marker INTEGER NOT NULL DEFAULT 0, digest BLOB);
CREATE INDEX IF NOT EXISTS files_digest ON files (digest);
CREATE TABLE IF NOT EXISTS chunks (id BLOB PRIMARY KEY, path TEXT NOT NULL, offset INTEGER NOT NULL, len INTEGER NOT NULL);`);
  return db;
}

/** How many of the last shipments keep their undo objects. */
export function keptUndo(s: S3State): number {
  return s.keepAll ? Infinity : (s.keepUndo ?? UNDO_KEEP);
}

/** The state with the undo of shipments beyond the kept ones dropped (their objects are removed by pruneUndo). */
export function limitUndo(s: S3State): S3State {
  const keep = keptUndo(s);
  const n = s.history.length;
  return {
    ...s,
    history: s.history.map((h, i) => {
      if (n - i <= keep || !h.undo) return h;
      const without = { ...h };
      delete without.undo;
      return without;
    }),
  };
}
